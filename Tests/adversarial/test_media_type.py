"""415: a body must be declared as JSON (application/json or another +json type)."""
import pytest

from conftest import assert_problem, assert_served, live_sessions, request

REFUSED = {
    "no-Content-Type": [],
    "text/plain": [("Content-Type", "text/plain")],
}


@pytest.mark.parametrize("headers", REFUSED.values(), ids=REFUSED.keys())
def test_creation_with_a_body_not_declared_json_is_415(server, headers):
    srv = server()
    response = request(srv.port, "POST", "/v1/sessions", b"{}", headers)
    assert_problem(response, 415, "unsupported_media_type")
    assert live_sessions(srv.port) == 0
    assert_served(srv.port)


def test_creation_with_application_json_is_201(server):
    srv = server()
    response = request(srv.port, "POST", "/v1/sessions", b"{}",
                       [("Content-Type", "application/json")])
    assert response.status == 201, response
    assert set(response.json()) == {"session", "token"}
    assert live_sessions(srv.port) == 1
    assert_served(srv.port)
