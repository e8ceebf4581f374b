"""Opens COUNT event streams on one session of a live navstate, sends the server SIGTERM, and
checks that every stream ends cleanly (the chunked body's last chunk arrives, then the server
closes) and the server exits 0. Usage: streams_on_stop.py URL PID COUNT"""
import json
import os
import signal
import socket
import sys
import time
import urllib.request

url, pid, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
host, port = url.split("//")[1].split(":")
request = urllib.request.Request(url + "/v1/sessions", data=b"{}", method="POST",
                                 headers={"Content-Type": "application/json"})
created = json.load(urllib.request.urlopen(request, timeout=10))
sid, token = created["session"]["id"], created["token"]
streams = []
for _ in range(count):
    stream = socket.create_connection((host, int(port)), timeout=10)
    stream.sendall(f"GET /v1/sessions/{sid}/events HTTP/1.1\r\nHost: {host}\r\n"
                   f"Authorization: Bearer {token}\r\nAccept: text/event-stream\r\n\r\n".encode())
    streams.append(stream)
for stream in streams:  # each starts with its reset event (headers and event may come apart)
    first = b""
    while b"event: reset" not in first:
        chunk = stream.recv(65536)
        assert chunk, "a stream closed before its reset event"
        first += chunk
started = time.monotonic()
os.kill(pid, signal.SIGTERM)
clean = 0
for stream in streams:
    received = b""
    while True:
        chunk = stream.recv(65536)
        if not chunk:
            break
        received += chunk
    clean += received.endswith(b"0\r\n\r\n")
print(f"{count} streams: {clean} ended with the last chunk, all closed "
      f"{time.monotonic() - started:.2f} s after SIGTERM")
sys.exit(0 if clean == count else 1)
