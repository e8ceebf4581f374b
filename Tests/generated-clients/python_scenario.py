"""A scenario through the Python client that openapi-python-client generates from openapi.yaml:
int params (exact beyond 2^53), If-Match (stale and fresh), pop to a coordinator and to the root
(no `count` sent beside them), a typed 409, 412 and 422, a minimal answer, the typed event union
and the affordances; a backend merge patch of a context; and the typed round trip of a graph: GET
`demo` and `zumry`, send each back unedited but for its name (a scratch one) with PUT, GET the copy
and check that it means the same graph (contract_check.graph_meaning), and a dry run decoded as
the typed MigrationReport; and history and time travel: the typed History (versions, ops, by),
a page of it, the breadcrumbs, the state at an older version (`at`) and a restore of it (its
session.restored event). Every request and answer is recorded under the generated code (httpx's
event hooks) and validated with openapi-core (contract_check.py). Run by
Tests/generated-clients/run (NAVSTATE_URL, NAVSTATE_BACKEND_KEY, NAVSTATE_SPEC); exits 1 on a
failure."""
import datetime
import json
import os
import sys

import contract_check
from contract_check import Exchange
from navstate_client import AuthenticatedClient, Client
from navstate_client.api.events import list_events
from navstate_client.api.graphs import dry_run_graph, get_graph, load_graph
from navstate_client.api.history import get_history, restore
from navstate_client.api.navigation import pop, present, push, teardown_coordinator
from navstate_client.api.sessions import create_session, delete_session, get_session, patch_context
from navstate_client.models import (Breadcrumb, ContextPatch, CoordinatorStartedEvent,
                                    CoordinatorStoppedEvent, CreateSessionRequest, GetHistoryFormat,
                                    Graph, GraphInput, History, HistoryEntryBy, MigrationReport,
                                    MutationResult, Params, PopRequest, PresentRequest, Problem,
                                    PushRequest, RestoreRequest, RouteRequest, SessionContext,
                                    SessionRestoredEvent, SessionState)

url = os.environ["NAVSTATE_URL"]
spec = os.environ["NAVSTATE_SPEC"]
failures = []
exchanges = []


def record(response):
    response.read()
    request = response.request
    exchanges.append(Exchange(
        request.method, str(request.url), list(request.headers.items()), request.content or None,
        response.status_code, list(response.headers.items()), response.content))


hooks = {"event_hooks": {"response": [record]}}


def check(condition, what):
    print(("ok   " if condition else "FAIL ") + what)
    if not condition:
        failures.append(what)


def params(**values):
    made = Params()
    made.additional_properties = values
    return made


created = create_session.sync(client=Client(base_url=url, httpx_args=hooks),
                              body=CreateSessionRequest(root=RouteRequest(route="master")))
check(created.session.path[0].route == "master", "creation answers the typed state")
check(created.session.allowed.push == ["detail"], "the state carries its affordances")
client = AuthenticatedClient(base_url=url, token=created.token, httpx_args=hooks)
sid = created.session.id

big = 9_007_199_254_740_993
pushed = push.sync(sid, client=client, body=PushRequest(route="detail", params=params(id=big)),
                   if_match='"1"')
check(isinstance(pushed, MutationResult), "a push at the current version (If-Match) is applied")
check(pushed.session.path[-1].params["id"] == big, "an int param comes back exactly")
check(isinstance(pushed.events[0], CoordinatorStartedEvent)
      and pushed.events[0].params["id"] == big, "events are the typed union, params exact")

stale = present.sync(sid, client=client, body=PresentRequest(route="settings"), if_match='"1"')
check(isinstance(stale, Problem) and stale.status == 412 and stale.code == "version_mismatch"
      and stale.version == 2, "a stale If-Match is a typed 412 with the current version")

popped = pop.sync(sid, client=client)
check(isinstance(popped, MutationResult) and [item.route for item in popped.session.path] == ["master"],
      "pop answers the new state")
refused = pop.sync(sid, client=client)
check(isinstance(refused, Problem) and refused.status == 409 and refused.code == "nothing_to_pop",
      "pop at the root is a typed 409")
wrong = push.sync(sid, client=client, body=PushRequest(route="detail", params=params(id=1.5)))
check(isinstance(wrong, Problem) and wrong.status == 422 and wrong.code == "invalid_params",
      "a fractional int param is a typed 422")

page = list_events.sync(sid, client=client, after=0)
check([event.seq for event in page.events] == list(range(1, page.last_seq + 1)),
      "the JSON catch-up lists every event in order")
state = get_session.sync(sid, client=client)
check(state.version == 3 and state.allowed.pop is False, "GET answers the typed state")

# pop {to} and pop {toRoot} send only what was asked (a `count` beside either is refused).
kept = push.sync(sid, client=client, body=PushRequest(route="detail", params=params(id=1)))
kept_id = kept.session.active
for id in (2, 3):
    push.sync(sid, client=client, body=PushRequest(route="detail", params=params(id=id)))
popped = pop.sync(sid, client=client, body=PopRequest(to=kept_id))
check(json.loads(exchanges[-1].request_body) == {"to": kept_id}
      and isinstance(popped, MutationResult) and popped.session.active == kept_id,
      "pop {to} sends only 'to' and pops down to it")
popped = pop.sync(sid, client=client, body=PopRequest(to_root=True))
check(json.loads(exchanges[-1].request_body) == {"toRoot": True}
      and isinstance(popped, MutationResult)
      and [item.route for item in popped.session.path] == ["master"],
      "pop {toRoot} sends only 'toRoot' and leaves the root")

# The minimal answer is the same type, without the state.
short = push.sync(sid, client=client, body=PushRequest(route="detail", params=params(id=big)),
                  prefer="return=minimal")
check(isinstance(short, MutationResult) and not short.session and short.version == popped.version + 1
      and short.events[0].params["id"] == big
      and exchanges[-1].header("Preference-Applied") == "return=minimal",
      "Prefer: return=minimal answers {version, events}, the int param exact")
gone = teardown_coordinator.sync_detailed(sid, kept_id, client=client)
check(gone.status_code == 204, "tearing down a stopped coordinator is 204")
ended = delete_session.sync_detailed(sid, client=client)
check(ended.status_code == 204, "ending the session is 204")

# The backend: a context at creation, then a merge patch (application/merge-patch+json) that
# removes one key and sets another; the pending dashboard opens.
backend = AuthenticatedClient(base_url=url, token=os.environ["NAVSTATE_BACKEND_KEY"],
                              httpx_args=hooks)
guarded = create_session.sync(client=backend, body=CreateSessionRequest(
    graph="zumry", context=SessionContext.from_dict({"authenticated": False, "plan": "free"})))
check(guarded.session.pending is not None and guarded.session.path[0].route == "login",
      "a zumry session signed out waits at login")
patched = patch_context.sync(guarded.session.id, client=backend,
                             body=ContextPatch.from_dict({"authenticated": True, "plan": None}))
sent_type = {k.lower(): v for k, v in exchanges[-1].request_headers}.get("content-type")
check(sent_type == "application/merge-patch+json", f"the patch is sent as {sent_type}")
check(isinstance(patched, MutationResult)
      and patched.session.context.to_dict() == {"authenticated": True}
      and patched.session.path[0].route == "dashboard",
      "PATCH context as a merge patch removes a key, sets one, and the dashboard opens")
check(delete_session.sync_detailed(guarded.session.id, client=backend).status_code == 204,
      "the backend ends the session")

# Typed graph round trips: GET, PUT back unedited under a scratch name, GET the copy.
anonymous = Client(base_url=url, httpx_args=hooks)
for name in ("demo", "zumry"):
    copy = f"{name}_py"
    original = get_graph.sync(name, client=anonymous)
    served = exchanges[-1].json
    check(isinstance(original, Graph) and original.name == name, f"GET {name} is the typed Graph")
    body = GraphInput.from_dict(original.to_dict())
    body.name = copy
    loaded = load_graph.sync(copy, client=backend, body=body)
    sent = json.loads(exchanges[-1].request_body)
    check(isinstance(loaded, Graph) and exchanges[-1].status == 201,
          f"PUT {copy} of the typed GET answer is a 201 Graph" + (
              "" if exchanges[-1].status == 201
              else f" (got {exchanges[-1].status}: {exchanges[-1].response_body[:300]!r})"))
    got = get_graph.sync(copy, client=anonymous)
    check(isinstance(got, Graph) and exchanges[-1].status == 200, f"GET {copy} is the typed Graph")
    if exchanges[-1].status == 200:
        before = contract_check.graph_meaning(served)
        for what, document in (("the body sent", sent), ("GET of the copy", exchanges[-1].json),
                               ("the typed reading of the copy", got.to_dict())):
            after = contract_check.graph_meaning(document)
            check(before == after, f"{name}: {what} means what GET {name} meant"
                  + ("" if before == after else ": " + contract_check.meaning_differences(before, after)))

# A dry run: demo at version 2, nothing changed, so every session behind stays as it is; nothing
# is loaded. The same version again is a typed 409.
alive = create_session.sync(client=anonymous, body=CreateSessionRequest(graph="demo"))
body = GraphInput.from_dict(get_graph.sync("demo", client=anonymous).to_dict())
body.version = 2
report = dry_run_graph.sync("demo", client=backend, body=body)
check(isinstance(report, MigrationReport) and report.sessions >= 1
      and report.unchanged == report.sessions and report.migrated == 0 and report.restarted == 0
      and not report.stopped.to_dict(),
      f"a dry run of demo 2 is the typed MigrationReport, every session unchanged ({report})")
check(get_graph.sync("demo", client=anonymous).version == 1, "the dry run loaded nothing")
body.version = 1
refused = dry_run_graph.sync("demo", client=backend, body=body)
check(isinstance(refused, Problem) and refused.status == 409
      and refused.code == "graph_version_exists", "a dry run of a loaded version is a typed 409")
delete_session.sync_detailed(alive.session.id,
                             client=AuthenticatedClient(base_url=url, token=alive.token,
                                                        httpx_args=hooks))

# History and time travel, on a session of its own: three pushes (the last by the backend), the
# history (the typed History: each entry's version, op and by), a page of it (after, limit), the
# breadcrumbs (the answer's other oneOf member, a list of the typed Breadcrumb), the state at
# version 2 (`at`), a restore of that version (a MutationResult whose events end in the typed
# session.restored {from}), the restore's own entry, and a version not reached (a typed 400).
travel = create_session.sync(client=anonymous,
                             body=CreateSessionRequest(root=RouteRequest(route="master")))
tsid = travel.session.id
traveller = AuthenticatedClient(base_url=url, token=travel.token, httpx_args=hooks)
pushes = [push.sync(tsid, client=traveller, body=PushRequest(route="detail", params=params(id=1))),
          push.sync(tsid, client=traveller, body=PushRequest(route="detail", params=params(id=2))),
          push.sync(tsid, client=backend, body=PushRequest(route="detail", params=params(id=3)))]
check([answer.version for answer in pushes] == [2, 3, 4], "three pushes make versions 2 to 4")
history = get_history.sync(tsid, client=traveller)
check(isinstance(history, History) and history.version == 4 and history.oldest == 1,
      f"GET history is the typed History at version 4, oldest 1 ({type(history).__name__})")
entries = history.entries if isinstance(history, History) else []
check([entry.version for entry in entries] == [1, 2, 3, 4],
      f"its entries are versions 1 to 4 ({[entry.version for entry in entries]})")
check([entry.op.op for entry in entries] == ["create", "push", "push", "push"],
      f"their ops: create, then three pushes ({[entry.op.op for entry in entries]})")
check([entry.by for entry in entries] == [HistoryEntryBy.CLIENT] * 3 + [HistoryEntryBy.BACKEND],
      f"by client, client, client, backend ({[str(entry.by) for entry in entries]})")
check([(entry.op["route"], entry.op["params"]) for entry in entries[1:]]
      == [("detail", {"id": 1}), ("detail", {"id": 2}), ("detail", {"id": 3})],
      "each push entry carries its route and params")
check(all(isinstance(entry.at, datetime.datetime) and entry.at.tzinfo is not None for entry in entries)
      and [entry.at for entry in entries] == sorted(entry.at for entry in entries),
      "each entry's `at` is a date-time, in order")
page = get_history.sync(tsid, client=traveller, after=1, limit=2)
check(isinstance(page, History) and [entry.version for entry in page.entries] == [2, 3]
      and page.version == 4, "history after=1 limit=2 is versions 2 and 3")
crumbs = get_history.sync(tsid, client=traveller, format_=GetHistoryFormat.BREADCRUMBS)
check(isinstance(crumbs, list) and all(isinstance(crumb, Breadcrumb) for crumb in crumbs)
      and [(crumb.data.from_, crumb.data.to) for crumb in crumbs]
      == [("", "/master"), ("/master", "/master/detail")],
      "format=breadcrumbs is a list of the typed Breadcrumb, one per change of the active route ("
      + (repr([(c.data.from_, c.data.to) for c in crumbs]) if isinstance(crumbs, list) else repr(crumbs))
      + ")")
old = get_session.sync_detailed(tsid, client=traveller, at=2)
check(isinstance(old.parsed, SessionState) and old.parsed.version == 2
      and old.headers.get("ETag") == '"2"'
      and [(item.route, item.params.to_dict()) for item in old.parsed.path]
      == [("master", {}), ("detail", {"id": 1})],
      "GET ?at=2 is the typed state at version 2 (ETag \"2\"): master, detail 1")
restored = restore.sync(tsid, client=traveller, body=RestoreRequest(version=2))
check(isinstance(restored, MutationResult) and restored.version == 5
      and restored.session.version == 5,
      "restore of version 2 is a MutationResult, one version on (5)")
check(isinstance(restored, MutationResult) and isinstance(old.parsed, SessionState)
      and [(item.id, item.route, item.params.to_dict()) for item in restored.session.path]
      == [(item.id, item.route, item.params.to_dict()) for item in old.parsed.path],
      "the restored path is version 2's, coordinator ids included")
events = restored.events if isinstance(restored, MutationResult) else []
check([(event.coordinator, event.reason) for event in events[:-1]
       if isinstance(event, CoordinatorStoppedEvent)]
      == [(pushes[2].session.active, "reset"), (pushes[1].session.active, "reset")]
      and len(events) == 3, "the two later pushes stop, the top first (reason reset)")
check(bool(events) and isinstance(events[-1], SessionRestoredEvent) and events[-1].from_ == 2
      and events[-1].version == 5, "the last event is the typed session.restored {from: 2}")
after = get_history.sync(tsid, client=traveller, after=4)
check(isinstance(after, History) and [(entry.version, entry.op.op, entry.op["version"], entry.by)
                                      for entry in after.entries]
      == [(5, "restore", 2, HistoryEntryBy.CLIENT)], "the restore is history entry 5, restore {version: 2}")
unreached = get_session.sync(tsid, client=traveller, at=99)
check(isinstance(unreached, Problem) and unreached.status == 400
      and unreached.code == "invalid_version", "?at= a version not reached is a typed 400 invalid_version")
check(delete_session.sync_detailed(tsid, client=traveller).status_code == 204,
      "the time-travel session ends")

# The backend feed, through the generated client's HTTP client (every exchange is checked against
# openapi.yaml with the rest): a page, a filtered page, CloudEvents, a funnel, a cursor never
# issued (400 invalid_cursor).
feed_http = backend.get_httpx_client()
first = feed_http.get("/v1/feed", params={"limit": 5})
first_items = first.json()["events"]
check(first.status_code == 200 and len(first_items) == 5 and first.json()["next"] == first_items[-1]["id"],
      "GET /v1/feed pages 5 items; next is the last one's cursor")
check(all({"id", "type", "session", "at"} <= set(item) for item in first_items),
      "each item is {id, type, session, at, ...}")
views = feed_http.get("/v1/feed", params={"types": "screen.viewed", "limit": 1000}).json()["events"]
check(views and all(item["type"] == "screen.viewed" and "transition" in item for item in views),
      f"types=screen.viewed keeps only screen views ({len(views)})")
cloud = feed_http.get("/v1/feed", params={"format": "cloudevents", "limit": 2}).json()["events"]
check(all(item["specversion"] == "1.0" and item["type"].startswith("dev.navstate.") for item in cloud),
      "format=cloudevents answers CloudEvents 1.0 objects")
funnel = feed_http.post("/v1/analytics/funnel", json={"graph": "demo", "steps": ["master", "detail"]})
check(funnel.status_code == 200 and [step["route"] for step in funnel.json()["steps"]] == ["master", "detail"],
      "a funnel answers its steps")
unknown = feed_http.get("/v1/feed", params={"after": "nonsense"})
check(unknown.status_code == 400 and unknown.json()["code"] == "invalid_cursor",
      "a cursor never issued is 400 invalid_cursor")

check(contract_check.report(spec, exchanges, (200, 201, 204, 400, 409, 412, 422),
                            label="openapi-python-client") == 0,
      "openapi-core: every request and answer conforms to openapi.yaml")

print(f"{len(failures)} failed" if failures else "python client scenario: all passed")
sys.exit(1 if failures else 0)
