"""Browser safety: nosniff on every answer, a strict CSP and framing refusal on the page, and
Host names checked against --allowed-host (421 for others)."""
import pytest

from conftest import assert_problem, assert_served, request

NOSNIFF_CASES = {
    "200-healthz": ("GET", "/healthz", 200, None),
    "404-unknown-path": ("GET", "/nope", 404, "not_found"),
    "405-wrong-method": ("DELETE", "/healthz", 405, "method_not_allowed"),
    "401-problem": ("GET", "/v1/sessions/xxxxxxxxxxxxxxxxxxxxxx", 401, "unauthorized"),
}


@pytest.mark.parametrize("method,path,status,code", NOSNIFF_CASES.values(),
                         ids=NOSNIFF_CASES.keys())
def test_every_answer_has_nosniff(server, method, path, status, code):
    srv = server()
    response = request(srv.port, method, path)
    if code:
        assert_problem(response, status, code)
    else:
        assert response.status == status, response
    assert response.all("X-Content-Type-Options") == ["nosniff"], response
    assert_served(srv.port)


def test_page_has_strict_csp_and_refuses_framing(server):
    srv = server()
    response = request(srv.port, "GET", "/")
    assert response.status == 200, response
    assert response.header("Content-Type").startswith("text/html"), response
    policies = response.all("Content-Security-Policy")
    assert len(policies) == 1, response
    policy = policies[0]
    assert "frame-ancestors 'none'" in policy, policy
    assert "script-src 'self'" in policy, policy
    assert "unsafe-inline" not in policy, policy
    assert "unsafe-eval" not in policy, policy
    assert response.header("Referrer-Policy") == "no-referrer", response
    assert response.header("X-Frame-Options") == "DENY", response
    assert response.header("X-Content-Type-Options") == "nosniff", response
    assert_served(srv.port)


@pytest.mark.parametrize("path", ["/app.js", "/graph.js", "/qr.js", "/app.css", "/favicon.ico"])
def test_page_assets_are_served(server, path):
    srv = server()
    response = request(srv.port, "GET", path)
    assert response.status == 200, response
    assert response.body, response
    assert response.header("X-Content-Type-Options") == "nosniff", response
    assert_served(srv.port)


ALLOWED = ("--allowed-host", "navstate.example", "--allowed-host", "localhost")


def test_host_not_allowed_is_421(server):
    srv = server(*ALLOWED)
    response = request(srv.port, "GET", "/healthz", host="evil.example")
    assert_problem(response, 421, "misdirected_request")
    assert response.header("X-Content-Type-Options") == "nosniff", response
    # An allowed client is served meanwhile.
    served = request(srv.port, "GET", "/healthz", host="localhost", timeout=1)
    assert served.status == 200, served


@pytest.mark.parametrize("host", ["localhost:{port}", "NAVSTATE.EXAMPLE"])
def test_allowed_host_is_served(server, host):
    srv = server(*ALLOWED)
    response = request(srv.port, "GET", "/healthz", host=host.format(port=srv.port))
    assert response.status == 200, response
    assert response.json() == {"status": "ok"}
