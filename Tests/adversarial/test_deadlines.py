"""Deadlines: a request's head and body must arrive in time however slowly they trickle (one
byte at a time resets any idle timer), and an idle kept-alive connection is closed. Others are
served meanwhile."""
import select
import time

from conftest import (assert_problem, assert_served, build_request, parse_all, read_response,
                      recv_until_closed, send_quietly)

TRICKLE = 0.3  # seconds between bytes
BOUND = 8.0  # no trickle runs longer than this, whatever the server does


def trickle(sock, payload, started, bound=BOUND, during=None):
    """Sends `payload` one byte per TRICKLE seconds until the server sends something or closes,
    or `bound` seconds pass since `started`. Calls `during()` once, after the second byte.
    Returns (bytes_received, closed, seconds since `started` when the answer or close came)."""
    index = 0
    while time.monotonic() - started < bound:
        if index < len(payload):
            if not send_quietly(sock, payload[index:index + 1]):
                break
            index += 1
        if index == 2 and during:
            during()
            during = None
        readable = select.select([sock], [], [], TRICKLE)[0]
        if readable:
            break
    answered = time.monotonic() - started
    data, closed = recv_until_closed(sock, timeout=max(0.5, bound - answered))
    return data, closed, answered


def assert_408(data, closed):
    responses, rest = parse_all(data)
    assert len(responses) == 1 and rest == b"", f"expected exactly one 408: {data!r}"
    assert responses[0].status_line.startswith("HTTP/1.1 408 "), responses[0]
    assert_problem(responses[0], 408, "request_timeout")
    assert closed, "the connection stayed open after the 408"


def test_slowloris_head_gets_408_within_the_header_deadline(server):
    srv = server("--header-timeout", "1")
    started = time.monotonic()
    sock = srv.connect()
    sock.sendall(b"GET /healthz HTTP/1.1\r\n")
    data, closed, answered = trickle(sock, b"X-Slow: " + b"a" * 40 + b"\r\n", started,
                                     during=lambda: assert_served(srv.port))
    assert_408(data, closed)
    # The deadline is kept in whole milliseconds, so allow a little under a second.
    assert 0.95 <= answered <= 2.5, f"answered {answered:.2f} s after connecting"
    assert_served(srv.port)


def test_trickled_body_gets_408_within_the_body_deadline(server):
    # Deadline: header timeout + a second per 4 KiB = 1 + 2000/4096 ≈ 1.5 s after the head.
    srv = server("--header-timeout", "1")
    sock = srv.connect()
    sock.sendall(b"POST /v1/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                 b"Content-Type: application/json\r\nContent-Length: 2000\r\n\r\n")
    started = time.monotonic()
    data, closed, answered = trickle(sock, b"{" + b" " * 1998 + b"}", started,
                                     during=lambda: assert_served(srv.port))
    assert_408(data, closed)
    assert 1.2 <= answered <= 3.0, f"answered {answered:.2f} s after the head"
    assert_served(srv.port)


def test_kept_alive_connection_trickling_its_next_request_is_closed(server):
    # After a complete exchange the next request line may wait for the idle timeout (2 s), then
    # must be complete within the header timeout (1 s): closed about 3 s after the answer.
    srv = server("--idle-timeout", "2", "--header-timeout", "1")
    sock = srv.connect()
    sock.sendall(build_request("GET", "/healthz", close=False))
    first, closed, extra = read_response(sock, timeout=2)
    assert first is not None and first.status == 200 and not closed and extra == b"", first
    started = time.monotonic()
    data, closed, answered = trickle(
        sock, b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: aaaaaaaaaaaa\r\n\r\n",
        started, during=lambda: assert_served(srv.port))
    assert closed, f"still open {answered:.2f} s after the first answer: {data!r}"
    assert 2.5 <= answered <= 4.5, f"closed {answered:.2f} s after the first answer"
    if data:  # a 408 is allowed here, but nothing else
        assert_408(data, closed)
    assert_served(srv.port)


def test_idle_kept_alive_connection_is_closed_by_the_idle_timeout(server):
    srv = server("--idle-timeout", "2")
    sock = srv.connect()
    sock.sendall(build_request("GET", "/healthz", close=False))
    first, closed, extra = read_response(sock, timeout=2)
    assert first is not None and first.status == 200 and not closed and extra == b"", first
    started = time.monotonic()
    assert_served(srv.port)
    data, closed = recv_until_closed(sock, timeout=5)
    elapsed = time.monotonic() - started
    assert closed, f"an idle connection was still open after {elapsed:.2f} s"
    assert 1.5 <= elapsed <= 3.5, f"closed {elapsed:.2f} s after the answer (idle timeout 2 s)"
    if data:  # nothing is required; if anything, one 408
        assert_408(data, closed)
    assert_served(srv.port)
