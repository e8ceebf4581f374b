"""One session, many writers: THREADS threads mutate one session for SECONDS seconds (push, pop,
present, dismiss, back; some with a stale or current If-Match), then the session is checked:
its version is 1 + the number of accepted mutations, its event log runs 1..lastSeq without a gap,
every event's version is one an accepted mutation produced, and replaying the started/stopped
events gives exactly the coordinators of its tree. Exits 1 on any violation or 5xx.

Usage: consistency.py URL THREADS SECONDS   (start navstate with a large --event-buffer and
--event-buffer-bytes, so that the whole log is kept)"""
import json
import random
import sys
import threading
import time
import urllib.error
import urllib.request

url, threads, seconds = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])


def call(method, path, token=None, body=None, headers=None):
    all_headers = {"Content-Type": "application/json", **(headers or {})}
    if token:
        all_headers["Authorization"] = f"Bearer {token}"
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url + path, data=data, method=method, headers=all_headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read() or b"null"), response.headers
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null"), error.headers


status, created, _ = call("POST", "/v1/sessions", body={})
sid, token = created["session"]["id"], created["token"]
path = f"/v1/sessions/{sid}"
OPS = [("push", {"route": "detail", "params": {"id": 1}}), ("pop", {}), ("back", {}),
       ("present", {"route": "settings", "style": "sheet"}), ("dismiss", {})]
lock = threading.Lock()
accepted_versions, statuses, server_errors = [], {}, []
deadline = time.monotonic() + seconds


def worker(seed):
    rng = random.Random(seed)
    while time.monotonic() < deadline:
        name, body = rng.choice(OPS)
        headers = {}
        if rng.random() < 0.2:
            headers["If-Match"] = f'"{rng.randint(1, 50)}"'
        status, answer, _ = call("POST", f"{path}/{name}", token, body, headers)
        with lock:
            statuses[status] = statuses.get(status, 0) + 1
            if status >= 500:
                server_errors.append((name, status, answer))
            elif status == 200 and answer["events"]:
                accepted_versions.append(answer["session"]["version"])


workers = [threading.Thread(target=worker, args=(n,)) for n in range(threads)]
for thread in workers:
    thread.start()
for thread in workers:
    thread.join()

_, state, _ = call("GET", path, token)
_, log, _ = call("GET", f"{path}/events?after=0", token)
events = log["events"]
problems = []
if server_errors:
    problems.append(f"5xx answers: {server_errors[:3]}")
if "reset" in log:
    problems.append("the log did not keep every event (raise --event-buffer and --event-buffer-bytes)")
if state["version"] != 1 + len(accepted_versions):
    problems.append(f"version {state['version']} after {len(accepted_versions)} changes")
if sorted(accepted_versions) != list(range(2, state["version"] + 1)):
    problems.append("two answers claim the same version, or one is missing")
if [event["seq"] for event in events] != list(range(1, len(events) + 1)):
    problems.append("the event sequence has a gap or a repeat")
if events and events[-1]["seq"] != log["lastSeq"]:
    problems.append("lastSeq is not the last event's")
if any(a["version"] > b["version"] for a, b in zip(events, events[1:])):
    problems.append("event versions go backwards")
live = set()
for event in events:
    if event["type"] == "coordinator.started":
        live.add(event["coordinator"])
    elif event["type"] == "coordinator.stopped":
        live.discard(event["coordinator"])


def ids(node):
    yield node["id"]
    for child in node["children"]:
        yield from ids(child)


if live != set(ids(state["root"])):
    problems.append(f"replaying the events gives {sorted(live)}, the tree has {sorted(ids(state['root']))}")
print(f"{threads} threads, {seconds:.0f} s: {sum(statuses.values())} requests, answers "
      f"{dict(sorted(statuses.items()))}, {len(accepted_versions)} changes, {len(events)} events, "
      f"version {state['version']}: {'consistent' if not problems else 'INCONSISTENT'}")
for problem in problems:
    print("  " + problem)
sys.exit(1 if problems else 0)
