"""Failover timing through the cluster proxy: makes sessions until node NODE made COUNT of
them (an id with no node name is the node's whose shards, as deploy/local-cluster gives them
out, hold its first character), kills NODE with SIGKILL (its pid from the cluster folder), then GETs each of its sessions
every 50 ms until it answers 200. Prints "p50 max count" in seconds.

Usage: failover.py PROXY_URL CLUSTER_FOLDER NODE COUNT
"""
import json
import os
import signal
import statistics
import sys
import threading
import time
import urllib.error
import urllib.request

proxy, folder, node, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])


def request(method, path, token=None, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(proxy + path, data=data, method=method)
    if body is not None:
        req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", "Bearer " + token)
    try:
        with urllib.request.urlopen(req, timeout=10) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()
    except OSError:
        return 0, b""


ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
NODES = len(os.listdir(os.path.join(folder, "nodes")))


def home_node(sid):
    if "." in sid:
        return sid.split(".")[0]
    shard = ALPHABET.index(sid[0])
    for index in range(1, NODES + 1):
        if 64 * (index - 1) // NODES <= shard < 64 * index // NODES:
            return f"n{index}"
    return None


sessions = []
made = 0
while len(sessions) < count and made < count * 20:
    status, body = request("POST", "/v1/sessions", body={})
    made += 1
    if status != 201:
        continue
    answer = json.loads(body)
    if home_node(answer["session"]["id"]) == node:
        sessions.append((answer["session"]["id"], answer["token"]))
if len(sessions) < count:
    sys.exit(f"only {len(sessions)} sessions of {node} after {made} creations")

with open(os.path.join(folder, "nodes", node, "pid")) as file:
    os.kill(int(file.read().strip()), signal.SIGKILL)
killed = time.monotonic()
times = []
lock = threading.Lock()


def wait(session):
    sid, token = session
    while time.monotonic() - killed < 120:
        status, _ = request("GET", f"/v1/sessions/{sid}", token)
        if status == 200:
            with lock:
                times.append(time.monotonic() - killed)
            return
        time.sleep(0.05)


threads = [threading.Thread(target=wait, args=(s,)) for s in sessions]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
if len(times) < count:
    sys.exit(f"{count - len(times)} sessions never answered again")
print(f"{statistics.median(times):.3f} {max(times):.3f} {len(times)}")
