"""Exact JSON: numbers are read exactly (no detour through Double), out-of-range or fractional
ints are refused, duplicate keys are malformed, and a huge input is not echoed back."""
import json
import re

import pytest

from conftest import assert_problem, assert_served, auth, create_session, request


def push_raw(srv, body):
    """A push of these exact JSON bytes on a new session."""
    _, sid, token = create_session(srv.port)
    return request(srv.port, "POST", f"/v1/sessions/{sid}/push", body,
                   {**auth(token), "Content-Type": "application/json"})


@pytest.mark.parametrize("value", [9007199254740993, -9223372036854775808],
                         ids=["2^53+1", "Int64.min"])
def test_int_param_is_kept_exactly(server, value):
    srv = server()
    response = push_raw(srv, b'{"route":"detail","params":{"id":%d}}' % value)
    assert response.status == 200, response
    top = json.loads(response.body)["session"]["path"][-1]  # Python keeps big ints exact
    assert top["route"] == "detail", top
    assert type(top["params"]["id"]) is int and top["params"]["id"] == value, top
    assert_served(srv.port)


@pytest.mark.parametrize("raw_id", [b"1e-999", b"1.5", b"9223372036854775808"],
                         ids=["underflows-to-zero", "fraction", "Int64.max+1"])
def test_int_param_that_is_not_an_int64_is_422(server, raw_id):
    srv = server()
    response = push_raw(srv, b'{"route":"detail","params":{"id":' + raw_id + b"}}")
    problem = assert_problem(response, 422, "invalid_params")
    assert re.search(r"\bid\b", problem.get("detail", "")), f"detail does not name id: {problem}"
    assert_served(srv.port)


def test_duplicate_key_is_malformed_json(server):
    srv = server()
    response = push_raw(srv, b'{"route":"detail","route":"settings"}')
    assert_problem(response, 400, "malformed_json")
    assert_served(srv.port)


def test_huge_route_name_is_not_echoed_back(server):
    srv = server("--max-body-bytes", "2000000")
    response = push_raw(srv, b'{"route":"' + b"a" * 1_000_000 + b'"}')
    assert_problem(response, 422, "unknown_route")
    assert len(response.body) < 1000, f"problem body of {len(response.body)} bytes"
    assert_served(srv.port)
