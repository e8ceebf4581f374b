"""Event fan-out: the delay from a mutation's response to its event arriving at each of N
subscribers of one session. Usage: fanout.py HOST PORT N ROUNDS; prints "N p50_ms p99_ms"."""
import asyncio
import json
import resource
import sys
import time
import urllib.request

HOST, PORT, N, ROUNDS = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])


def call(method, path, token=None, body=None):
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(f"http://{HOST}:{PORT}{path}", data=data, method=method,
                                     headers=headers)
    with urllib.request.urlopen(request, timeout=10) as response:
        text = response.read()
        return json.loads(text) if text else None


async def subscriber(sid, token, ready, arrivals):
    reader, writer = await asyncio.open_connection(HOST, PORT)
    writer.write((f"GET /v1/sessions/{sid}/events HTTP/1.1\r\nHost: bench\r\n"
                  f"Accept: text/event-stream\r\nAuthorization: Bearer {token}\r\n\r\n").encode())
    await writer.drain()
    buffer, started = b"", False
    while True:
        chunk = await reader.read(65536)
        if not chunk:
            break
        now = time.perf_counter()
        buffer += chunk
        while b"event: " in buffer:
            start = buffer.index(b"event: ")
            end = buffer.find(b"\n", start)
            if end < 0:
                break
            kind = buffer[start + 7:end].decode()
            buffer = buffer[end:]
            if kind == "reset" and not started:
                started = True
                ready.release()
            elif kind == "coordinator.started":
                arrivals.append(now)
    writer.close()


async def main():
    resource.setrlimit(resource.RLIMIT_NOFILE, (20000, 20000))
    created = call("POST", "/v1/sessions", body={})
    sid, token = created["session"]["id"], created["token"]
    ready, arrivals = asyncio.Semaphore(0), []
    tasks = [asyncio.create_task(subscriber(sid, token, ready, arrivals)) for _ in range(N)]
    for _ in range(N):
        await asyncio.wait_for(ready.acquire(), 30)
    loop = asyncio.get_running_loop()
    delays = []
    for round_number in range(ROUNDS):
        arrivals.clear()
        body = {"route": "detail", "params": {"id": round_number}}
        await loop.run_in_executor(None, call, "POST", f"/v1/sessions/{sid}/push", token, body)
        answered = time.perf_counter()
        deadline = answered + 5
        while len(arrivals) < N and time.perf_counter() < deadline:
            await asyncio.sleep(0.0005)
        delays += [max(0.0, arrival - answered) for arrival in arrivals]
        await loop.run_in_executor(None, call, "POST", f"/v1/sessions/{sid}/pop", token, {})
        await asyncio.sleep(0.05)
    delays.sort()
    quantile = lambda q: delays[min(len(delays) - 1, int(q * len(delays)))] * 1000
    print(f"{N} {quantile(0.5):.2f} {quantile(0.99):.2f}")
    for task in tasks:
        task.cancel()


asyncio.run(main())
