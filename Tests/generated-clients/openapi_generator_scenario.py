"""A scenario through the Python client that openapi-generator (its `python` generator, default
settings: package `openapi_client`) makes from openapi.yaml: pop to a coordinator and to the root
(the bodies must carry only what was asked: no `count` beside `to` or `toRoot`), int params read
back as ints (42, and 9007199254740993 exactly), typed 409, 412 and 422 refusals, a minimal answer
(`Prefer: return=minimal`), 201 and 204, the event stream's head and first event, a backend
merge patch of a context, and the typed round trip of a graph: GET `demo` and `zumry`, send each
back unedited but for its name (a scratch one) with PUT, GET the copy and check that it means the
same graph (contract_check.graph_meaning), a dry run decoded as the typed MigrationReport, and
history and time travel: the typed History (versions, ops, by) inside getHistory's oneOf answer, a
page of it, the breadcrumbs (the oneOf's list member), the state at an older version (`at`) and a
restore of it (its session.restored event).

Every request and answer is recorded under the generated code (at urllib3) and validated with
openapi-core (contract_check.py). Run by Tests/generated-clients/run; exits 1 on a failure."""
import datetime
import json
import os
import sys

import contract_check
from contract_check import Exchange
from openapi_client import ApiClient, Configuration
from openapi_client.api.events_api import EventsApi
from openapi_client.api.graphs_api import GraphsApi
from openapi_client.api.history_api import HistoryApi
from openapi_client.api.navigation_api import NavigationApi
from openapi_client.api.sessions_api import SessionsApi
from openapi_client.exceptions import ApiException
from openapi_client.models import (Breadcrumb, CoordinatorStartedEvent, CoordinatorStoppedEvent,
                                   CreateSessionRequest, GetHistory200Response, Graph, GraphInput,
                                   History, MigrationReport, MutationResult, PopRequest,
                                   PresentRequest, Problem, PushRequest, RestoreRequest,
                                   RouteRequest, SessionRestoredEvent, SessionState)

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

# History and time travel, on a session of its own: three pushes (the last by the backend), the
# history (GetHistory200Response, the answer's oneOf, holding the typed History: each entry's
# version, op and by), a page of it (after, limit), the breadcrumbs (the oneOf's other member, a
# list of the typed Breadcrumb), the state at version 2 (`at`), a restore of that version (a
# MutationResult whose events end in the typed session.restored {from}), the restore's own entry,
# and a version not reached (a typed 400).
travel = SessionsApi(client()).create_session(CreateSessionRequest(root=RouteRequest(route="master")))
tsid = travel.session.id
traveller = client(travel.token)
history_api, travel_sessions = HistoryApi(traveller), SessionsApi(traveller)
pushes = [NavigationApi(traveller).push(tsid, push_request=PushRequest(route="detail", params={"id": 1})),
          NavigationApi(traveller).push(tsid, push_request=PushRequest(route="detail", params={"id": 2})),
          NavigationApi(backend).push(tsid, push_request=PushRequest(route="detail", params={"id": 3}))]
check([answer.version for answer in pushes] == [2, 3, 4], "three pushes make versions 2 to 4")
answer = history_api.get_history(tsid)
history = answer.actual_instance if isinstance(answer, GetHistory200Response) else None
check(isinstance(history, History) and history.version == 4 and history.oldest == 1,
      f"GET history is the typed History at version 4, oldest 1 ({type(history).__name__})")
entries = history.entries if isinstance(history, History) else []
check([entry.version for entry in entries] == [1, 2, 3, 4],
      f"its entries are versions 1 to 4 ({[entry.version for entry in entries]})")
check([entry.op.op for entry in entries] == ["create", "push", "push", "push"],
      f"their ops: create, then three pushes ({[entry.op.op for entry in entries]})")
check([entry.by for entry in entries] == ["client", "client", "client", "backend"],
      f"by client, client, client, backend ({[entry.by for entry in entries]})")
values = [(entry.op.additional_properties.get("route"), entry.op.additional_properties.get("params"))
          for entry in entries[1:]]
check(values == [("detail", {"id": 1}), ("detail", {"id": 2}), ("detail", {"id": 3})]
      and all(type(params["id"]) is int for _, params in values),
      f"each push entry carries its route and int params ({values})")
check(all(isinstance(entry.at, datetime.datetime) and entry.at.tzinfo is not None for entry in entries)
      and [entry.at for entry in entries] == sorted(entry.at for entry in entries),
      "each entry's `at` is a date-time, in order")
page = history_api.get_history(tsid, after=1, limit=2).actual_instance
check(isinstance(page, History) and [entry.version for entry in page.entries] == [2, 3]
      and page.version == 4, "history after=1 limit=2 is versions 2 and 3")
crumbs = history_api.get_history(tsid, format="breadcrumbs").actual_instance
check(isinstance(crumbs, list) and all(isinstance(crumb, Breadcrumb) for crumb in crumbs)
      and [(crumb.data.var_from, crumb.data.to) for crumb in crumbs]
      == [("", "/master"), ("/master", "/master/detail")],
      "format=breadcrumbs is a list of the typed Breadcrumb, one per change of the active route ("
      + (repr([(c.data.var_from, c.data.to) for c in crumbs]) if isinstance(crumbs, list) else repr(crumbs))
      + ")")
old = travel_sessions.get_session_with_http_info(tsid, at=2)
check(isinstance(old.data, SessionState) and old.data.version == 2
      and old.headers.get("ETag") == '"2"'
      and [(item.route, item.params) for item in old.data.path] == [("master", {}), ("detail", {"id": 1})],
      "GET ?at=2 is the typed state at version 2 (ETag \"2\"): master, detail 1")
restored = history_api.restore(tsid, RestoreRequest(version=2))
check(sent_body() == {"version": 2}, f"restore sends only the version (sent {sent_body()})")
check(isinstance(restored, MutationResult) and restored.version == 5 and restored.session.version == 5,
      "restore of version 2 is a MutationResult, one version on (5)")
check([(item.id, item.route, item.params) for item in restored.session.path]
      == [(item.id, item.route, item.params) for item in old.data.path],
      "the restored path is version 2's, coordinator ids included")
events = [event.actual_instance for event in restored.events]
check([(event.coordinator, event.reason) for event in events[:-1]
       if isinstance(event, CoordinatorStoppedEvent)]
      == [(pushes[2].session.active, "reset"), (pushes[1].session.active, "reset")]
      and len(events) == 3, "the two later pushes stop, the top first (reason reset)")
check(bool(events) and isinstance(events[-1], SessionRestoredEvent) and events[-1].var_from == 2
      and events[-1].version == 5 and events[-1].type == "session.restored",
      "the last event is the typed session.restored {from: 2}")
later = history_api.get_history(tsid, after=4).actual_instance
check(isinstance(later, History) and [(entry.version, entry.op.op,
                                       entry.op.additional_properties.get("version"), entry.by)
                                      for entry in later.entries] == [(5, "restore", 2, "client")],
      "the restore is history entry 5, restore {version: 2}")
error = refusal(lambda: travel_sessions.get_session(tsid, at=99))
check(error is not None and error.status == 400 and isinstance(error.data, Problem)
      and error.data.code == "invalid_version", "?at= a version not reached is a typed 400 invalid_version")
travel_sessions.delete_session(tsid)
check(exchanges[-1].status == 204, "the time-travel session ends")

check(contract_check.report(spec, exchanges, (200, 201, 204, 400, 409, 412, 422),
                            label="openapi-generator python client", stream=True) == 0,
      "openapi-core: every request and answer conforms to openapi.yaml")
print(f"{len(failures)} failed" if failures else "openapi-generator python client scenario: all passed")
sys.exit(1 if failures else 0)
