"""A scenario through the Python client that openapi-generator (its `python` generator, default
settings: package `openapi_client`) makes from openapi.yaml: pop to a coordinator and to the root
(the bodies must carry only what was asked: no `count` beside `to` or `toRoot`), int params read
back as ints (42, and 9007199254740993 exactly), typed 409, 412 and 422 refusals, a minimal answer
(`Prefer: return=minimal`), 201 and 204, the event stream's head and first event, a backend
merge patch of a context, and the typed round trip of a graph: GET `demo` and `zumry`, send each
back unedited but for its name (a scratch one) with PUT, GET the copy and check that it means the
same graph (contract_check.graph_meaning), and a dry run decoded as the typed MigrationReport.

Every request and answer is recorded under the generated code (at urllib3) and validated with
openapi-core (contract_check.py). Run by Tests/generated-clients/run; exits 1 on a failure."""
import json
import os
import sys

import contract_check
from contract_check import Exchange
from openapi_client import ApiClient, Configuration
from openapi_client.api.events_api import EventsApi
from openapi_client.api.graphs_api import GraphsApi
from openapi_client.api.navigation_api import NavigationApi
from openapi_client.api.sessions_api import SessionsApi
from openapi_client.exceptions import ApiException
from openapi_client.models import (CoordinatorStartedEvent, CreateSessionRequest, Graph,
                                   GraphInput, MigrationReport, MutationResult, PopRequest,
                                   PresentRequest, Problem, PushRequest, RouteRequest, SessionState)

url = os.environ["NAVSTATE_URL"]
spec = os.environ["NAVSTATE_SPEC"]
failures = []
exchanges = []


def check(condition, what):
    print(("ok   " if condition else "FAIL ") + what)
    if not condition:
        failures.append(what)


class Recording:
    """urllib3's pool, recording each request and its answer (an event stream's body is left for
    the scenario to read, and recorded as far as it was read)."""

    def __init__(self, pool):
        self.pool = pool

    def request(self, method, target, body=None, headers=None, **options):
        answer = self.pool.request(method, target, body=body, headers=headers, **options)
        exchange = Exchange(
            method, target, list((headers or {}).items()),
            body.encode() if isinstance(body, str) else body, answer.status,
            list(answer.headers.items()))
        if not answer.headers.get("Content-Type", "").startswith("text/event-stream"):
            exchange.response_body = answer.data  # read now; urllib3 keeps it for the client
        exchanges.append(exchange)
        return answer


def client(token=None):
    made = ApiClient(Configuration(host=url, access_token=token))
    made.rest_client.pool_manager = Recording(made.rest_client.pool_manager)
    return made


def refusal(call):
    """The ApiException a call raises, or None."""
    try:
        call()
    except ApiException as error:
        return error
    return None


def sent_body():
    return json.loads(exchanges[-1].request_body)


created = SessionsApi(client()).create_session(CreateSessionRequest(root=RouteRequest(route="master")))
check(exchanges[-1].status == 201 and exchanges[-1].header("Location") ==
      f"/v1/sessions/{created.session.id}", "creation is a 201 with Location")
check(isinstance(created.session, SessionState) and created.session.path[0].route == "master",
      "creation answers the typed state")
sid, token = created.session.id, created.token
authorized = client(token)
navigation, events = NavigationApi(authorized), EventsApi(authorized)
sessions = SessionsApi(authorized)

# Int params: 42 is an int (not a bool, not a float), and one beyond 2^53 is exact.
pushed = navigation.push(sid, if_match='"1"',
                         push_request=PushRequest(route="detail", params={"id": 42}))
# (singleTop: false is the schema's default, which this generator sends; it changes nothing.)
check(sent_body() == {"route": "detail", "params": {"id": 42}, "singleTop": False},
      f"push sends the route, the int param and singleTop's default (sent {sent_body()})")
check(isinstance(pushed, MutationResult) and pushed.version == 2, "push answers a MutationResult")
value = pushed.session.path[-1].params["id"]
check(type(value) is int and value == 42, f"params {{id: 42}} read back as the int 42 (got {value!r})")
started = pushed.events[0].actual_instance
check(isinstance(started, CoordinatorStartedEvent) and type(started.params["id"]) is int
      and started.params["id"] == 42, "the event is the typed coordinator.started, its param an int")
big = 9_007_199_254_740_993
pushed = navigation.push(sid, push_request=PushRequest(route="detail", params={"id": big}))
value = pushed.session.path[-1].params["id"]
check(type(value) is int and value == big, f"{big} comes back exactly (got {value!r})")
state = sessions.get_session(sid)
check(state.path[-1].params["id"] == big and state.path[1].params["id"] == 42,
      "GET reads both ints exactly")

# pop {to}: the body is exactly {"to": ...}; a `count` beside it would be 422.
first = pushed.session.path[1].id
navigation.push(sid, push_request=PushRequest(route="detail", params={"id": 3}))
popped = navigation.pop(sid, pop_request=PopRequest(to=first))
check(sent_body() == {"to": first}, f"pop {{to}} sends only 'to' (sent {sent_body()})")
check([item.id for item in popped.session.path] == ["c1", first], "pop {to} pops down to it")

# pop {toRoot}: likewise.
top = navigation.push(sid, push_request=PushRequest(route="detail", params={"id": 4})).session.active
popped = navigation.pop(sid, pop_request=PopRequest(to_root=True))
check(sent_body() == {"toRoot": True}, f"pop {{toRoot}} sends only 'toRoot' (sent {sent_body()})")
check([item.route for item in popped.session.path] == ["master"], "pop {toRoot} leaves the root")
stopped = [(event.actual_instance.type, event.actual_instance.coordinator) for event in popped.events]
check(stopped == [("coordinator.stopped", top), ("coordinator.stopped", first)],
      f"pop {{toRoot}} stops both pushes, the top first ({stopped})")

# Typed refusals: 409, 412 (with the current version), 422.
error = refusal(lambda: navigation.pop(sid, pop_request=PopRequest()))
check(error is not None and error.status == 409 and isinstance(error.data, Problem)
      and error.data.code == "nothing_to_pop", "pop at the root is a typed 409 nothing_to_pop")
current = popped.version
error = refusal(lambda: navigation.present(sid, if_match='"1"',
                                           present_request=PresentRequest(route="settings")))
check(error is not None and error.status == 412 and isinstance(error.data, Problem)
      and error.data.code == "version_mismatch" and error.data.version == current,
      f"a stale If-Match is a typed 412 with the current version {current}")
error = refusal(lambda: navigation.push(sid, push_request=PushRequest(route="nowhere")))
check(error is not None and error.status == 422 and isinstance(error.data, Problem)
      and error.data.code == "unknown_route", "an unknown route is a typed 422 unknown_route")
error = refusal(lambda: navigation.push(
    sid, push_request=PushRequest(route="detail", params={"id": 1.5})))
check(error is not None and error.status == 422 and error.data.code == "invalid_params",
      "a fractional int param is a typed 422 invalid_params")

# The minimal answer: the same MutationResult, without the state.
minimal = navigation.push_with_http_info(
    sid, prefer="return=minimal", push_request=PushRequest(route="detail", params={"id": 7}))
check(minimal.headers.get("Preference-Applied") == "return=minimal"
      and isinstance(minimal.data, MutationResult) and minimal.data.session is None
      and minimal.data.version == current + 1 and len(minimal.data.events) == 1,
      "Prefer: return=minimal answers {version, events}")
check(minimal.data.events[0].actual_instance.params == {"id": 7}, "its event carries the int param")

# 204: tearing down a coordinator that already stopped changes nothing.
gone = pushed.session.path[-1].id  # the big one, popped with the root pop
answer = navigation.teardown_coordinator_with_http_info(sid, gone)
check(answer.status_code == 204 and answer.data is None, "tearing down a stopped coordinator is 204")

# The event stream: its head, the reset that starts it, then a live event.
stream = events.stream_events_without_preload_content(sid)
streamed = exchanges[-1]
check(stream.status == 200 and stream.headers.get("Content-Type", "").startswith("text/event-stream")
      and stream.headers.get("Cache-Control") == "no-store", "the event stream's head")
chunks = stream.stream(1024, decode_content=False)
read = b""


def read_until(marker):
    global read
    while not (marker in read and read.endswith(b"\n\n")):
        read += next(chunks)


read_until(b"event: reset")
navigation.back(sid)
read_until(b"event: coordinator.stopped")
stream.release_conn()
streamed.response_body = read
fields = contract_check.sse_events(read.decode())
check(read.startswith(b"retry: ") and fields[0]["event"] == "reset"
      and json.loads(fields[0]["data"])["version"] == current + 1,
      "the stream starts with retry and a reset carrying the state")
check([event.get("event") for event in fields[1:]] == ["coordinator.stopped"]
      and json.loads(fields[1]["data"])["version"] == current + 2, "then the back's event, live")

sessions.delete_session(sid)
check(exchanges[-1].status == 204, "ending the session is 204")
error = refusal(lambda: sessions.get_session(sid))
check(error is not None and error.status in (404, 410) and isinstance(error.data, Problem),
      "an ended session is refused with a typed problem")

# The backend: a context at creation, then a merge patch (application/merge-patch+json) that
# removes one key and sets another; the pending dashboard opens.
backend = client(os.environ["NAVSTATE_BACKEND_KEY"])
guarded = SessionsApi(backend).create_session(CreateSessionRequest(
    graph="zumry", context={"authenticated": False, "plan": "free"}))
check(guarded.session.pending is not None and guarded.session.path[0].route == "login",
      "a zumry session signed out waits at login")
patched = SessionsApi(backend).patch_context(guarded.session.id,
                                             {"authenticated": True, "plan": None})
sent_type = {k.lower(): v for k, v in exchanges[-1].request_headers}.get("content-type")
check(sent_type == "application/merge-patch+json"
      and sent_body() == {"authenticated": True, "plan": None},
      f"the patch is sent as {sent_type}, its null kept ({sent_body()})")
check(patched.session.context == {"authenticated": True}
      and patched.session.path[0].route == "dashboard",
      "PATCH context removes a key, sets one, and the dashboard opens")
SessionsApi(backend).delete_session(guarded.session.id)

# Typed graph round trips: GET, PUT back unedited under a scratch name, GET the copy.
graphs, loading = GraphsApi(client()), GraphsApi(backend)
for name in ("demo", "zumry"):
    copy = f"{name}_gen"
    original = graphs.get_graph(name)
    served = exchanges[-1].json
    check(isinstance(original, Graph) and original.name == name, f"GET {name} is the typed Graph")
    body = GraphInput.from_dict(original.to_dict())
    body.name = copy
    error = refusal(lambda: loading.load_graph(copy, body))
    sent = json.loads(exchanges[-1].request_body)
    check(error is None and exchanges[-1].status == 201,
          f"PUT {copy} of the typed GET answer is a 201 Graph"
          + ("" if error is None else f" (got {error.status}: {error.body[:300]})"))
    got = graphs.get_graph(copy) if error is None else None
    if got is not None:
        before = contract_check.graph_meaning(served)
        for what, document in (("the body sent", sent), ("GET of the copy", exchanges[-1].json),
                               ("the typed reading of the copy", got.to_dict())):
            after = contract_check.graph_meaning(document)
            check(before == after, f"{name}: {what} means what GET {name} meant"
                  + ("" if before == after else ": " + contract_check.meaning_differences(before, after)))

# A dry run: demo at version 2, nothing changed, so every session behind stays as it is; nothing
# is loaded. The same version again is a typed 409.
alive = SessionsApi(client()).create_session(CreateSessionRequest(graph="demo"))
body = GraphInput.from_dict(graphs.get_graph("demo").to_dict())
body.version = 2
report = loading.dry_run_graph("demo", body)
check(isinstance(report, MigrationReport) and report.sessions >= 1
      and report.unchanged == report.sessions and report.migrated == 0 and report.restarted == 0
      and report.stopped == {}, f"a dry run of demo 2 is the typed MigrationReport ({report})")
check(graphs.get_graph("demo").version == 1, "the dry run loaded nothing")
body.version = 1
error = refusal(lambda: loading.dry_run_graph("demo", body))
check(error is not None and error.status == 409 and isinstance(error.data, Problem)
      and error.data.code == "graph_version_exists", "a dry run of a loaded version is a typed 409")
SessionsApi(client(alive.token)).delete_session(alive.session.id)

check(contract_check.report(spec, exchanges, (200, 201, 204, 409, 412, 422),
                            label="openapi-generator python client", stream=True) == 0,
      "openapi-core: every request and answer conforms to openapi.yaml")
print(f"{len(failures)} failed" if failures else "openapi-generator python client scenario: all passed")
sys.exit(1 if failures else 0)
