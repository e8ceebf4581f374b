"""Fixtures and raw-socket helpers for the adversarial tests.

Every test starts its own navstate (NAVSTATE_BINARY, default .build/debug/navstate) on a free
loopback port with the flags it needs, talks to it over raw sockets (127.0.0.1, and 127.0.0.2
as a second client address), and stops it with SIGTERM at teardown.
"""
import ctypes
import json
import os
import pathlib
import re
import select
import signal
import socket
import subprocess
import tempfile
import threading
import time

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
BINARY = os.environ.get("NAVSTATE_BINARY") or str(ROOT / ".build" / "debug" / "navstate")
HOST = "127.0.0.1"
OTHER_SOURCE = "127.0.0.2"  # a second client address on loopback
START_TIMEOUT = 20  # seconds for the first line on standard output
STOP_TIMEOUT = 10  # seconds for a graceful stop (in-flight requests get up to 5)


def _stop_with_parent():
    """In the child before exec: SIGTERM when pytest dies, so no server outlives the suite."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


# A SIGTERM to pytest (from `run`, or timeout) unwinds like Ctrl-C, so fixtures tear down.
def _interrupt(signum, frame):
    raise KeyboardInterrupt(f"signal {signum}")


signal.signal(signal.SIGTERM, _interrupt)


class Server:
    """One navstate process: `port`, `pid`, `stderr_text()`, `connect()`, `stop()`."""

    def __init__(self, args):
        self.args = ["--port", "0", "--log-level", "warning", *args]
        self.sockets = []
        self.returncode = None
        self._stderr = tempfile.NamedTemporaryFile(prefix="navstate-adversarial-", suffix=".err",
                                                   delete=False)
        self.proc = subprocess.Popen([BINARY, *self.args], stdin=subprocess.DEVNULL,
                                     stdout=subprocess.PIPE, stderr=self._stderr,
                                     preexec_fn=_stop_with_parent)
        self.pid = self.proc.pid
        line = self._first_line()
        match = re.fullmatch(r"listening on http://127\.0\.0\.1:(\d+)", line)
        if not match:
            self.stop()
            message = (f"navstate {' '.join(self.args)}: unexpected first line {line!r}; "
                       f"stderr: {self.stderr_text()!r}")
            self.cleanup()
            pytest.fail(message)
        self.port = int(match.group(1))
        # Keep draining standard output so that the server never blocks on a full pipe.
        self._drain = threading.Thread(target=self._drain_stdout, daemon=True)
        self._drain.start()

    def _first_line(self):
        fd = self.proc.stdout.fileno()
        data = b""
        deadline = time.monotonic() + START_TIMEOUT
        while b"\n" not in data:
            left = deadline - time.monotonic()
            ready = select.select([fd], [], [], max(0, left))[0] if left > 0 else []
            chunk = os.read(fd, 4096) if ready else b""
            if not chunk:
                code = self.stop()
                message = (f"navstate {' '.join(self.args)} did not start (exit {code}); "
                           f"stdout: {data!r}; stderr: {self.stderr_text()!r}")
                self.cleanup()
                pytest.fail(message)
            data += chunk
        return data.split(b"\n", 1)[0].decode(errors="replace").strip()

    def _drain_stdout(self):
        fd = self.proc.stdout.fileno()
        try:
            while os.read(fd, 65536):
                pass
        except OSError:
            pass

    def stderr_text(self):
        with open(self._stderr.name, "rb") as handle:
            return handle.read().decode(errors="replace")

    def connect(self, source=None, timeout=3):
        """A connected client socket, closed at teardown (before the server stops)."""
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sockets.append(sock)
        if source:
            sock.bind((source, 0))
        sock.settimeout(timeout)
        sock.connect((HOST, self.port))
        return sock

    def close_sockets(self):
        for sock in self.sockets:
            try:
                sock.close()
            except OSError:
                pass
        self.sockets.clear()

    def stop(self):
        """SIGTERM, then the exit status (SIGKILL and None when it does not stop in time)."""
        if self.returncode is not None or self.proc.poll() is not None:
            self.returncode = self.proc.returncode
            return self.returncode
        self.close_sockets()
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.returncode = self.proc.wait(STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            self.returncode = None
        return self.returncode

    def cleanup(self):
        try:
            self.proc.stdout.close()
        except OSError:
            pass
        try:
            os.unlink(self._stderr.name)
        except OSError:
            pass


@pytest.fixture
def server():
    """A factory: `server(*args, check_exit=True)` starts navstate with
    `--port 0 --log-level warning` plus `args`. At teardown every client socket it made is
    closed and every server gets SIGTERM; each must exit 0 unless started with
    check_exit=False."""
    started = []

    def start(*args, check_exit=True):
        instance = Server([str(arg) for arg in args])
        instance.check_exit = check_exit
        started.append(instance)
        return instance

    yield start
    problems = []
    for instance in started:
        code = instance.stop()
        if instance.check_exit and code != 0:
            problems.append(f"navstate {' '.join(instance.args)} exited {code} after SIGTERM; "
                            f"stderr tail: {instance.stderr_text()[-2000:]!r}")
        instance.cleanup()
    assert not problems, "\n".join(problems)


# ---------------------------------------------------------------------------------------------
# Raw HTTP


def recv_until_closed(sock, timeout):
    """Reads until the peer closes (or resets) the connection or `timeout` passes.
    Returns (bytes_received, closed)."""
    data = b""
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return data, False
        sock.settimeout(left)
        try:
            chunk = sock.recv(65536)
        except socket.timeout:
            return data, False
        except (ConnectionResetError, BrokenPipeError):
            return data, True
        if not chunk:
            return data, True
        data += chunk


def send_quietly(sock, data):
    """sendall that tolerates a peer which already answered and closed."""
    try:
        sock.sendall(data)
        return True
    except (BrokenPipeError, ConnectionResetError):
        return False


def raw(port, data, source=None, timeout=3):
    """Connects (from `source` when given), sends `data`, reads until the peer closes or
    `timeout` passes. Returns (bytes_received, closed)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        if source:
            sock.bind((source, 0))
        sock.settimeout(timeout)
        sock.connect((HOST, port))
        send_quietly(sock, data)
        return recv_until_closed(sock, timeout)
    finally:
        sock.close()


class Response:
    def __init__(self, status_line, headers, body):
        self.status_line = status_line  # e.g. "HTTP/1.1 200 OK"
        parts = status_line.split(" ", 2)
        self.version = parts[0]
        self.status = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else None
        self.headers = headers  # [(name, value)] in order
        self.body = body

    def header(self, name):
        values = self.all(name)
        return values[0] if values else None

    def all(self, name):
        return [value for key, value in self.headers if key.lower() == name.lower()]

    def json(self):
        return json.loads(self.body)

    def __repr__(self):
        return f"<{self.status_line} {self.headers} {self.body[:300]!r}>"


def parse_one(data):
    """Parses one response from the front of `data`: (Response, rest) or (None, data) when it is
    incomplete. Only Content-Length framing (navstate answers nothing else here)."""
    end = data.find(b"\r\n\r\n")
    if end < 0:
        return None, data
    head = data[:end].decode("latin-1").split("\r\n")
    headers = []
    for line in head[1:]:
        name, _, value = line.partition(":")
        headers.append((name.strip(), value.strip()))
    response = Response(head[0], headers, b"")
    length = response.header("Content-Length")
    length = int(length) if length is not None and length.isdigit() else 0
    if len(data) < end + 4 + length:
        return None, data
    response.body = data[end + 4:end + 4 + length]
    return response, data[end + 4 + length:]


def parse_all(data):
    """Every complete response in `data`, and the bytes left over."""
    responses = []
    while data:
        response, rest = parse_one(data)
        if response is None:
            break
        responses.append(response)
        data = rest
    return responses, data


def status_lines(data):
    """Every status line in `data`, whatever the framing says."""
    return [line.decode("latin-1")
            for line in re.findall(rb"(?:^|\r\n)(HTTP/\d\.\d \d{3}[^\r\n]*)", data)]


def read_response(sock, timeout=3):
    """Reads exactly one response from a kept-alive socket. Returns (Response or None, closed,
    extra bytes)."""
    data = b""
    deadline = time.monotonic() + timeout
    while True:
        response, rest = parse_one(data)
        if response is not None:
            return response, False, rest
        left = deadline - time.monotonic()
        if left <= 0:
            return None, False, data
        sock.settimeout(left)
        try:
            chunk = sock.recv(65536)
        except socket.timeout:
            return None, False, data
        except ConnectionResetError:
            return None, True, data
        if not chunk:
            return None, True, data
        data += chunk


def build_request(method, path, body=None, headers=None, host=HOST, close=True):
    """Request bytes. `body`: bytes as is, or a JSON value (adds Content-Type: application/json
    unless `headers` names a Content-Type)."""
    lines = [f"{method} {path} HTTP/1.1"]
    header_list = list(headers.items()) if isinstance(headers, dict) else list(headers or [])
    names = {name.lower() for name, _ in header_list}
    if host is not None and "host" not in names:
        lines.append(f"Host: {host}")
    if body is not None and not isinstance(body, (bytes, bytearray)):
        body = json.dumps(body).encode()
        if "content-type" not in names:
            header_list.append(("Content-Type", "application/json"))
    for name, value in header_list:
        lines.append(f"{name}: {value}")
    if body is not None:
        lines.append(f"Content-Length: {len(body)}")
    if close:
        lines.append("Connection: close")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + (bytes(body) if body else b"")


def request(port, method, path, body=None, headers=None, source=None, timeout=3, host=HOST):
    """One request on its own connection (Connection: close); the one response it got."""
    data, closed = raw(port, build_request(method, path, body, headers, host), source, timeout)
    responses, rest = parse_all(data)
    assert responses, f"{method} {path}: no complete response in {timeout} s: {data[:500]!r}"
    return responses[0]


def assert_served(port, source=None, within=1.0):
    """Another client gets GET /healthz answered 200 within `within` seconds."""
    started = time.monotonic()
    data, _ = raw(port, build_request("GET", "/healthz"), source, timeout=within)
    elapsed = time.monotonic() - started
    responses, _ = parse_all(data)
    assert responses and responses[0].status == 200, (
        f"/healthz from {source or HOST} not answered 200 within {within} s: {data[:300]!r}")
    assert responses[0].json() == {"status": "ok"}
    assert elapsed < within, f"/healthz took {elapsed:.2f} s"


def assert_problem(response, status, code):
    """The answer is `status` with an application/problem+json body of that `code`."""
    assert response.status == status, f"expected {status} {code}, got {response!r}"
    content_type = response.header("Content-Type") or ""
    assert content_type.split(";")[0].strip() == "application/problem+json", response
    problem = response.json()
    assert problem.get("code") == code, f"expected code {code}: {problem}"
    assert problem.get("status") == status, problem
    return problem


def assert_single_refusal(data, closed, status, code):
    """Exactly one response, `status` with problem `code`, nothing after it, connection closed."""
    assert status_lines(data) and status_lines(data)[0].startswith(f"HTTP/1.1 {status} "), (
        f"expected HTTP/1.1 {status}: {data[:600]!r}")
    responses, rest = parse_all(data)
    assert len(responses) == 1 and rest == b"", f"expected exactly one response: {data!r}"
    assert len(status_lines(data)) == 1, f"a second response followed: {data!r}"
    problem = assert_problem(responses[0], status, code)
    assert closed, f"the connection stayed open after {status}: {data!r}"
    return responses[0], problem


# ---------------------------------------------------------------------------------------------
# The API


def create_session(port, source=None, body=None, expect=201):
    """POST /v1/sessions (Content-Type: application/json, body {}): (response, id, token)."""
    response = request(port, "POST", "/v1/sessions", {} if body is None else body, source=source)
    assert response.status == expect, f"creation: {response!r}"
    if response.status != 201:
        return response, None, None
    created = response.json()
    return response, created["session"]["id"], created["token"]


def auth(token):
    return {"Authorization": f"Bearer {token}"}


def push(port, sid, token, body, source=None, timeout=3):
    return request(port, "POST", f"/v1/sessions/{sid}/push", body, auth(token), source, timeout)


def metric(port, name):
    """The value of an unlabelled metric in GET /metrics (`name 0` or `name 0.0`)."""
    response = request(port, "GET", "/metrics")
    assert response.status == 200, response
    for line in response.body.decode().splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == name:
            return float(parts[1])
    raise AssertionError(f"no metric {name} in /metrics")


def live_sessions(port):
    return metric(port, "navstate_live_sessions")
