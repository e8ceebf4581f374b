"""Measures the RSS an open idle event stream costs navstate: starts BINARY, opens COUNT streams
on one session and prints the RSS growth per stream. Usage: stream_rss.py BINARY COUNT"""
import socket, json, sys, time, subprocess, urllib.request, ctypes, signal, select
binary, n = sys.argv[1], int(sys.argv[2])
# The server dies with this script (a parent-death signal), and waits are bounded: no hang, no
# server left running.
p = subprocess.Popen([binary, "--port", "0", "--log-level", "error", "--max-streams-per-ip", "0",
                      "--max-connections-per-ip", "0", "--max-connections", "20000"], stdout=subprocess.PIPE, text=True,
                     preexec_fn=lambda: ctypes.CDLL(None).prctl(1, signal.SIGKILL))  # PR_SET_PDEATHSIG
try:
    assert select.select([p.stdout], [], [], 20)[0], "navstate printed nothing within 20 s"
    line = p.stdout.readline(); url = line.split()[-1]; host, port = url[7:].split(":")
    req = urllib.request.Request(url + "/v1/sessions", method="POST")
    created = json.load(urllib.request.urlopen(req, timeout=10)); sid = created["session"]["id"]; tok = created["token"]
    def rss():
        for l in open(f"/proc/{p.pid}/status"):
            if l.startswith("VmRSS"): return int(l.split()[1])
    # warm up with a few streams so that thread stacks and the like are counted before
    socks = []
    def open_streams(k):
        for _ in range(k):
            s = socket.create_connection((host, int(port)), timeout=10)
            s.sendall(f"GET /v1/sessions/{sid}/events/stream HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {tok}\r\n\r\n".encode())
            socks.append(s)
        for s in socks[-k:]:
            s.settimeout(5); data = b""
            while b"event: reset" not in data:
                chunk = s.recv(65536); assert chunk, "a stream closed before its reset event"; data += chunk
    open_streams(50); time.sleep(1); before = rss()
    open_streams(n); time.sleep(2); after = rss()
    print(f"{n} streams: {(after-before)/n:.1f} KiB RSS each (RSS {before} -> {after} KiB)")
finally:
    p.terminate()
    try:
        p.wait(10)
    except subprocess.TimeoutExpired:
        p.kill(); p.wait()
