"""Sends an exact number of requests of one workload over 64 kept-alive connections, in two
phases: WARM requests, then (after a line on standard input) COUNT more; prints a line after
each. Benchmarks/instructions brackets the second phase with callgrind_control.
Usage: exact_load.py PORT WORKLOAD WARM COUNT
  WORKLOAD: healthz | state (a 4-deep session) | pushpop (a batch push+pop) |
            pushthenpop (a push, then its pop, as two requests; counted per pair) |
            createdelete (one creation and one deletion per unit) | metrics (GET /metrics) |
            baseline (GET / of hello.c) |
            guarded-state, guarded-pushpop (state and pushpop on the guarded zumry graph, a
            session whose context opens its routes: every push checks its requirements; needs
            NAVSTATE_BACKEND_KEY, a key of the server's --backend-key-file)"""
import os
import json
import socket
import sys
import urllib.request

port, workload, warm, count = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
base = f"http://127.0.0.1:{port}"


def call(method, path, body=None, token=None):
    headers = {"Content-Type": "application/json"}
    if token is None and path == "/v1/sessions" and os.environ.get("NAVSTATE_BACKEND_KEY"):
        token = os.environ["NAVSTATE_BACKEND_KEY"]
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(base + path, data=data, method=method, headers=headers)
    return json.load(urllib.request.urlopen(request, timeout=120))


def frame(method, path, token=None, body=None):
    head = f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
    if token:
        head += f"Authorization: Bearer {token}\r\n"
    if body is not None:
        payload = json.dumps(body).encode()
        head += f"Content-Type: application/json\r\nContent-Length: {len(payload)}\r\n\r\n"
        return head.encode() + payload
    return (head + "\r\n").encode()


def receive(connection):
    chunk = connection.recv(65536)
    if not chunk:
        raise ConnectionError("the server closed a kept-alive connection")
    return chunk


def exchange(connection, request):
    connection.sendall(request)
    data = b""
    while b"\r\n\r\n" not in data:
        data += receive(connection)
    head, _, rest = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    while len(rest) < length:
        rest += receive(connection)
    return rest


# A server that stops answering ends the run (socket.timeout) instead of hanging it.
connections = [socket.create_connection(("127.0.0.1", port), timeout=120) for _ in range(64)]
if workload in ("state", "pushpop", "pushthenpop"):
    created = call("POST", "/v1/sessions", {})
    sid, token = created["session"]["id"], created["token"]
    call("POST", f"/v1/sessions/{sid}/batch",
         {"ops": [{"op": "push", "route": "detail", "params": {"id": n}} for n in range(3)]}, token)
    state_request = frame("GET", f"/v1/sessions/{sid}", token)
    batch_request = frame("POST", f"/v1/sessions/{sid}/batch", token,
                          {"ops": [{"op": "push", "route": "detail", "params": {"id": 9}},
                                   {"op": "pop"}]})
    push_request = frame("POST", f"/v1/sessions/{sid}/push", token,
                         {"route": "detail", "params": {"id": 9}})
    pop_request = frame("POST", f"/v1/sessions/{sid}/pop", token, {})
if workload in ("guarded-state", "guarded-pushpop"):
    created = call("POST", "/v1/sessions", {
        "graph": "zumry", "context": {"authenticated": True, "emailVerified": True,
                                      "roles": ["member"]}})
    sid, token = created["session"]["id"], created["token"]
    call("POST", f"/v1/sessions/{sid}/batch",
         {"ops": [{"op": "push", "route": "checkout", "params": {"item": "a"}}]}, token)
    state_request = frame("GET", f"/v1/sessions/{sid}", token)
    batch_request = frame("POST", f"/v1/sessions/{sid}/batch", token,
                          {"ops": [{"op": "pop"},
                                   {"op": "push", "route": "checkout", "params": {"item": "b"}}]})
healthz_request = frame("GET", "/healthz")
metrics_request = frame("GET", "/metrics")
baseline_request = frame("GET", "/")


def unit(index):
    connection = connections[index % len(connections)]
    if workload == "healthz":
        exchange(connection, healthz_request)
    elif workload == "metrics":
        exchange(connection, metrics_request)
    elif workload == "baseline":
        exchange(connection, baseline_request)
    elif workload in ("state", "guarded-state"):
        exchange(connection, state_request)
    elif workload in ("pushpop", "guarded-pushpop"):
        exchange(connection, batch_request)
    elif workload == "pushthenpop":
        exchange(connection, push_request)
        exchange(connection, pop_request)
    elif workload == "createdelete":
        created = json.loads(exchange(connection, frame("POST", "/v1/sessions", body={})))
        exchange(connection, frame("DELETE", f"/v1/sessions/{created['session']['id']}",
                                   created["token"]))


for index in range(warm):
    unit(index)
print("warm", flush=True)
sys.stdin.readline()
for index in range(count):
    unit(index)
print("done", flush=True)
