"""The thin web client in a real browser: create, navigate with the buttons, stay in step."""
import os
import pathlib

from conftest import BASE, call
from selenium.common.exceptions import (ElementNotInteractableException, NoSuchElementException,
                                        StaleElementReferenceException)
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

WAIT = 10


def by_testid(name):
    return (By.CSS_SELECTOR, f'[data-testid="{name}"]')


def retrying(action):
    """Runs `action` until it works: the page re-renders when events arrive."""
    def attempt(driver):
        try:
            action(driver)
            return True
        except (StaleElementReferenceException, NoSuchElementException,
                ElementNotInteractableException):
            return False
    return attempt


def click(driver, name):
    WebDriverWait(driver, WAIT).until(retrying(lambda d: d.find_element(*by_testid(name)).click()),
                                      message=f"could not click {name}")


def attributes(driver, name, attribute):
    """`attribute` of every element called `name`, read again if a re-render intervenes."""
    for _ in range(50):
        try:
            return [element.get_attribute(attribute)
                    for element in driver.find_elements(*by_testid(name))]
        except StaleElementReferenceException:
            continue
    raise AssertionError(f"{name} kept changing")


def path_routes(driver):
    return attributes(driver, "path-card", "data-route")


def wait_for_path(driver, routes):
    WebDriverWait(driver, WAIT).until(lambda d: path_routes(d) == routes,
                                      message=f"path never became {routes}")


def create_session(driver):
    driver.get(BASE + "/")
    WebDriverWait(driver, WAIT).until(
        lambda d: d.find_elements(By.CSS_SELECTOR, '#graph option'))
    click(driver, "create-session")
    wait_for_path(driver, ["master"])
    session_id = driver.find_element(*by_testid("session-id")).text
    token = driver.find_element(*by_testid("session-token")).text
    return session_id, token


def push_detail(driver, identifier):
    def fill(d):
        field = d.find_element(*by_testid("param-detail-id"))
        field.clear()
        field.send_keys(str(identifier))
    WebDriverWait(driver, WAIT).until(retrying(fill), message="could not type the detail id")
    click(driver, "push-detail")


def test_create_push_and_present_with_the_buttons(browser):
    session_id, token = create_session(browser)
    assert len(token) == 43
    push_detail(browser, 4)
    wait_for_path(browser, ["master", "detail"])
    click(browser, "present-sheet-settings")
    wait_for_path(browser, ["master", "detail", "settings"])
    assert attributes(browser, "path-card", "data-presentation") == ["root", "push", "sheet"]
    assert attributes(browser, "tree-node", "data-route") == ["master", "detail", "settings"]
    state = call("GET", f"/v1/sessions/{session_id}", token)
    assert [item["route"] for item in state["path"]] == ["master", "detail", "settings"]
    click(browser, "back")
    wait_for_path(browser, ["master", "detail"])


def test_a_refusal_is_shown_as_a_problem(browser):
    create_session(browser)
    click(browser, "back")
    WebDriverWait(browser, WAIT).until(
        lambda d: d.find_element(*by_testid("problem")).is_displayed())
    assert "nothing_to_go_back_to" in browser.find_element(*by_testid("problem")).text


def test_a_second_window_follows_changes_from_the_first_and_from_curl(browser, second_browser):
    session_id, token = create_session(browser)
    second_browser.get(BASE + "/")
    WebDriverWait(second_browser, WAIT).until(
        lambda d: d.find_elements(By.CSS_SELECTOR, '#graph option'))
    second_browser.find_element(*by_testid("open-id")).send_keys(session_id)
    second_browser.find_element(*by_testid("open-token")).send_keys(token)
    click(second_browser, "open-session")
    wait_for_path(second_browser, ["master"])

    push_detail(browser, 9)
    wait_for_path(second_browser, ["master", "detail"])

    call("POST", f"/v1/sessions/{session_id}/present", token,
         {"route": "settings", "style": "sheet"})
    wait_for_path(second_browser, ["master", "detail", "settings"])
    wait_for_path(browser, ["master", "detail", "settings"])
    log = second_browser.find_element(*by_testid("event-log")).text
    assert "coordinator.started" in log


def test_screenshot_with_a_four_deep_path_and_a_sheet(browser):
    session_id, token = create_session(browser)
    for identifier in (1, 2, 3):
        push_detail(browser, identifier)
        wait_for_path(browser, ["master"] + ["detail"] * identifier)
    click(browser, "present-sheet-settings")
    wait_for_path(browser, ["master", "detail", "detail", "detail", "settings"])
    folder = pathlib.Path(os.environ.get("SCREENSHOT_DIR", "docs"))
    folder.mkdir(exist_ok=True)
    assert browser.save_screenshot(str(folder / "web-client.png"))
