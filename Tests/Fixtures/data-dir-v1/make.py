import json, os, signal, subprocess, sys, time, urllib.request, shutil
BIN = "/tmp/v0/navstate-debug"
DIR = sys.argv[1]
shutil.rmtree(DIR, ignore_errors=True)
def start():
    p = subprocess.Popen([BIN, "--port", "0", "--data-dir", DIR, "--session-ttl", "1000000000",
                          "--snapshot-interval", "0", "--fsync", "always", "--log-level", "warning"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = p.stdout.readline()
    return p, line.strip().split("listening on ")[1]
def call(url, method, path, token=None, body=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url + path, data=data, method=method)
    if token: req.add_header("Authorization", "Bearer " + token)
    if data is not None: req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req) as r:
            raw = r.read()
            return r.status, (json.loads(raw) if raw else None)
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null")
sessions = {}
def create(url, body=None):
    s, b = call(url, "POST", "/v1/sessions", body=body or {})
    assert s == 201, (s, b)
    sessions[b["session"]["id"]] = b["token"]
    return b["session"]["id"], b["token"]
def op(url, sid, name, body, method="POST"):
    s, b = call(url, method, f"/v1/sessions/{sid}/{name}", sessions[sid], body)
    assert s in (200, 204), (name, s, b)
    return b
p, url = start()
a, _ = create(url)
op(url, a, "push", {"route": "detail", "params": {"id": 42}})
op(url, a, "push", {"route": "detail", "params": {"id": 9007199254740993}})
op(url, a, "present", {"route": "settings", "style": "sheet"})
op(url, a, "back", {"result": {"saved": True, "note": "héllo \"quoted\"", "n": 1.5}})
b, _ = create(url, {"graph": "demo", "root": {"route": "tabs"}})
op(url, b, "select-tab", {"tab": "search"})
op(url, b, "deeplink", {"url": "myapp://tabs/search?query=shoes"})
op(url, b, "push", {"route": "detail", "params": {"id": 3}})
c, _ = create(url, {"root": {"route": "scene1"}})
op(url, c, "push", {"route": "scene2", "params": {"text": "two"}})
op(url, c, "pop", {"toRoot": True, "result": [1, 2, 3]})
op(url, c, "present", {"route": "scene3", "params": {"text": "three"}})
d, _ = create(url)
op(url, d, "batch", {"ops": [{"op": "push", "route": "detail", "params": {"id": 1}}, {"op": "push", "route": "detail", "params": {"id": 2}}, {"op": "pop"}]})
gone, _ = create(url)
call(url, "DELETE", f"/v1/sessions/{gone}", sessions[gone])
del sessions[gone]
p.send_signal(signal.SIGTERM); p.wait(timeout=20)
assert p.returncode == 0
# Second life: changes that only the journal holds.
p, url = start()
op(url, a, "pop", {})
path = call(url, "GET", f"/v1/sessions/{a}", sessions[a])[1]
op(url, a, "coordinators/" + path["path"][-1]["id"], None, method="DELETE") if len(path["path"]) > 1 else None
e, _ = create(url, {"root": {"route": "login"}})
op(url, e, "push", {"route": "dashboard"})
op(url, e, "present", {"route": "settings", "style": "sheet"})
op(url, e, "state", {"path": [{"route": "login", "presentation": "root"}, {"route": "signup", "presentation": "fullScreenCover"}]}, method="PUT")
op(url, b, "replace", {"route": "detail", "params": {"id": 4}})
op(url, d, "dismiss", {}) if False else None
gone2, _ = create(url)
call(url, "DELETE", f"/v1/sessions/{gone2}", sessions[gone2])
del sessions[gone2]
expected = {}
for sid, token in sessions.items():
    s, state = call(url, "GET", f"/v1/sessions/{sid}", token)
    state.pop("expiresAt")
    s, events = call(url, "GET", f"/v1/sessions/{sid}/events?after=0", token)
    expected[sid] = {"token": token, "state": state, "events": events}
expected["__deleted"] = [gone, gone2]
p.send_signal(signal.SIGKILL); p.wait()
json.dump(expected, open(os.path.join(DIR, "..", "expected.json"), "w"), indent=1, sort_keys=True)
print(sorted(os.listdir(DIR)))
