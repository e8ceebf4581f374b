"""Schemathesis hooks: every generated call runs against a real session of its own, in a state
where the operation can succeed as well as be refused.

Session calls need a bearer token and a live session id, which no schema can generate. The auth
provider opens a fresh session for each test case and brings it into a shape that the operation
can act on: a tab container with a two-deep stack (pop, back, select-tab succeed; dismiss is
refused), the same with a sheet over it (dismiss succeeds; pop is refused), or a bare root.
A teardown is aimed at a real coordinator of that session most of the time (a pushed one
succeeds; the root and a tab are refused), at the generated id otherwise.

Backend calls (setting a context, loading a graph, migrating, a creation with a context) are
made with the key of the app's backend that `run` starts the server with (NAVSTATE_BACKEND_KEY),
so that a schema-valid body reaches their logic instead of a 403 `backend_only`. A graph is
loaded (or dry-run) under a name no session uses, so that a body that happens to be a valid
graph changes no graph the sessions here are on.

Every answer is recorded (NAVSTATE_STATUS_LOG); `run` then checks that pop, dismiss, teardown and
select-tab each saw success as well as refusal, so the fuzzing reaches their real logic.
"""
import json
import os
import random
import urllib.request

import schemathesis

BASE = os.environ["NAVSTATE_URL"]
STATUS_LOG = os.environ.get("NAVSTATE_STATUS_LOG")
BACKEND_KEY = os.environ.get("NAVSTATE_BACKEND_KEY")
# Operations only the app's backend may call (their `security` is `backend` alone).
BACKEND_ONLY = {("PUT", "/v1/sessions/{sid}/context"), ("PATCH", "/v1/sessions/{sid}/context"),
                ("PUT", "/v1/graphs/{name}"), ("POST", "/v1/graphs/{name}/dry-run"),
                ("POST", "/v1/graphs/{name}/migrate"), ("POST", "/v1/graphs/{name}/replay"),
                ("GET", "/v1/feed"), ("GET", "/v1/feed/stream"), ("POST", "/v1/analytics/funnel")}
# Seeded, so that a run can be repeated exactly along with schemathesis' own seed.
shapes = random.Random(20261123)

STACK = [{"op": "push", "route": "detail", "params": {"id": 1}},
         {"op": "push", "route": "detail", "params": {"id": 2}}]
SHEET = [{"op": "present", "route": "settings", "style": "sheet"}]
SHAPES = {
    "deep": ("tabs", STACK),
    "modal": ("tabs", STACK + SHEET),
    "root": ("master", []),
}
# The shape each operation needs to succeed, and the one that makes it refuse.
FOR_OPERATION = {
    "/v1/sessions/{sid}/pop": ["deep", "deep", "modal"],
    "/v1/sessions/{sid}/back": ["deep", "modal", "root"],
    "/v1/sessions/{sid}/dismiss": ["modal", "modal", "deep"],
    "/v1/sessions/{sid}/select-tab": ["deep", "modal", "root"],
    "/v1/sessions/{sid}/coordinators/{cid}": ["deep", "modal"],
}


def call(method, path, body=None, token=None):
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(f"{BASE}{path}", data=json.dumps(body).encode(),
                                     method=method, headers=headers)
    with urllib.request.urlopen(request, timeout=5) as response:
        return json.load(response)


def coordinator_ids(node):
    yield node["id"]
    for child in node["children"]:
        yield from coordinator_ids(child)


@schemathesis.auth(refresh_interval=None)
class SessionAuth:
    def get(self, case, context):
        path = context.operation.path
        shape = shapes.choice(FOR_OPERATION.get(path, list(SHAPES)))
        root, ops = SHAPES[shape]
        created = call("POST", "/v1/sessions", {"root": {"route": root}})
        sid, token = created["session"]["id"], created["token"]
        session = created["session"]
        if ops:
            session = call("POST", f"/v1/sessions/{sid}/batch", {"ops": ops}, token)["session"]
        return {"sid": sid, "token": token, "ids": list(coordinator_ids(session["root"]))}

    def set(self, case, data, context):
        case.headers = case.headers or {}
        operation = (case.method.upper(), case.operation.path)
        backend = BACKEND_KEY and (operation in BACKEND_ONLY or (
            operation == ("POST", "/v1/sessions") and isinstance(case.body, dict)
            and "context" in case.body))
        case.headers["Authorization"] = f"Bearer {BACKEND_KEY if backend else data['token']}"
        if operation in {("PUT", "/v1/graphs/{name}"), ("POST", "/v1/graphs/{name}/dry-run")} \
                and case.path_parameters:
            case.path_parameters["name"] = "contract-scratch"
        if case.path_parameters and "sid" in case.path_parameters:
            case.path_parameters["sid"] = data["sid"]
        if case.path_parameters and "cid" in case.path_parameters and shapes.random() < 0.8:
            case.path_parameters["cid"] = shapes.choice(data["ids"])


@schemathesis.serializer("application/x-ndjson")
def ndjson(ctx, value):
    """Recordings to replay: the generated string as it is (the schema says a string), anything
    else as one JSON line."""
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode()
    return json.dumps(value).encode() + b"\n"


@schemathesis.hook
def after_call(context, case, response):
    if STATUS_LOG:
        with open(STATUS_LOG, "a") as log:
            log.write(f"{case.method} {case.operation.path} {response.status_code}\n")
