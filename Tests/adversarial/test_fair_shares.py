"""Fair shares: one client address may hold only its share of the sessions (429 past it, with
Retry-After), so that one client cannot take every session from the others."""
from conftest import (OTHER_SOURCE, assert_problem, assert_served, auth, create_session,
                      request)


def assert_share_refused(response):
    assert_problem(response, 429, "too_many_sessions_for_client")
    retry = response.header("Retry-After")
    assert retry is not None and retry.isdigit() and int(retry) >= 1, response


def test_per_address_session_cap(server):
    srv = server("--max-sessions", "100", "--max-sessions-per-ip", "3")
    sessions = [create_session(srv.port)[1:] for _ in range(3)]
    refused, _, _ = create_session(srv.port, expect=429)
    assert_share_refused(refused)
    # Another address still gets its share, and others are served.
    create_session(srv.port, source=OTHER_SOURCE)
    assert_served(srv.port)
    # Deleting one gives the share back.
    sid, token = sessions[0]
    deleted = request(srv.port, "DELETE", f"/v1/sessions/{sid}", headers=auth(token))
    assert deleted.status == 204, deleted
    create_session(srv.port)
    refused, _, _ = create_session(srv.port, expect=429)
    assert_share_refused(refused)
