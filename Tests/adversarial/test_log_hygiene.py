"""Log hygiene: a flood of refused connections is counted in a few summary lines, not logged one
line per connection (which would let any client fill the disk)."""
import re
import socket
import time

from conftest import HOST, assert_served, recv_until_closed

ATTEMPTS = 3000
SPREAD = 3.0  # seconds the attempts are spread over
BOUND = 15.0  # seconds at most, whatever happens


def attempt(port):
    """One connection over the cap: True when it is closed at once with nothing sent."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.settimeout(1.0)
        sock.connect((HOST, port))
        data, closed = recv_until_closed(sock, timeout=1.0)
        return closed and data == b""
    except ConnectionResetError:
        return True
    finally:
        sock.close()


def test_refused_connection_flood_is_summarised(server):
    srv = server("--max-connections", "10", "--log-level", "warning")
    held = [srv.connect() for _ in range(10)]
    time.sleep(0.3)
    started = time.monotonic()
    refused = made = 0
    while made < ATTEMPTS and time.monotonic() - started < BOUND:
        due = started + made * SPREAD / ATTEMPTS
        if due > time.monotonic():
            time.sleep(due - time.monotonic())
        refused += attempt(srv.port)
        made += 1
    elapsed = time.monotonic() - started
    print(f"\n{made} attempts in {elapsed:.1f} s, {refused} closed at once")
    assert made == ATTEMPTS, f"only {made} attempts in {BOUND} s"
    assert refused == made, f"{made - refused} of {made} over-cap connections were not closed at once"
    for sock in held:
        sock.close()
    time.sleep(0.2)
    assert_served(srv.port)
    assert srv.stop() == 0
    lines = srv.stderr_text().splitlines()
    print(f"{len(lines)} stderr lines; first ones: {lines[:5]}")
    assert len(lines) <= 20, f"{len(lines)} lines on stderr; the first: {lines[:5]}"

    def counts(line):
        # Numbers in the message, not in the leading timestamp.
        message = re.sub(r"\d{4}-\d{2}-\d{2}T\S*", "", line)
        return [int(number) for number in re.findall(r"\d+", message)]

    summaries = [line for line in lines
                 if re.search(r"refus|reject", line, re.I) and any(n >= 100 for n in counts(line))]
    assert summaries, f"no line counts the refused connections (>= 100): {lines}"
