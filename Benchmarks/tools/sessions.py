"""Opens COUNT sessions on a live navstate, pushes each to DEPTH coordinators, and writes
"sid token" lines for the wrk scripts. Usage: sessions.py URL COUNT DEPTH FILE"""
import concurrent.futures
import json
import sys
import urllib.request

url, count, depth, path = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]


def call(method, target, token=None, body=None):
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url + target, data=data, method=method, headers=headers)
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read() or b"null")


def make(index):
    created = call("POST", "/v1/sessions", body={"graph": "demo"})
    sid, token = created["session"]["id"], created["token"]
    if depth > 1:
        ops = [{"op": "push", "route": "detail", "params": {"id": n}} for n in range(depth - 1)]
        call("POST", f"/v1/sessions/{sid}/batch", token, {"ops": ops})
    return f"{sid} {token}"


with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
    lines = list(pool.map(make, range(count)))
with open(path, "w") as file:
    file.write("\n".join(lines) + "\n")
