import NavStateTestSupport
import Synchronization
import XCTest

@testable import MicroHTTPServer

/// Routing through the real server, over real sockets.
final class RoutingOverSocketTests: XCTestCase {
  func testRouteWithPathParameters() throws {
    let server = try startTestServer()
    defer { server.shutdown(gracePeriodSeconds: 1) }
    let response = try get("/v1/sessions/s%201/coordinators/c-2", port: server.port)
    XCTAssertEqual(response.status, 200)
    XCTAssertEqual(response.text, "sid=s 1 cid=c-2")
  }

  func testNotFoundIsProblemJSON() throws {
    let server = try startTestServer()
    defer { server.shutdown(gracePeriodSeconds: 1) }
    let response = try get("/nope", port: server.port)
    XCTAssertEqual(response.status, 404)
    XCTAssertEqual(response.header("Content-Type"), "application/problem+json")
    XCTAssertTrue(response.text.contains(#""code":"not_found""#))
  }

  func testMethodNotAllowedListsAllow() throws {
    let server = try startTestServer()
    defer { server.shutdown(gracePeriodSeconds: 1) }
    let client = try RawHTTPClient(port: server.port)
    try client.send("DELETE /hello HTTP/1.1\r\nHost: test\r\n\r\n")
    let response = try client.readResponse()
    XCTAssertEqual(response.status, 405)
    XCTAssertEqual(response.header("Allow"), "GET, HEAD")
    XCTAssertTrue(response.text.contains(#""code":"method_not_allowed""#))
  }

  func testHeadGetsHeadersWithoutBody() throws {
    let server = try startTestServer()
    defer { server.shutdown(gracePeriodSeconds: 1) }
    let client = try RawHTTPClient(port: server.port)
    try client.send("HEAD /hello HTTP/1.1\r\nHost: test\r\n\r\n")
    let head = try client.readResponse(method: "HEAD")
    XCTAssertEqual(head.status, 200)
    XCTAssertEqual(head.header("Content-Length"), "5")
    // The same connection then answers a GET: no stray body bytes were sent after the HEAD.
    try client.send("GET /hello HTTP/1.1\r\nHost: test\r\n\r\n")
    let next = try client.readResponse()
    XCTAssertEqual(next.status, 200)
    XCTAssertEqual(next.text, "hello")
  }

  func testRequestSeesRawQueryRemoteAddressAndLargeHeaders() throws {
    let server = try startTestServer()
    defer { server.shutdown(gracePeriodSeconds: 1) }
    let client = try RawHTTPClient(port: server.port)
    let big = String(repeating: "a", count: 8000)
    try client.send(
      "GET /request-info?q=a%26b+c&z=1 HTTP/1.1\r\nHost: test\r\nX-Big: \(big)\r\n\r\n")
    let response = try client.readResponse()
    XCTAssertEqual(response.status, 200)
    XCTAssertEqual(response.text, "127.0.0.1|q=a%26b+c&z=1|a&b c|8000")
  }

  /// Headers are read from libmicrohttpd's buffer on demand, which is reused once the handler
  /// returns: a request kept past that must read as empty, never as freed memory.
  func testAKeptRequestReadsNoHeadersOnceItsHandlerReturned() throws {
    let probe = StreamProbe()
    let server = try startTestServer(probe: probe)
    defer { server.shutdown(gracePeriodSeconds: 1) }
    let client = try RawHTTPClient(port: server.port)
    try client.send("GET /keep HTTP/1.1\r\nHost: test\r\nX-Tag: kept\r\n\r\n")
    let response = try client.readResponse()
    XCTAssertEqual(response.text, "kept")  // while the handler ran
    let kept = try XCTUnwrap(probe.keptRequest.withLock { $0 })
    XCTAssertNil(kept.headers["x-tag"])
    XCTAssertTrue(kept.headers.pairs.isEmpty)
    XCTAssertNil(kept.headers.withFirstValue("x-tag") { $0.map(Array.init) })
    XCTAssertEqual(kept.remoteAddress, "")
  }

  /// An address read while the handler ran stays with a kept request.
  func testAKeptRequestKeepsTheAddressItsHandlerRead() throws {
    let probe = StreamProbe()
    let server = try startTestServer(probe: probe)
    defer { server.shutdown(gracePeriodSeconds: 1) }
    let client = try RawHTTPClient(port: server.port)
    try client.send("GET /keep-address HTTP/1.1\r\nHost: test\r\n\r\n")
    XCTAssertEqual(try client.readResponse().text, "127.0.0.1")
    let kept = try XCTUnwrap(probe.keptRequest.withLock { $0 })
    XCTAssertEqual(kept.remoteAddress, "127.0.0.1")
    XCTAssertTrue(kept.headers.pairs.isEmpty)
  }

  /// Lookups read the fields where libmicrohttpd reported them: the first of a name, in any
  /// case, an empty value as empty, and no field for a name of the same length that differs.
  /// One connection, so each request reuses the one before's state (`/tag` keeps none).
  func testHeaderLookupsTakeTheFirstFieldOfANameInAnyCase() throws {
    let server = try startTestServer()
    defer { server.shutdown(gracePeriodSeconds: 1) }
    let client = try RawHTTPClient(port: server.port)
    let cases: [(fields: String, expected: String)] = [
      ("X-TAG: first\r\nx-tag: second\r\n", "first"),
      ("x-tab: near\r\nX-Tag: exact\r\n", "exact"),
      ("X-Tag:\r\n", ""),
      ("X-Tab: near\r\nX-Tagged: longer\r\n", "-"),
      ("", "-"),
    ]
    for (fields, expected) in cases + cases {
      try client.send("GET /tag HTTP/1.1\r\nHost: test\r\n\(fields)\r\n")
      let response = try client.readResponse()
      XCTAssertEqual(response.status, 200, fields)
      XCTAssertEqual(response.text, expected, fields)
    }
  }

  func testKeepAliveAnswersTwoRequestsOnOneConnection() throws {
    let server = try startTestServer()
    defer { server.shutdown(gracePeriodSeconds: 1) }
    let client = try RawHTTPClient(port: server.port)
    try client.send("GET /hello HTTP/1.1\r\nHost: test\r\n\r\n")
    let first = try client.readResponse()
    XCTAssertEqual(first.status, 200)
    XCTAssertNotEqual(first.header("Connection")?.lowercased(), "close")
    try client.send("POST /echo HTTP/1.1\r\nHost: test\r\nContent-Length: 3\r\n\r\nabc")
    let second = try client.readResponse()
    XCTAssertEqual(second.status, 200)
    XCTAssertEqual(second.text, "abc")
    try client.send("GET /hello HTTP/1.1\r\nHost: test\r\n\r\n")
    XCTAssertEqual(try client.readResponse().text, "hello")
  }

  func testPortInUseIsATypedError() throws {
    let server = try startTestServer()
    defer { server.shutdown(gracePeriodSeconds: 1) }
    XCTAssertThrowsError(try startTestServer { $0.port = server.port }) { error in
      XCTAssertEqual(error as? HTTPServerError, .addressInUse(host: "127.0.0.1", port: server.port))
      XCTAssertTrue(String(describing: error).contains("already in use"))
    }
  }
}
