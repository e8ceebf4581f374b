"""Schemathesis hooks: every generated call runs against a real session of its own.

Session calls need a bearer token and a live session id, which no schema can generate. This auth
provider opens a fresh session for each test case and puts its id and token into the request,
so generated bodies are judged by a real session instead of bouncing off 404.
"""
import json
import os
import urllib.request

import schemathesis

BASE = os.environ["NAVSTATE_URL"]


@schemathesis.auth(refresh_interval=None)
class SessionAuth:
    def get(self, case, context):
        request = urllib.request.Request(
            f"{BASE}/v1/sessions", data=b"{}", method="POST",
            headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=5) as response:
            created = json.load(response)
        return {"sid": created["session"]["id"], "token": created["token"]}

    def set(self, case, data, context):
        case.headers = case.headers or {}
        case.headers["Authorization"] = f"Bearer {data['token']}"
        if case.path_parameters and "sid" in case.path_parameters:
            case.path_parameters["sid"] = data["sid"]
