import Dispatch
import NavStateTestSupport
import XCTest

@testable import MicroHTTPServer

final class ShutdownTests: XCTestCase {
  func testShutdownLetsInFlightRequestFinish() throws {
    let server = try startTestServer()
    let client = try RawHTTPClient(port: server.port)
    try client.send("GET /slow HTTP/1.1\r\nHost: test\r\n\r\n")
    XCTAssertTrue(eventually { server.inFlightRequestCount == 1 })

    let done = DispatchSemaphore(value: 0)
    let started = monotonicSeconds()
    DispatchQueue.global().async {
      server.shutdown(gracePeriodSeconds: 5)
      done.signal()
    }
    let response = try client.readResponse()
    XCTAssertEqual(response.status, 200)
    XCTAssertEqual(response.text, "slow done")
    XCTAssertEqual(response.header("Connection")?.lowercased(), "close")
    XCTAssertEqual(done.wait(timeout: .now() + 3), .success)
    XCTAssertLessThan(monotonicSeconds() - started, 2)
    // The listener is gone.
    XCTAssertThrowsError(try RawHTTPClient(port: server.port))
  }

  func testShutdownIsIdempotentAndHooksRunOnce() throws {
    let server = try startTestServer()
    let runs = HookCounter()
    server.onShutdown { runs.increment() }
    XCTAssertEqual(try get("/hello", port: server.port).status, 200)
    server.shutdown(gracePeriodSeconds: 1)
    server.shutdown(gracePeriodSeconds: 1)
    XCTAssertEqual(runs.value, 1)
  }

  func testIdleKeepAliveConnectionDoesNotDelayShutdown() throws {
    let server = try startTestServer()
    let client = try RawHTTPClient(port: server.port)
    try client.send("GET /hello HTTP/1.1\r\nHost: test\r\n\r\n")
    XCTAssertEqual(try client.readResponse().status, 200)
    let started = monotonicSeconds()
    server.shutdown(gracePeriodSeconds: 5)
    XCTAssertLessThan(monotonicSeconds() - started, 1)
    XCTAssertTrue(client.waitForClose(timeout: 1))
  }
}
