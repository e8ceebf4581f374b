"""A scenario through the Python client that openapi-python-client generates from openapi.yaml:
int params (exact beyond 2^53), If-Match (stale and fresh), a typed 409 and a typed 422, the
typed event union and the affordances. Run by Tests/generated-clients/run; exits 1 on a failure."""
import os
import sys

from navstate_client import AuthenticatedClient, Client
from navstate_client.api.events import list_events
from navstate_client.api.navigation import pop, present, push
from navstate_client.api.sessions import create_session, get_session
from navstate_client.models import (CoordinatorStartedEvent, CreateSessionRequest, MutationResult,
                                    Params, PresentRequest, Problem, PushRequest, RouteRequest)

url = os.environ["NAVSTATE_URL"]
failures = []


def check(condition, what):
    print(("ok   " if condition else "FAIL ") + what)
    if not condition:
        failures.append(what)


def params(**values):
    made = Params()
    made.additional_properties = values
    return made


created = create_session.sync(client=Client(base_url=url),
                              body=CreateSessionRequest(root=RouteRequest(route="master")))
check(created.session.path[0].route == "master", "creation answers the typed state")
check(created.session.allowed.push == ["detail"], "the state carries its affordances")
client = AuthenticatedClient(base_url=url, token=created.token)
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

print(f"{len(failures)} failed" if failures else "python client scenario: all passed")
sys.exit(1 if failures else 0)
