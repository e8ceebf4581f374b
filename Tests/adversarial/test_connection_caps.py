"""Connection caps: past the limit (in total, or per client address) a new connection is closed
at once rather than left hanging in the backlog, and room made by closing is usable again."""
import time

from conftest import OTHER_SOURCE, assert_served, recv_until_closed


def hold(srv, count, source=None):
    """`count` idle connections (nothing sent), given a moment to be accepted."""
    sockets = [srv.connect(source=source) for _ in range(count)]
    time.sleep(0.3)
    return sockets


def assert_closed_at_once(srv, source=None):
    started = time.monotonic()
    sock = srv.connect(source=source)  # the kernel completes the handshake: this succeeds
    data, closed = recv_until_closed(sock, timeout=1.0)
    elapsed = time.monotonic() - started
    assert closed, f"a connection over the cap was left open (hanging) for {elapsed:.2f} s"
    assert data == b"", f"a connection over the cap got bytes: {data!r}"
    assert elapsed < 1.0, f"closed only after {elapsed:.2f} s"


def test_connection_over_the_total_cap_is_closed_at_once(server):
    srv = server("--max-connections", "20")
    held = hold(srv, 20)
    assert_closed_at_once(srv)
    for sock in held[:5]:
        sock.close()
    time.sleep(0.2)
    assert_served(srv.port)
    # The 15 still held were not disturbed: still open.
    for sock in held[5:]:
        sock.setblocking(False)
        try:
            assert sock.recv(1) != b"", "a held connection was closed"
        except BlockingIOError:
            pass


def test_connection_over_the_per_address_cap_is_closed_at_once(server):
    srv = server("--max-connections-per-ip", "5")
    held = hold(srv, 5, source=OTHER_SOURCE)
    assert_closed_at_once(srv, source=OTHER_SOURCE)
    # Another address is not affected while 127.0.0.2 is at its cap.
    assert_served(srv.port)
    held[0].close()
    time.sleep(0.2)
    assert_served(srv.port, source=OTHER_SOURCE)
