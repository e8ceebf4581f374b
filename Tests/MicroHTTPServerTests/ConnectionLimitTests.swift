import NavStateTestSupport
import XCTest

@testable import MicroHTTPServer

/// Idle timeout and per-IP connection cap.
final class ConnectionLimitTests: XCTestCase {
  func testHalfRequestIsClosedAfterIdleTimeoutWhileOthersAreServed() throws {
    let server = try startTestServer { $0.connectionTimeoutSeconds = 1 }
    defer { server.shutdown(gracePeriodSeconds: 1) }
    let slow = try RawHTTPClient(port: server.port)
    let started = monotonicSeconds()
    try slow.send("GET /hello HTTP/1.1\r\nHost: te")  // and nothing more

    // Meanwhile other clients are served promptly.
    for _ in 0..<3 {
      let before = monotonicSeconds()
      XCTAssertEqual(try get("/hello", port: server.port).text, "hello")
      XCTAssertLessThan(monotonicSeconds() - before, 0.5)
    }

    XCTAssertTrue(slow.waitForClose(timeout: 4), "idle connection was not closed")
    let elapsed = monotonicSeconds() - started
    XCTAssertGreaterThan(elapsed, 0.8, "closed before the idle timeout")
    XCTAssertLessThan(elapsed, 3.5)
  }

  func testPerIPLimitRefusesThirdConnection() throws {
    let log = LogCollector()
    let server = try startTestServer {
      $0.connectionsPerIP = 2
      $0.errorLog = { log.append($0.text) }
    }
    defer { server.shutdown(gracePeriodSeconds: 1) }
    let first = try RawHTTPClient(port: server.port)
    let second = try RawHTTPClient(port: server.port)
    try first.send("GET /hello HTTP/1.1\r\nHost: test\r\n\r\n")
    XCTAssertEqual(try first.readResponse().status, 200)
    try second.send("GET /hello HTTP/1.1\r\nHost: test\r\n\r\n")
    XCTAssertEqual(try second.readResponse().status, 200)

    // Both stay open (keep-alive): a third one from the same address is closed unanswered.
    let third = try RawHTTPClient(port: server.port)
    try? third.send("GET /hello HTTP/1.1\r\nHost: test\r\n\r\n")
    XCTAssertThrowsError(try third.readResponse()) { error in
      XCTAssertEqual(error as? RawHTTPClient.Failure, .closed)
    }

    // libmicrohttpd said why, through the configured log (its printf-style message formatted).
    XCTAssertTrue(
      eventually { log.messages.contains { $0.contains("reached connection limit") } },
      "log: \(log.messages)")

    // Once one of the two goes away, a new connection is served again.
    first.close()
    XCTAssertTrue(
      eventually(timeout: 2) { (try? get("/hello", port: server.port).status) == 200 })
  }
}
