import NavStateTestSupport
import Synchronization
import XCTest

@testable import MicroHTTPServer

/// The HTTP edge made exact: what outside clients and an adversarial run found (HEAD on a
/// stream, whitespace after a framing value, absolute-form targets, two Authorization fields,
/// refusals missing from the request metrics).
final class ExactnessTests: XCTestCase {
  func testHeadOfAStreamIsItsHeadAloneAndTheStreamIsReleased() throws {
    let probe = StreamProbe()
    let server = try startTestServer(probe: probe)
    defer { server.shutdown(gracePeriodSeconds: 1) }
    let client = try RawHTTPClient(port: server.port)
    try client.send("HEAD /stream HTTP/1.1\r\nHost: test\r\n\r\n")
    let head = try client.readHead()
    XCTAssertEqual(head.status, 200)
    XCTAssertEqual(head.header("Content-Type"), "text/event-stream")
    // Nothing after the head (0.9.75 sent a last chunk, `0\r\n\r\n`, which a kept-alive client
    // read as the start of its next answer), and no length that a GET would not have.
    XCTAssertNil(head.header("Transfer-Encoding"))
    XCTAssertNil(head.header("Content-Length"))
    XCTAssertEqual(head.header("Connection")?.lowercased(), "close")
    XCTAssertEqual(try client.readToEnd(), [])
    XCTAssertTrue(eventually { probe.closes == 1 && server.openStreamCount == 0 })
    // The stream ended before it began: nothing written to it goes anywhere.
    XCTAssertFalse(try XCTUnwrap(probe.firstStream()).write(Array("late".utf8)))
  }

  func testWhitespaceAfterChunkedIsRefusedAtOnce() throws {
    let server = try startTestServer()
    defer { server.shutdown(gracePeriodSeconds: 1) }
    for value in ["chunked ", "chunked\t", "Chunked  "] {
      let client = try RawHTTPClient(port: server.port, receiveTimeout: 2)
      let started = monotonicSeconds()
      try client.send("POST /echo HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: \(value)\r\n\r\n")
      let response = try client.readResponse()
      XCTAssertEqual(response.status, 400, value)
      XCTAssertTrue(response.text.contains(#""code":"bad_transfer_encoding""#), value)
      XCTAssertLessThan(monotonicSeconds() - started, 1.5, "refused at once, not timed out")
    }
    // Whitespace before the value is dropped by both readers alike: a chunked body.
    let client = try RawHTTPClient(port: server.port)
    try client.send(
      "POST /echo HTTP/1.1\r\nHost: test\r\nTransfer-Encoding:   chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"
    )
    XCTAssertEqual(try client.readResponse().text, "abc")
  }

  func testAContentLengthWithWhitespaceAfterItIsRefusedNotWaitedFor() throws {
    let server = try startTestServer()
    defer { server.shutdown(gracePeriodSeconds: 1) }
    let client = try RawHTTPClient(port: server.port, receiveTimeout: 2)
    try client.send("POST /echo HTTP/1.1\r\nHost: test\r\nContent-Length: 3 \r\n\r\nabc")
    XCTAssertEqual(try client.readResponse().status, 400)
  }

  func testAbsoluteFormTargetsAreServedAsTheirOriginForm() throws {
    let server = try startTestServer()
    defer { server.shutdown(gracePeriodSeconds: 1) }
    for target in [
      "http://127.0.0.1/hello", "HTTP://localhost:8080/hello", "https://example.com/hello",
    ] {
      let response = try get(target, port: server.port)
      XCTAssertEqual(response.status, 200, target)
      XCTAssertEqual(response.text, "hello", target)
    }
    let query = try get("http://h/request-info?q=1", port: server.port)
    XCTAssertTrue(query.text.contains("|q=1|1|"), query.text)
    XCTAssertEqual(try get("http://h", port: server.port).status, 404)
  }

  func testTheAuthorityOfAnAbsoluteTargetIsTheHostThatIsChecked() throws {
    let server = try startTestServer { $0.allowedHosts = ["example.com"] }
    defer { server.shutdown(gracePeriodSeconds: 1) }
    func status(_ target: String, host: String) throws -> Int {
      let client = try RawHTTPClient(port: server.port)
      try client.send("GET \(target) HTTP/1.1\r\nHost: \(host)\r\n\r\n")
      return try client.readResponse().status
    }
    XCTAssertEqual(try status("http://example.com:8080/hello", host: "other.test"), 200)
    XCTAssertEqual(try status("http://other.test/hello", host: "example.com"), 421)
    XCTAssertEqual(try status("/hello", host: "example.com"), 200)
  }

  func testTwoAuthorizationFieldsAreRefused() throws {
    let server = try startTestServer()
    defer { server.shutdown(gracePeriodSeconds: 1) }
    let client = try RawHTTPClient(port: server.port)
    try client.send(
      "GET /hello HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer a\r\nauthorization: Bearer b\r\n\r\n"
    )
    let response = try client.readResponse()
    XCTAssertEqual(response.status, 400)
    XCTAssertTrue(response.text.contains(#""code":"bad_authorization""#))
    let one = try RawHTTPClient(port: server.port)
    try one.send("GET /hello HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer a\r\n\r\n")
    XCTAssertEqual(try one.readResponse().status, 200)
  }

  func testEveryAnsweredRequestIsObservedRefusalsIncluded() throws {
    let seen = Mutex<[(route: String?, method: String, status: Int)]>([])
    var router = Router { summary in
      seen.withLock { $0.append((summary.route, summary.method, summary.status)) }
    }
    router.add("POST", "/echo") { request, _ in HTTPResponse(status: 200, body: request.body) }
    let server = try startTestServer(router: router) {
      $0.maxBodyBytes = 16
      $0.headerTimeoutSeconds = 0.5
    }
    defer { server.shutdown(gracePeriodSeconds: 1) }
    func send(_ text: String) throws -> Int {
      let client = try RawHTTPClient(port: server.port)
      try client.send(text)
      return try client.readResponse().status
    }
    // Refused by the server's own checks, before any route.
    XCTAssertEqual(try send("POST /echo HTTP/1.1\r\nHost: t\r\nBad : x\r\n\r\n"), 400)
    XCTAssertEqual(try send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 99\r\n\r\n"), 413)
    // Refused by libmicrohttpd itself: headers past the connection's memory, a length it
    // cannot read.
    let big = String(repeating: "x", count: 40_000)
    XCTAssertEqual(try send("POST /echo HTTP/1.1\r\nHost: t\r\nX-Big: \(big)\r\n\r\n"), 431)
    XCTAssertEqual(try send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 2 \r\n\r\nab"), 400)
    // Timed out by the deadline sweeper.
    let slow = try RawHTTPClient(port: server.port)
    try slow.send("POST /echo HTTP/1.1\r\nHost: t\r\n")
    XCTAssertEqual(try slow.readResponse().status, 408)
    // And one that a route answered.
    XCTAssertEqual(try send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\n\r\nok"), 200)
    XCTAssertTrue(eventually { seen.withLock { $0.count } == 6 })
    let observed = seen.withLock { $0 }
    XCTAssertEqual(observed.map(\.status).sorted(), [200, 400, 400, 408, 413, 431])
    XCTAssertEqual(observed.filter { $0.route == nil }.count, 5)
    XCTAssertEqual(observed.first { $0.status == 413 }?.method, "POST")
  }

  func testAbsoluteFormIsSplitIntoAuthorityAndOriginForm() {
    func split(_ target: String) -> [String]? {
      RequestTarget.absoluteForm(target).map { [String($0.authority), $0.originForm] }
    }
    XCTAssertEqual(split("http://a.test:80/x/y?q=1"), ["a.test:80", "/x/y?q=1"])
    XCTAssertEqual(split("HTTPS://[::1]:8443/"), ["[::1]:8443", "/"])
    XCTAssertEqual(split("http://a.test"), ["a.test", "/"])
    XCTAssertEqual(split("http://a.test?q"), ["a.test", "/?q"])
    XCTAssertNil(split("/x"))
    XCTAssertNil(split("*"))
    XCTAssertNil(split("ftp://a.test/x"))
  }

  func testFramingRefusesWhitespaceAfterChunkedButNotBeforeTheCheck() {
    XCTAssertEqual(
      RequestFraming.decide(
        contentLengths: [], transferEncodings: ["chunked "], maxBodyBytes: 10),
      .reject(
        status: 400, code: "bad_transfer_encoding",
        detail: "Send \"Transfer-Encoding: chunked\" with no whitespace after the value."))
    XCTAssertEqual(
      RequestFraming.decide(contentLengths: [], transferEncodings: ["CHUNKED"], maxBodyBytes: 10),
      .readBody(expectedLength: nil))
    if case .reject(let status, _, _) = RequestFraming.decide(
      contentLengths: [], transferEncodings: ["gzip "], maxBodyBytes: 10)
    {
      XCTAssertEqual(status, 501)
    } else {
      XCTFail("gzip is not read")
    }
  }
}
