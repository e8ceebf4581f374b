"""The thin web client in a real browser: create, navigate with the buttons, stay in step."""
import io
import json
import os
import pathlib
import tempfile
import time
import urllib.error
import urllib.request

import zxingcpp
from conftest import BACKEND_KEY, BASE, call, start_server, stop_server
from PIL import Image
from selenium.common.exceptions import (ElementClickInterceptedException,
                                        ElementNotInteractableException, NoSuchElementException,
                                        StaleElementReferenceException)
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

WAIT = 10  # seconds for anything the page does by itself
SYNC = 5  # seconds for a change made elsewhere to show up ("within a few seconds")
FLAKY = (StaleElementReferenceException, NoSuchElementException, ElementNotInteractableException,
         ElementClickInterceptedException)


def wait(driver, seconds=WAIT):
    return WebDriverWait(driver, seconds, poll_frequency=0.05, ignored_exceptions=FLAKY)


def by_testid(name):
    return (By.CSS_SELECTOR, f'[data-testid="{name}"]')


def element(driver, name):
    return driver.find_element(*by_testid(name))


def retrying(action):
    """Runs `action` until it works: the page re-renders when events arrive."""
    def attempt(driver):
        try:
            action(driver)
            return True
        except FLAKY:
            return False
    return attempt


def click(driver, name):
    wait(driver).until(retrying(lambda d: element(d, name).click()),
                       message=f"could not click {name}")


def type_into(driver, name, text):
    def fill(d):
        field = element(d, name)
        field.clear()
        field.send_keys(str(text))
    wait(driver).until(retrying(fill), message=f"could not type into {name}")


def attributes(driver, name, attribute):
    """`attribute` of every element called `name`, read again if a re-render intervenes."""
    for _ in range(50):
        try:
            return [node.get_attribute(attribute)
                    for node in driver.find_elements(*by_testid(name))]
        except StaleElementReferenceException:
            continue
    raise AssertionError(f"{name} kept changing")


def text_of(driver, name):
    return wait(driver).until(lambda d: element(d, name).text)


def path_routes(driver):
    return attributes(driver, "path-card", "data-route")


def wait_for_path(driver, routes, seconds=WAIT):
    wait(driver, seconds).until(lambda d: path_routes(d) == routes,
                                message=f"path never became {routes} (was {path_routes(driver)})")


def wait_for_text(driver, name, text, seconds=WAIT):
    wait(driver, seconds).until(lambda d: text in element(d, name).text,
                                message=f"{name} never showed {text!r}")


def load(driver):
    driver.get(BASE + "/")
    wait(driver).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#graph option"))


def create_session(driver, root=None):
    load(driver)
    if root:
        Select(element(driver, "root-select")).select_by_value(root)
    click(driver, "create-session")
    wait(driver).until(lambda d: element(d, "live-status").text == "live",
                       message="the event stream never went live")
    return text_of(driver, "session-id"), text_of(driver, "session-token")


def open_session(driver, session_id, token):
    load(driver)
    element(driver, "open-id").send_keys(session_id)
    element(driver, "open-token").send_keys(token)
    click(driver, "open-session")
    wait(driver).until(lambda d: element(d, "live-status").text == "live",
                       message="the second window never went live")


def push_detail(driver, identifier):
    type_into(driver, "param-detail-id", identifier)
    click(driver, "push-detail")


def sent_requests(driver):
    """(url, headers) of every request the page made, from Chromium's performance log."""
    requests = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            request = message["params"]["request"]
            requests.append((request["url"], request.get("headers", {})))
    return requests


def state(session_id, token):
    return call("GET", f"/v1/sessions/{session_id}", token)


def test_create_push_and_present_with_the_buttons(browser):
    session_id, token = create_session(browser)
    assert len(token) == 43
    wait_for_path(browser, ["master"])
    push_detail(browser, 4)
    wait_for_path(browser, ["master", "detail"])
    click(browser, "present-sheet-settings")
    wait_for_path(browser, ["master", "detail", "settings"])
    assert attributes(browser, "path-card", "data-presentation") == ["root", "push", "sheet"]
    assert attributes(browser, "path-card", "data-active") == ["false", "false", "true"]
    assert attributes(browser, "tree-node", "data-route") == ["master", "detail", "settings"]
    current = state(session_id, token)
    assert [item["route"] for item in current["path"]] == ["master", "detail", "settings"]
    assert current["path"][1]["params"] == {"id": 4}
    assert attributes(browser, "tree-node", "data-id") == [item["id"] for item in current["path"]]

    click(browser, "present-cover-signup")
    wait_for_path(browser, ["master", "detail", "settings", "signup"])
    assert attributes(browser, "path-card", "data-presentation")[-1] == "fullScreenCover"
    click(browser, "dismiss")
    wait_for_path(browser, ["master", "detail", "settings"])
    click(browser, "back")
    wait_for_path(browser, ["master", "detail"])
    click(browser, "pop")
    wait_for_path(browser, ["master"])
    wait_for_text(browser, "event-log", "coordinator.stopped")


def test_a_refusal_is_shown_as_a_problem(browser):
    create_session(browser)
    wait_for_path(browser, ["master"])
    type_into(browser, "deeplink-input", "myapp://nowhere/at/all")
    click(browser, "deeplink-go")
    wait(browser).until(lambda d: element(d, "problem").is_displayed(),
                        message="no problem banner")
    assert "no_route_for_url" in element(browser, "problem-code").text
    assert "422" in element(browser, "problem-code").text
    assert element(browser, "problem-detail").text
    click(browser, "problem-close")
    wait(browser).until(lambda d: not element(d, "problem").is_displayed(),
                        message="the banner did not go away")

    # A param of the wrong type (not an int) is refused by the service and explained.
    type_into(browser, "param-detail-id", "1.5")
    click(browser, "push-detail")
    wait(browser).until(lambda d: element(d, "problem").is_displayed(),
                        message="no problem banner for a bad param")
    assert "422" in element(browser, "problem-code").text
    assert path_routes(browser) == ["master"]


def test_a_result_that_is_not_json_is_refused_in_the_page(browser):
    session_id, token = create_session(browser)
    push_detail(browser, 2)
    wait_for_path(browser, ["master", "detail"])
    version = state(session_id, token)["version"]
    type_into(browser, "result-input", "{oops")
    click(browser, "back")
    wait(browser).until(lambda d: element(d, "problem").is_displayed(),
                        message="no word about the invalid result")
    assert "invalid_result" in element(browser, "problem-code").text
    assert "JSON" in element(browser, "problem").text
    assert element(browser, "result-input").get_attribute("aria-invalid") == "true"
    # Nothing was sent: the session did not move.
    assert state(session_id, token)["version"] == version
    assert path_routes(browser) == ["master", "detail"]

    type_into(browser, "result-input", '{"saved": true}')
    click(browser, "back")
    wait_for_path(browser, ["master"])
    assert element(browser, "result-input").get_attribute("aria-invalid") is None
    events = call("GET", f"/v1/sessions/{session_id}/events?after=0", token)["events"]
    assert events[-1]["type"] == "coordinator.resumed"
    assert events[-1]["result"] == {"saved": True}


def test_without_a_session_its_controls_are_disabled_and_look_it(browser):
    load(browser)
    assert not element(browser, "end-session").is_enabled()
    opacity = browser.execute_script(
        "return getComputedStyle(document.querySelector('[data-testid=end-session]')).opacity")
    assert float(opacity) < 0.75, f"End session looks enabled (opacity {opacity})"
    for name in ("back", "pop", "pop-root", "dismiss", "dismiss-all", "deeplink-go",
                 "result-input"):
        assert not element(browser, name).is_enabled(), f"{name} is enabled without a session"
    assert element(browser, "create-session").is_enabled()

    create_session(browser)
    assert element(browser, "end-session").is_enabled()
    assert element(browser, "deeplink-go").is_enabled()
    # At the root there is nothing to go back to: the state's `allowed` says so.
    wait(browser).until(lambda d: not element(d, "back").is_enabled())
    push_detail(browser, 1)
    wait(browser).until(lambda d: element(d, "back").is_enabled(),
                        message="back stayed disabled with a pushed screen")
    click(browser, "end-session")
    wait(browser).until(lambda d: not element(d, "end-session").is_enabled(),
                        message="End session stayed enabled after the session ended")
    assert not element(browser, "back").is_enabled()


def test_the_page_has_an_icon_and_loads_nothing_inline(browser):
    load(browser)
    icon = browser.find_element(By.CSS_SELECTOR, 'link[rel="icon"]').get_attribute("href")
    assert icon == BASE + "/favicon.svg"
    for path in ("/favicon.svg", "/favicon.ico"):
        with urllib.request.urlopen(BASE + path, timeout=5) as response:
            assert response.status == 200
            assert response.headers["Content-Type"] == "image/svg+xml"
            assert response.read().startswith(b"<svg")
    # No inline script or style: the policy would refuse them (and the console check would fail).
    assert browser.execute_script("return document.querySelectorAll('script:not([src])').length") == 0
    assert browser.execute_script("return document.querySelectorAll('style').length") == 0


def test_a_second_window_follows_changes_from_the_first_and_from_curl(browser, second_browser):
    session_id, token = create_session(browser)
    open_session(second_browser, session_id, token)
    wait_for_path(second_browser, ["master"])

    push_detail(browser, 9)
    wait_for_path(second_browser, ["master", "detail"], SYNC)

    call("POST", f"/v1/sessions/{session_id}/present", token,
         {"route": "settings", "style": "sheet"})
    wait_for_path(second_browser, ["master", "detail", "settings"], SYNC)
    wait_for_path(browser, ["master", "detail", "settings"], SYNC)

    # And back the other way: the second window acts, the first follows.
    click(second_browser, "back")
    wait_for_path(browser, ["master", "detail"], SYNC)
    wait_for_text(second_browser, "event-log", "coordinator.started")
    wait_for_text(browser, "event-log", "dismiss")


def test_after_a_drop_the_stream_resumes_from_the_last_event_id(browser):
    session_id, token = create_session(browser)
    push_detail(browser, 1)
    wait_for_path(browser, ["master", "detail"])
    seen = browser.execute_script("return app.lastSeq")
    assert seen is not None
    # Cut the connection, then change the session while the page is away.
    browser.execute_script("app.connection.abort()")
    wait(browser).until(lambda d: element(d, "live-status").text == "reconnecting")
    call("POST", f"/v1/sessions/{session_id}/present", token,
         {"route": "settings", "style": "sheet"})
    wait_for_path(browser, ["master", "detail", "settings"], SYNC)
    wait(browser).until(lambda d: element(d, "live-status").text == "live")
    streams = [headers for url, headers in sent_requests(browser) if url.endswith("/events/stream")]
    assert streams[-1].get("Last-Event-ID") == seen
    # The missed events were replayed, not replaced by a reset.
    assert "reset" not in attributes(browser, "event", "data-type")[:2]


def test_tabs_replace_teardown_and_deep_links(browser):
    session_id, token = create_session(browser, root="tabs")
    wait_for_path(browser, ["tabs", "home"])
    click(browser, "tab-search")
    wait_for_path(browser, ["tabs", "search"])

    push_detail(browser, 5)
    wait_for_path(browser, ["tabs", "search", "detail"])
    first = attributes(browser, "path-card", "data-id")[-1]
    type_into(browser, "param-detail-id", 6)
    click(browser, "replace-detail")
    wait(browser).until(lambda d: attributes(d, "path-card", "data-id")[-1] != first,
                        message="replace did not start a new coordinator")
    assert state(session_id, token)["path"][-1]["params"] == {"id": 6}

    replaced = attributes(browser, "path-card", "data-id")[-1]
    click(browser, f"teardown-{replaced}")
    wait_for_path(browser, ["tabs", "search"])
    wait_for_text(browser, "event-log", "teardown")

    type_into(browser, "deeplink-input", "myapp://master/detail/7/settings")
    click(browser, "deeplink-go")
    wait_for_path(browser, ["master", "detail", "settings"])
    assert attributes(browser, "path-card", "data-presentation") == ["root", "push", "sheet"]


def test_a_reload_keeps_the_session_and_the_token_stays_out_of_urls(browser):
    session_id, token = create_session(browser)
    push_detail(browser, 3)
    wait_for_path(browser, ["master", "detail"])
    browser.refresh()
    wait_for_path(browser, ["master", "detail"])
    assert text_of(browser, "session-id") == session_id
    requests = sent_requests(browser)
    streams = [headers for url, headers in requests if url.endswith(f"/{session_id}/events/stream")]
    assert streams, "the page did not open the event stream"
    assert all(headers.get("Authorization") == f"Bearer {token}" for headers in streams)
    assert any(headers.get("Last-Event-ID") is None for headers in streams)
    assert not [url for url, _ in requests if token in url]
    assert token not in browser.current_url
    assert token in browser.execute_script("return JSON.stringify(sessionStorage)")
    assert browser.execute_script("return localStorage.length") == 0
    assert not [cookie for cookie in browser.get_cookies() if token in cookie.get("value", "")]


def test_a_session_ended_elsewhere_shows_as_ended(browser):
    session_id, token = create_session(browser)
    wait_for_path(browser, ["master"])
    call("DELETE", f"/v1/sessions/{session_id}", token)
    wait(browser, SYNC).until(lambda d: element(d, "live-status").text == "ended",
                              message="the page did not notice the end of the session")
    wait_for_path(browser, [])
    wait_for_text(browser, "event-log", "session.ended")


def test_controls_follow_the_states_allowed_affordances(browser):
    session_id, token = create_session(browser, root="scene1")
    wait_for_path(browser, ["scene1"])
    allowed = state(session_id, token)["allowed"]
    assert allowed["push"] == ["scene2"] and allowed["sheet"] == ["scene3"]
    # Exactly the listed routes get buttons, and only for the listed ways.
    rows = attributes(browser, "route-scene2", "data-testid") + attributes(
        browser, "route-scene3", "data-testid")
    assert rows == ["route-scene2", "route-scene3"]
    assert browser.find_elements(*by_testid("push-scene2"))
    assert not browser.find_elements(*by_testid("present-sheet-scene2"))
    assert browser.find_elements(*by_testid("present-sheet-scene3"))
    assert not browser.find_elements(*by_testid("push-detail"))
    for name in ("back", "pop", "pop-root", "dismiss", "dismiss-all"):
        assert not element(browser, name).is_enabled(), name
    type_into(browser, "param-scene3-text", "hello")
    click(browser, "present-sheet-scene3")
    wait_for_path(browser, ["scene1", "scene3"])
    wait(browser).until(lambda d: element(d, "dismiss").is_enabled())
    assert element(browser, "back").is_enabled()
    assert not element(browser, "pop").is_enabled()
    # The page's script holds no navigation rule: no graph field it could decide from.
    script = urllib.request.urlopen(BASE + "/app.js", timeout=5).read().decode()
    for rule in (".next", ".presentations", "mayReplace", "allowsNext"):
        assert rule not in script, rule


def test_screenshot_with_a_four_deep_path_and_a_sheet(browser):
    create_session(browser)
    for identifier in (1, 2, 3):
        push_detail(browser, identifier)
        wait_for_path(browser, ["master"] + ["detail"] * identifier)
    click(browser, "present-sheet-settings")
    wait_for_path(browser, ["master", "detail", "detail", "detail", "settings"])
    # The whole page, no scrolling: grow the window to the document's height.
    height = browser.execute_script("return document.documentElement.scrollHeight")
    inner = browser.execute_script("return window.innerHeight")
    size = browser.get_window_size()
    browser.set_window_size(size["width"], size["height"] + max(0, height - inner))
    # No hover or focus rings in the picture.
    browser.execute_script("document.activeElement.blur()")
    ActionChains(browser).move_to_element(browser.find_element(By.TAG_NAME, "h1")).perform()
    # Into a scratch folder unless asked: tests never write into the repository's files.
    # `SCREENSHOT_DIR=docs Tests/browser/run -k screenshot` refreshes docs/web-client.png.
    folder = pathlib.Path(os.environ.get("SCREENSHOT_DIR") or tempfile.mkdtemp())
    folder.mkdir(parents=True, exist_ok=True)
    assert browser.save_screenshot(str(folder / "web-client.png"))


# Context, redirects, pending requests and leave guards (docs/behaviour.md sections 9 to 11) -------------------

def alert_of(driver):
    """The page's confirm or prompt, once it is up."""
    wait(driver).until(lambda d: _alert(d) is not None, message="no dialog came up")
    return driver.switch_to.alert


def _alert(driver):
    try:
        return driver.switch_to.alert
    except Exception:  # NoAlertPresentException
        return None


def context_entries(driver):
    keys = attributes(driver, "context-entry", "data-key")
    values = attributes(driver, "context-entry", "textContent")
    return dict(zip(keys, values))


def create_zumry(driver):
    """A session on zumry at its root, dashboard, which needs a signed-in user."""
    load(driver)
    Select(element(driver, "graph-select")).select_by_value("zumry")
    assert Select(element(driver, "root-select")).first_selected_option.get_attribute(
        "value") == "dashboard"
    click(driver, "create-session")
    wait(driver).until(lambda d: element(d, "live-status").text == "live",
                       message="the event stream never went live")
    return text_of(driver, "session-id"), text_of(driver, "session-token")


def test_the_context_set_by_the_backend_is_shown_read_only(browser):
    assert BACKEND_KEY, "run starts the server with a backend key"
    session_id, token = create_session(browser)
    wait(browser).until(lambda d: "nothing set" in element(d, "context").text)
    call("PUT", f"/v1/sessions/{session_id}/context", BACKEND_KEY,
         {"authenticated": True, "plan": "pro", "roles": ["member", "admin"]})
    expected = {"authenticated": "true", "plan": '"pro"', "roles": '["member","admin"]'}
    wait(browser, SYNC).until(lambda d: context_entries(d) == expected,
                              message=f"context never showed (was {context_entries(browser)})")
    # Read only: nothing in the context panel is a control.
    panel = element(browser, "context")
    assert not panel.find_elements(By.CSS_SELECTOR, "input, button, select, textarea")
    assert state(session_id, token)["context"]["plan"] == "pro"


def test_a_redirect_shows_the_pending_request_until_the_backend_opens_it(browser):
    # dashboard is closed (it needs authenticated) and redirects to login: the session shows
    # login, with the dashboard pending.
    session_id, token = create_zumry(browser)
    wait_for_path(browser, ["login"])
    wait(browser).until(lambda d: element(d, "pending").is_displayed(),
                        message="the pending request never showed")
    pending = element(browser, "pending")
    assert pending.get_attribute("data-route") == "dashboard"
    assert pending.get_attribute("data-op") == "create"
    assert "create dashboard" in pending.text
    assert pending.get_attribute("data-coordinator") == attributes(browser, "path-card",
                                                                   "data-id")[-1]
    assert state(session_id, token)["pending"]["route"] == "dashboard"
    # The backend says the user signed in: the dashboard is applied, the pending box goes.
    call("PUT", f"/v1/sessions/{session_id}/context", BACKEND_KEY, {"authenticated": True})
    wait(browser, SYNC).until(lambda d: not element(d, "pending").is_displayed(),
                              message="the pending request stayed")
    wait(browser, SYNC).until(lambda d: path_routes(d)[-1:] == ["dashboard"])
    assert context_entries(browser) == {"authenticated": "true"}


def test_the_leave_guard_toggle_sets_and_clears_it(browser):
    session_id, token = create_session(browser)
    push_detail(browser, 1)
    wait_for_path(browser, ["master", "detail"])
    click(browser, "leave-guard-c2")
    prompt = alert_of(browser)
    prompt.send_keys("Draft of a review")
    prompt.accept()
    wait(browser).until(lambda d: d.find_elements(*by_testid("guard-c2")),
                        message="the guard never showed")
    assert element(browser, "guard-c2").text == "Draft of a review"
    assert element(browser, "leave-guard-c2").get_attribute("aria-pressed") == "true"
    session = state(session_id, token)
    assert session["path"][1]["leaveGuard"] == {"reason": "Draft of a review"}
    assert session["allowed"]["leaveGuard"] == {"coordinator": "c2",
                                                "reason": "Draft of a review"}
    click(browser, "leave-guard-c2")
    wait(browser).until(lambda d: not d.find_elements(*by_testid("guard-c2")),
                        message="the guard stayed")
    session = state(session_id, token)
    assert "leaveGuard" not in session["path"][1]
    assert "leaveGuard" not in session["allowed"]
    types = attributes(browser, "event", "data-type")
    assert types.count("leaveGuard.changed") == 2


def test_a_discard_is_confirmed_before_it_is_sent(browser):
    session_id, token = create_session(browser)
    push_detail(browser, 1)
    wait_for_path(browser, ["master", "detail"])
    call("PUT", f"/v1/sessions/{session_id}/coordinators/c2/leave-guard", token,
         {"reason": "Unsaved draft"})
    wait(browser, SYNC).until(lambda d: d.find_elements(*by_testid("guard-c2")))
    # allowed.back is false, but the button stays: pressed, it asks first.
    wait(browser).until(lambda d: element(d, "back").is_enabled())
    click(browser, "back")
    confirm = alert_of(browser)
    assert confirm.text == "Discard unsaved changes in c2: Unsaved draft?"
    confirm.dismiss()
    # No: nothing is discarded, and the refusal is shown.
    wait_for_text(browser, "problem-code", "leave_blocked")
    assert path_routes(browser) == ["master", "detail"]
    assert len(state(session_id, token)["path"]) == 2
    click(browser, "back")
    alert_of(browser).accept()
    wait_for_path(browser, ["master"])
    assert [item["route"] for item in state(session_id, token)["path"]] == ["master"]
    # The retry said discard, and only the retry.
    sent = []
    for entry in browser.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            request = message["params"]["request"]
            if request["url"].endswith("/back"):
                sent.append(json.loads(request.get("postData") or "{}").get("discard"))
    assert sent == [None, None, True]


# The route graph picture (graph.js) ---------------------------------------------------------

def graph_picture(driver, graph=None):
    """Waits for the picture (of `graph`, when named) and returns what it drew: nodes by route
    with their data-on-path, edges as (from, to, kind), tab groups by container."""
    def drawn(d):
        svgs = d.find_elements(*by_testid("graph-svg"))
        return svgs and (graph is None or svgs[0].get_attribute("data-graph") == graph)
    wait(driver).until(drawn, message=f"the graph picture of {graph} was never drawn")
    return driver.execute_script("""
        const all = (id) => [...document.querySelectorAll(`[data-testid^="${id}"]`)];
        return {
          nodes: Object.fromEntries(all("graph-node-").map((node) =>
            [node.dataset.route, node.dataset.onPath])),
          edges: all("graph-edge-").map((edge) =>
            [edge.dataset.from, edge.dataset.to, edge.dataset.kind, edge.dataset.onPath,
             edge.dataset.testid]),
          groups: Object.fromEntries(all("graph-tabs-").map((group) =>
            [group.dataset.container, group.dataset.tabs.split(" ")])),
          any: all("graph-any-").map((mark) => mark.dataset.testid.slice(10)),
        };""")


def node_boxes(driver):
    """The screen rectangle of every node's box, by route."""
    return driver.execute_script("""
        return Object.fromEntries([...document.querySelectorAll(
            '[data-testid^="graph-node-"] > rect.box')].map((box) => {
          const r = box.getBoundingClientRect();
          return [box.parentNode.dataset.route, [r.left, r.top, r.right, r.bottom]];
        }));""")


def inside(inner, outer):
    return (outer[0] <= inner[0] and outer[1] <= inner[1] and inner[2] <= outer[2]
            and inner[3] <= outer[3])


def overlapping(boxes):
    names = sorted(boxes)
    pairs = []
    for index, first in enumerate(names):
        a = boxes[first]
        for second in names[index + 1:]:
            b = boxes[second]
            if a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]:
                pairs.append((first, second))
    return pairs


def on_path(driver):
    return {route for route, flag in graph_picture(driver)["nodes"].items() if flag == "true"}


def wait_for_on_path(driver, routes, seconds=SYNC):
    wait(driver, seconds).until(lambda d: on_path(d) == set(routes),
                                message=f"the picture's path never became {routes}")


def save_picture(driver, name):
    """A screenshot of the whole picture (the window made as tall as the page), into
    SCREENSHOT_DIR or a scratch folder."""
    folder = pathlib.Path(os.environ.get("SCREENSHOT_DIR") or tempfile.mkdtemp())
    folder.mkdir(parents=True, exist_ok=True)
    height = driver.execute_script("return document.documentElement.scrollHeight")
    driver.set_window_size(1440, height + 200)
    picture = element(driver, "graph-picture")
    driver.execute_script("arguments[0].scrollIntoView()", picture)
    assert picture.screenshot(str(folder / name))


def test_the_graph_picture_draws_every_route_next_arrow_and_tab_group(browser):
    create_session(browser)
    graph = call("GET", "/v1/graphs/demo")
    picture = graph_picture(browser, "demo")
    routes = {route["name"]: route for route in graph["routes"]}
    assert set(picture["nodes"]) == set(routes)
    edges = {(edge[0], edge[1], edge[2]) for edge in picture["edges"]}
    assert len(edges) == len(picture["edges"]), "an edge is drawn twice"
    expected = set()
    for route in graph["routes"]:
        expected |= {(route["name"], to, "next") for to in (route.get("next") or [])}
        expected |= {(route["name"], tab, "tab") for tab in route.get("tabs", [])}
    assert edges == expected
    assert ("detail", "detail", "next") in edges  # a route that may show itself
    for edge in picture["edges"]:
        assert edge[4] == f"graph-edge-{edge[0]}-{edge[1]}"
    # A route without `next` may show any route: a mark, not an arrow to every route.
    assert set(picture["any"]) == {name for name, route in routes.items() if route.get("next") is None}
    assert "settings" in picture["any"] and "scene2" not in picture["any"]
    # Each tab container's box holds its tabs, and only them.
    containers = {name: route["tabs"] for name, route in routes.items() if "tabs" in route}
    assert picture["groups"] == containers
    boxes = node_boxes(browser)
    for container, tabs in containers.items():
        group = browser.execute_script(
            "const r = document.querySelector(`[data-testid='graph-tabs-${arguments[0]}'] > rect`)"
            ".getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]", container)
        for name in routes:
            assert inside(boxes[name], group) == (name in tabs), (container, name)
    assert not overlapping(boxes)
    # The legend says what each mark means.
    legend = element(browser, "graph-legend").text
    for words in ("next", "tab", "redirect", "guarded", "any", "on the visible path"):
        assert words in legend, words


def test_the_graph_picture_highlights_the_visible_path_live(browser):
    session_id, token = create_session(browser)
    graph_picture(browser, "demo")
    wait_for_on_path(browser, ["master"])
    call("POST", f"/v1/sessions/{session_id}/push", token, {"route": "detail", "params": {"id": 1}})
    wait_for_on_path(browser, ["master", "detail"])
    call("POST", f"/v1/sessions/{session_id}/present", token,
         {"route": "settings", "style": "sheet"})
    wait_for_on_path(browser, ["master", "detail", "settings"])
    lit = {(edge[0], edge[1]) for edge in graph_picture(browser)["edges"] if edge[3] == "true"}
    assert lit == {("master", "detail"), ("detail", "settings")}
    active = browser.execute_script(
        "return [...document.querySelectorAll('[data-testid^=\"graph-node-\"].active')]"
        ".map((node) => node.dataset.route)")
    assert active == ["settings"]
    # Back dismisses the sheet: it leaves the path, the screen below it stays.
    call("POST", f"/v1/sessions/{session_id}/back", token, {})
    wait_for_on_path(browser, ["master", "detail"])
    call("POST", f"/v1/sessions/{session_id}/pop", token, {})
    wait_for_on_path(browser, ["master"])
    assert not [edge for edge in graph_picture(browser)["edges"] if edge[3] == "true"]

    # A tab's arrow from its container is on the path too; a deep link moves the whole path.
    call("POST", f"/v1/sessions/{session_id}/deeplink", token, {"url": "myapp://tabs"})
    wait_for_on_path(browser, ["tabs", "home"])
    lit = {(edge[0], edge[1], edge[2]) for edge in graph_picture(browser)["edges"]
           if edge[3] == "true"}
    assert lit == {("tabs", "home", "tab")}


def test_the_graph_picture_marks_guarded_routes_and_draws_their_redirects(browser):
    # Guards (`requires`, `redirect`) are route fields of the API's graphs: here the page reads
    # a demo graph with them added, as a server with guards would serve it.
    create_session(browser)
    graph_picture(browser, "demo")
    browser.execute_script("""
        const real = window.fetch;
        window.fetch = async (url, options) => {
          if (!String(url).startsWith("/v1/graphs/demo")) return real(url, options);
          const response = await real("/v1/graphs/demo", options);
          const graph = await response.json();
          graph.version = 99;
          for (const route of graph.routes) {
            if (route.name === "dashboard") {
              route.requires = { signedIn: true };
              route.redirect = "login";
            }
            if (route.name === "profile") route.requires = { role: ["member", "admin"] };
          }
          return new Response(JSON.stringify(graph),
                              { headers: { "Content-Type": "application/json" } });
        };
        graphPicture.show({ ...app.session, graphVersion: 99 });""")
    wait(browser).until(lambda d: d.find_element(*by_testid("graph-svg"))
                        .get_attribute("data-version") == "99")
    guarded = browser.execute_script(
        "return [...document.querySelectorAll('[data-guarded=\"true\"]')]"
        ".map((node) => node.dataset.route).sort()")
    assert guarded == ["dashboard", "profile"]
    assert browser.find_elements(By.CSS_SELECTOR, '[data-testid="graph-node-dashboard"] .lock')
    redirect = element(browser, "graph-edge-dashboard-login")
    assert redirect.get_attribute("data-kind") == "redirect"
    assert "redirect" in redirect.text
    kinds = attributes(browser, "graph-edge-dashboard-settings", "data-kind")
    assert kinds == ["next"]
    save_picture(browser, "graph-picture-guards.png")


def test_a_fifty_route_graph_renders_every_node_without_overlap(browser):
    # A shop: a root with sections, each with a list, items and their sheets; a tab container;
    # some routes with no `next` (they may show any route) and some linked to nothing.
    routes = [{"name": "home", "path": "/home", "root": True,
               "next": [f"section{s}" for s in range(6)] + ["account"]}]
    for s in range(6):
        routes.append({"name": f"section{s}", "path": f"/section{s}",
                       "next": [f"list{s}", f"search{s}"]})
        routes.append({"name": f"list{s}", "path": f"/list{s}",
                       "next": [f"item{s}", f"filter{s}"]})
        routes.append({"name": f"item{s}", "path": f"/item{s}/{{id}}",
                       "params": {"id": {"type": "int", "required": True}},
                       "next": [f"item{s}", "cart"]})
        routes.append({"name": f"filter{s}", "path": f"/filter{s}", "presentation": "sheet",
                       "presentations": ["sheet"], "next": []})
        routes.append({"name": f"search{s}", "path": f"/search{s}"})  # no next: any route
    routes.append({"name": "cart", "path": "/cart", "presentation": "sheet",
                   "presentations": ["sheet"], "next": ["checkout"]})
    routes.append({"name": "checkout", "path": "/checkout", "next": ["receipt"]})
    routes.append({"name": "receipt", "path": "/receipt", "next": []})
    routes.append({"name": "account", "path": "/account", "root": True,
                   "tabs": ["orders", "addresses", "payments", "preferences"]})
    for tab in ("orders", "addresses", "payments", "preferences"):
        routes.append({"name": tab, "path": f"/{tab}", "next": ["help"]})
    routes.append({"name": "help", "path": "/help", "presentation": "sheet",
                   "presentations": ["sheet"]})
    while len(routes) < 50:
        routes.append({"name": f"promo{len(routes)}", "path": f"/promo{len(routes)}"})
    assert len(routes) == 50
    with tempfile.TemporaryDirectory() as folder:
        path = pathlib.Path(folder) / "shop.json"
        path.write_text(json.dumps({"name": "shop", "root": "home", "routes": routes}))
        process, base = start_server("--graph", str(path))
        try:
            request = urllib.request.Request(
                f"{base}/v1/sessions", method="POST", headers={"Content-Type": "application/json"},
                data=json.dumps({"graph": "shop"}).encode())
            with urllib.request.urlopen(request, timeout=5) as response:
                created = json.loads(response.read())
            browser.get(base + "/")
            wait(browser).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#graph option"))
            element(browser, "open-id").send_keys(created["session"]["id"])
            element(browser, "open-token").send_keys(created["token"])
            click(browser, "open-session")
            picture = graph_picture(browser, "shop")
            assert len(picture["nodes"]) == 50
            assert set(picture["nodes"]) == {route["name"] for route in routes}
            assert picture["nodes"]["home"] == "true"
            assert picture["groups"] == {"account": ["orders", "addresses", "payments",
                                                     "preferences"]}
            boxes = node_boxes(browser)
            assert len(boxes) == 50
            assert not overlapping(boxes)
            # Readable: the boxes are drawn at a size where their names can be read.
            heights = {round(box[3] - box[1]) for box in boxes.values()}
            assert min(heights) >= 26, heights
            save_picture(browser, "graph-picture-50.png")
        finally:
            stop_server(process)


def test_screenshot_of_the_graph_picture_with_a_detail_and_a_sheet(browser):
    session_id, token = create_session(browser)
    push_detail(browser, 4)
    wait_for_path(browser, ["master", "detail"])
    click(browser, "present-sheet-settings")
    wait_for_path(browser, ["master", "detail", "settings"])
    wait_for_on_path(browser, ["master", "detail", "settings"])
    panel = element(browser, "graph-panel")
    browser.execute_script("arguments[0].scrollIntoView(); document.activeElement.blur()", panel)
    ActionChains(browser).move_to_element(browser.find_element(By.TAG_NAME, "h1")).perform()
    browser.execute_script("arguments[0].scrollIntoView()", panel)
    # As for the page's picture: `SCREENSHOT_DIR=docs Tests/browser/run -k screenshot`.
    folder = pathlib.Path(os.environ.get("SCREENSHOT_DIR") or tempfile.mkdtemp())
    folder.mkdir(parents=True, exist_ok=True)
    assert panel.screenshot(str(folder / "graph-picture.png"))


# History: the timeline, a past version viewed read only, restore (docs/history.md) ----------

def history_rows(driver):
    """The timeline as the page lists it, top first: version, by, what, and the time shown with
    the RFC 3339 time it stands for."""
    return driver.execute_script("""
        return [...document.querySelectorAll('[data-testid="history-entry"]')].map((row) => ({
          version: Number(row.dataset.version), by: row.dataset.by, op: row.dataset.op,
          what: row.querySelector('[data-testid="history-what"]').textContent,
          shown: row.querySelector('[data-testid="history-by"]').textContent,
          time: row.querySelector("time").textContent,
          at: row.querySelector("time").getAttribute("datetime"),
          live: row.classList.contains("live"), on: row.getAttribute("aria-pressed") === "true",
        }));""")


def wait_for_versions(driver, versions, seconds=SYNC):
    wait(driver, seconds).until(
        lambda d: [row["version"] for row in history_rows(d)] == versions,
        message=f"the timeline never listed {versions} (was "
                f"{[row['version'] for row in history_rows(driver)]})")


def select_version(driver, version):
    wait(driver).until(retrying(lambda d: d.find_element(
        By.CSS_SELECTOR, f'[data-testid="history-entry"][data-version="{version}"]').click()),
        message=f"could not select version {version}")


def operations_are_off(driver):
    """Nothing that changes the session can be pressed: the navigation controls, End session,
    and the path's and tree's own buttons."""
    for name in ("back", "pop", "pop-root", "dismiss", "dismiss-all", "deeplink-go",
                 "deeplink-input", "result-input", "end-session"):
        assert not element(driver, name).is_enabled(), f"{name} is enabled in the past"
    buttons = driver.find_elements(By.CSS_SELECTOR, "#routes button, #tabs button")
    assert buttons and not [button for button in buttons if button.is_enabled()]
    assert not driver.find_elements(By.CSS_SELECTOR,
                                    '#path button, #tree button, [data-testid^="teardown-"]')


def test_the_history_lists_each_version_and_restores_a_past_one(browser):
    session_id, token = create_session(browser)
    wait_for_versions(browser, [1])
    assert element(browser, "download-recording").is_enabled()
    call("POST", f"/v1/sessions/{session_id}/push", token, {"route": "detail", "params": {"id": 1}})
    call("POST", f"/v1/sessions/{session_id}/present", token,
         {"route": "settings", "style": "sheet"})
    call("PUT", f"/v1/sessions/{session_id}/context", BACKEND_KEY, {"plan": "pro"})
    call("POST", f"/v1/sessions/{session_id}/back", token, {})
    call("POST", f"/v1/sessions/{session_id}/deeplink", token, {"url": "myapp://tabs"})
    wait_for_path(browser, ["tabs", "home"], SYNC)
    wait_for_versions(browser, [6, 5, 4, 3, 2, 1])

    # Each row says who did what, and when (in the browser's local time).
    history = call("GET", f"/v1/sessions/{session_id}/history", token)["entries"]
    rows = history_rows(browser)
    assert [(row["by"], row["shown"]) for row in rows] == [
        ("client", "client"), ("client", "client"), ("backend", "backend"),
        ("client", "client"), ("client", "client"), ("client", "client")]
    whats = [row["what"] for row in rows]
    assert whats[5] == "create"
    assert whats[4] == "push detail {id: 1}"
    assert whats[3] == "sheet settings"
    assert whats[2] == "context set"
    assert whats[1] == "back"
    assert whats[0] == "deep link myapp://tabs"
    assert [row["op"] for row in rows] == [entry["op"]["op"] for entry in reversed(history)]
    assert [row["at"] for row in rows] == [entry["at"] for entry in reversed(history)]
    local = browser.execute_script(
        "return arguments[0].map((at) => new Date(at).toLocaleTimeString([], {hour12: false}))",
        [row["at"] for row in rows])
    assert [row["time"] for row in rows] == local
    assert [row["live"] for row in rows] == [True] + [False] * 5
    assert not element(browser, "past-banner").is_displayed()

    # Version 2, read only, then back to live.
    select_version(browser, 2)
    wait_for_text(browser, "past-banner", "Viewing version 2 (read-only)")
    wait_for_path(browser, ["master", "detail"])
    operations_are_off(browser)
    assert [row["on"] for row in history_rows(browser)] == [False] * 4 + [True, False]
    click(browser, "back-to-live")
    wait(browser).until(lambda d: not element(d, "past-banner").is_displayed(),
                        message="the banner stayed")
    wait_for_path(browser, ["tabs", "home"])
    wait(browser).until(lambda d: element(d, "deeplink-go").is_enabled())

    # Version 3: the path and tree as they were then, whatever happens live meanwhile.
    select_version(browser, 3)
    wait_for_text(browser, "past-banner", "Viewing version 3 (read-only)")
    at3 = call("GET", f"/v1/sessions/{session_id}?at=3", token)
    routes = [item["route"] for item in at3["path"]]
    assert routes == ["master", "detail", "settings"]
    wait_for_path(browser, routes)
    assert attributes(browser, "path-card", "data-id") == [item["id"] for item in at3["path"]]
    assert attributes(browser, "tree-node", "data-route") == ["master", "detail", "settings"]
    assert element(browser, "path").get_attribute("data-past") == "true"
    operations_are_off(browser)
    call("POST", f"/v1/sessions/{session_id}/select-tab", token, {"tab": "search"})
    wait_for_versions(browser, [7, 6, 5, 4, 3, 2, 1])
    wait_for_text(browser, "past-banner", "live is version 7")
    assert path_routes(browser) == routes
    operations_are_off(browser)
    assert [item["route"] for item in state(session_id, token)["path"]] == ["tabs", "search"]

    # Restore it: live again, on version 3's path, and the timeline says so.
    assert element(browser, "restore-version").is_enabled()
    click(browser, "restore-version")
    wait(browser).until(lambda d: not element(d, "past-banner").is_displayed(),
                        message="still viewing the past after the restore")
    wait_for_path(browser, routes)
    live = state(session_id, token)
    assert [item["route"] for item in live["path"]] == routes
    assert live["version"] == 8
    wait_for_versions(browser, [8, 7, 6, 5, 4, 3, 2, 1])
    top = history_rows(browser)[0]
    assert (top["op"], top["what"], top["by"], top["live"]) == ("restore", "restore v3", "client",
                                                                True)
    assert element(browser, "path").get_attribute("data-past") == "false"
    wait(browser).until(lambda d: element(d, "back").is_enabled() and
                        element(d, "end-session").is_enabled())
    wait_for_text(browser, "event-log", "session.restored")
    # The timeline read the whole history once, then only what was new: ?after= the newest
    # version it held.
    afters = [int(url.split("?after=", 1)[1].split("&")[0]) for url, _ in sent_requests(browser)
              if f"/{session_id}/history?" in url]
    assert afters[0] == 0 and afters.count(0) == 1
    assert afters == sorted(afters) and afters[-1] >= 7


def test_a_restore_a_leave_guard_blocks_asks_before_discarding(browser):
    session_id, token = create_session(browser)
    push_detail(browser, 1)
    wait_for_path(browser, ["master", "detail"])
    push_detail(browser, 2)
    wait_for_path(browser, ["master", "detail", "detail"])
    active = attributes(browser, "path-card", "data-id")[-1]
    call("PUT", f"/v1/sessions/{session_id}/coordinators/{active}/leave-guard", token,
         {"reason": "Unsaved draft"})
    wait_for_versions(browser, [4, 3, 2, 1])
    assert history_rows(browser)[0]["what"] == f"leave guard on {active}: Unsaved draft"
    select_version(browser, 2)
    wait_for_path(browser, ["master", "detail"])
    click(browser, "restore-version")
    confirm = alert_of(browser)
    assert confirm.text == f"Discard unsaved changes in {active}: Unsaved draft?"
    confirm.dismiss()
    # No: nothing changes, and the page still shows version 2.
    wait_for_text(browser, "problem-code", "leave_blocked")
    assert element(browser, "past-banner").is_displayed()
    assert state(session_id, token)["version"] == 4
    click(browser, "restore-version")
    alert_of(browser).accept()
    wait(browser).until(lambda d: not element(d, "past-banner").is_displayed(),
                        message="still viewing the past after the restore")
    wait_for_path(browser, ["master", "detail"])
    assert [item["route"] for item in state(session_id, token)["path"]] == ["master", "detail"]
    wait_for_versions(browser, [5, 4, 3, 2, 1])
    assert history_rows(browser)[0]["what"] == "restore v2 (discard)"
    # The retry, and only the retry, said discard.
    sent = []
    for entry in browser.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            request = message["params"]["request"]
            if request["url"].endswith("/restore"):
                sent.append(json.loads(request.get("postData") or "{}"))
    assert sent == [{"version": 2}, {"version": 2}, {"version": 2, "discard": True}]


# Shares, presence and handoff codes (the share link, its QR code, the follow view) -----------

def create_share(driver, label, mode="follow", code=False):
    """Makes a share in the Share panel; returns (share id, link, handoff code or None)."""
    type_into(driver, "share-label", label)
    Select(element(driver, "share-mode")).select_by_value(mode)
    if element(driver, "share-with-code").is_selected() != code:
        click(driver, "share-with-code")
    click(driver, "share-create")
    wait(driver).until(lambda d: element(d, "share-new").is_displayed(),
                       message="the new share's link never showed")
    link = text_of(driver, "share-link")
    codes = attributes(driver, "share-code", "data-code")
    wait(driver, SYNC).until(lambda d: label in element(d, "shares").text,
                             message=f"{label} never showed among the live shares")
    rows = driver.execute_script("""
        return [...document.querySelectorAll('[data-testid="share-row"]')].map((row) => ({
          id: row.dataset.id, mode: row.dataset.mode,
          label: row.querySelector(".label").textContent }));""")
    share_id = next(row["id"] for row in rows if row["label"] == label)
    assert [row["mode"] for row in rows if row["id"] == share_id] == [mode]
    return share_id, link, codes[0] if codes else None


def share_token(link, session_id):
    """The token in a share link: the page's own address, the share in its fragment."""
    prefix = f"{BASE}/#share={session_id}."
    assert link.startswith(prefix), link
    token = link[len(prefix):]
    assert len(token) == 43 and all(c.isalnum() or c in "-_" for c in token), token
    return token


def stream_requests(driver):
    return [(url, headers) for url, headers in sent_requests(driver)
            if url.endswith("/events/stream")]


def nothing_changes_the_session(driver):
    """A follow view: no control that would change the session is shown."""
    for name in ("share-panel", "end-session", "restore-version", "deeplink-go", "back"):
        assert not element(driver, name).is_displayed(), f"{name} is shown to a follower"
    assert not driver.find_elements(By.CSS_SELECTOR, "#path button, #tree button")
    # Only the history's rows (a version is viewed, read only) are buttons there.
    shown = [button.text for button in driver.find_elements(
        By.CSS_SELECTOR, 'main button:not([data-testid="history-entry"])') if button.is_displayed()]
    assert not shown, shown


def test_a_follow_share_shows_the_path_live_until_it_is_revoked(browser, second_browser):
    session_id, token = create_session(browser)
    push_detail(browser, 4)
    wait_for_path(browser, ["master", "detail"])
    wait_for_text(browser, "presence", "No one else is watching")
    share_id, link, code = create_share(browser, "Support: Ana")
    assert code is None
    follower_token = share_token(link, session_id)

    # The follower: a second Chromium (its own profile, so no sessionStorage in common).
    second_browser.get(link)
    wait_for_text(second_browser, "share-banner", "Viewing shared session (follow, read-only)")
    wait_for_path(second_browser, ["master", "detail"])
    wait(second_browser).until(lambda d: element(d, "live-status").text == "live",
                               message="the follow view never went live")
    assert text_of(second_browser, "session-id") == session_id
    nothing_changes_the_session(second_browser)
    # The token came in the fragment, which no request carries, and left the address bar.
    assert "#share=" not in second_browser.current_url
    requests = sent_requests(second_browser)
    assert not [url for url, _ in requests if follower_token in url]
    streams = [headers for url, headers in requests if url.endswith("/events/stream")]
    assert streams and all(headers.get("Authorization") == f"Bearer {follower_token}"
                           for headers in streams)

    # A change made elsewhere shows up in the follow view.
    call("POST", f"/v1/sessions/{session_id}/present", token,
         {"route": "settings", "style": "sheet"})
    wait_for_path(second_browser, ["master", "detail", "settings"], SYNC)
    wait_for_path(browser, ["master", "detail", "settings"], SYNC)
    nothing_changes_the_session(second_browser)

    # The owner sees who is watching, by the share's label and mode.
    wait_for_text(browser, "presence", "Watching now: Support: Ana (follow)", SYNC)
    wait(browser, SYNC).until(
        lambda d: attributes(d, "share-row", "data-watching") == ["1"],
        message="the share's row never counted its watcher")

    # Revoked from the owner's page: the follow view ends, and says so.
    click(browser, f"revoke-share-{share_id}")
    wait_for_text(second_browser, "share-banner", "This share has ended", SYNC)
    wait(second_browser).until(lambda d: element(d, "live-status").text == "ended",
                               message="the follow view did not stop")
    wait_for_path(second_browser, [])
    assert "This share has ended" in element(second_browser, "path").text
    wait(browser, SYNC).until(lambda d: not d.find_elements(*by_testid("share-row")),
                              message="the revoked share stayed in the owner's list")
    assert not element(browser, "share-new").is_displayed()
    wait_for_text(browser, "presence", "No one else is watching", SYNC)
    # ...and does not try again: no new stream in the next seconds.
    stream_requests(second_browser)  # the log so far
    time.sleep(3)
    assert not stream_requests(second_browser), "the ended follow view reconnected"
    try:
        state(session_id, follower_token)
        raise AssertionError("a revoked share still reads the session")
    except urllib.error.HTTPError as error:
        assert error.code == 404
    # Opened again, the link says it has ended rather than failing quietly.
    second_browser.get(link)
    wait_for_text(second_browser, "share-banner", "This share has ended")
    # The owner's session goes on.
    assert [item["route"] for item in state(session_id, token)["path"]] == [
        "master", "detail", "settings"]


def qr_modules(driver, text, ecl="M"):
    """The page's own encoder (qr.js): version, mask and the modules as rows of 0 and 1."""
    return driver.execute_script("""
        const code = qrCode.encode(arguments[0], { ecl: arguments[1] });
        return { version: code.version, size: code.size, mask: code.mask, ecl: code.ecl,
                 rows: code.modules.map((row) => row.map((dark) => dark ? "1" : "0").join("")) };
        """, text, ecl)


def decode_modules(rows, scale=3, quiet=4):
    """Decodes a QR code given as rows of modules with zxing-cpp, a decoder of its own."""
    side = (len(rows) + 2 * quiet) * scale
    pixels = bytearray(b"\xff" * side * side)
    for y, row in enumerate(rows):
        for x, module in enumerate(row):
            if module == "1":
                for dy in range(scale):
                    start = ((y + quiet) * scale + dy) * side + (x + quiet) * scale
                    pixels[start:start + scale] = b"\x00" * scale
    image = memoryview(pixels).cast("B", (side, side))
    return zxingcpp.read_barcodes(image, formats=zxingcpp.BarcodeFormat.QRCode)


FINDER = ["1111111", "1000001", "1011101", "1011101", "1011101", "1000001", "1111111"]


def test_the_share_links_qr_code_is_drawn_to_size_and_scans(browser):
    session_id, _ = create_session(browser)
    _, link, _ = create_share(browser, "iPad", "drive")
    picture = element(browser, "share-qr")
    version = int(picture.get_attribute("data-version"))
    size = int(picture.get_attribute("data-size"))
    # A link of ~100 characters: version 6 or 7 at level M, 4 modules for each version step.
    assert 5 <= version <= 10 and size == 17 + 4 * version
    assert picture.get_attribute("data-ecl") == "M"
    side = size + 8  # four light modules of quiet zone around
    assert picture.get_dom_attribute("viewBox") == f"0 0 {side} {side}"
    width, height = picture.rect["width"], picture.rect["height"]
    assert width == height and width / side >= 3, "modules too small to scan from a screen"

    # What is drawn is the encoder's matrix: its finder patterns in three corners, timing
    # patterns, and one unit square per dark module.
    code = qr_modules(browser, link)
    assert (code["version"], code["size"]) == (version, size)
    rows = code["rows"]
    corner = lambda x, y: [row[x:x + 7] for row in rows[y:y + 7]]
    assert corner(0, 0) == corner(size - 7, 0) == corner(0, size - 7) == FINDER
    assert corner(size - 7, size - 7) != FINDER
    timing = "".join("1" if i % 2 == 0 else "0" for i in range(8, size - 8))
    assert rows[6][8:size - 8] == timing
    assert "".join(row[6] for row in rows[8:size - 8]) == timing
    path = picture.find_element(By.TAG_NAME, "path").get_attribute("d")
    assert path.count("M") == sum(row.count("1") for row in rows)

    # And it scans: the picture on the screen, read by zxing-cpp, is the link.
    shot = Image.open(io.BytesIO(picture.screenshot_as_png)).convert("L")
    found = zxingcpp.read_barcodes(shot, formats=zxingcpp.BarcodeFormat.QRCode)
    assert [barcode.text for barcode in found] == [link]
    assert found[0].ec_level == "M"
    assert share_token(link, session_id)


def test_the_qr_encoder_fills_each_version_as_the_standard_says(browser):
    load(browser)
    # Byte-mode capacities (ISO/IEC 18004 table 7): the most bytes a version holds.
    capacities = {"L": {1: 17, 2: 32, 5: 106, 7: 154, 10: 271, 40: 2953},
                  "M": {1: 14, 2: 26, 5: 84, 7: 122, 10: 213, 40: 2331}}
    alphabet = "https://navstate.example/#share=ABCxyz-_0123456789."
    for ecl, table in capacities.items():
        for version, capacity in table.items():
            text = "".join(alphabet[(i * 7) % len(alphabet)] for i in range(capacity))
            code = qr_modules(browser, text, ecl)
            assert (code["version"], code["ecl"]) == (version, ecl), (ecl, capacity)
            found = decode_modules(code["rows"])
            assert [barcode.text for barcode in found] == [text], (ecl, version)
            assert found[0].ec_level == ecl
            assert found[0].extra["Version"] == str(version)
            assert found[0].extra["DataMask"] == code["mask"]
            if version < 40:
                assert qr_modules(browser, text + "x", ecl)["version"] == version + 1
    # Not ASCII: the text goes as UTF-8 bytes.
    found = decode_modules(qr_modules(browser, "Grüße, Ана 👋")["rows"])
    assert [barcode.text for barcode in found] == ["Grüße, Ана 👋"]


def test_a_handoff_code_opens_the_session_on_another_device(browser, second_browser):
    session_id, token = create_session(browser)
    wait_for_path(browser, ["master"])
    _, link, code = create_share(browser, "iPad", "drive", code=True)
    assert code and len(code) == 10
    assert set(code) <= set("23456789ABCDEFGHJKMNPQRSTUVWXYZ")
    # Shown in two groups, as a person reads it out; typed that way, or in lower case, it works.
    shown = text_of(browser, "share-code")
    assert shown.replace("-", "") == code

    load(second_browser)
    type_into(second_browser, "redeem-code", shown.lower())
    click(second_browser, "redeem-code-go")
    wait_for_text(second_browser, "share-banner", "Viewing shared session (drive)")
    wait_for_path(second_browser, ["master"])
    wait(second_browser).until(lambda d: element(d, "live-status").text == "live",
                               message="the redeemed session never went live")
    assert text_of(second_browser, "session-id") == session_id
    # A drive share navigates as the owner does, but neither shares nor ends the session.
    assert not element(second_browser, "share-panel").is_displayed()
    assert not element(second_browser, "end-session").is_displayed()
    push_detail(second_browser, 7)
    wait_for_path(second_browser, ["master", "detail"])
    wait_for_path(browser, ["master", "detail"], SYNC)
    assert [item["route"] for item in state(session_id, token)["path"]] == ["master", "detail"]
    wait_for_text(browser, "presence", "Watching now: iPad (drive)", SYNC)
    # The token it got is the share's, the one the link holds too; nothing went into a URL.
    redeemed = second_browser.execute_script("return app.token")
    assert redeemed == share_token(link, session_id)
    assert not [url for url, _ in sent_requests(second_browser) if redeemed in url]

    # Single use: the same code again is refused, and said so.
    type_into(second_browser, "redeem-code", code)
    click(second_browser, "redeem-code-go")
    wait_for_text(second_browser, "problem-code", "unknown_code")
    assert "404" in element(second_browser, "problem-code").text
    assert text_of(second_browser, "session-id") == session_id  # still the session it had
