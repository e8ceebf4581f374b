import NavStateTestSupport
import Synchronization
import XCTest

@testable import MicroHTTPServer

/// Constant routes: answered without building the request, for exactly their method and path,
/// and seen by observers like any other.
final class ConstantRouteTests: XCTestCase {
  private static let ok = HTTPResponse(
    status: 200, headers: HTTPHeaders([("Content-Type", "text/plain")]), body: Array("ok".utf8))

  private func body(_ response: HTTPResponse?) -> String? {
    guard let response, case .bytes(let bytes) = response.body else { return nil }
    return String(decoding: bytes, as: UTF8.self)
  }

  func testAnswersItsMethodAndPathWhateverTheQuery() {
    var router = Router()
    router.add("GET", "/healthz", constant: Self.ok)
    router.add("GET", "/other") { _, _ in HTTPResponse(status: 200, body: []) }
    XCTAssertEqual(body(router.constantResponse(method: "GET", target: "/healthz")?.response), "ok")
    XCTAssertNotNil(router.constantResponse(method: "GET", target: "/healthz?verbose=1"))
    XCTAssertNotNil(router.constantResponse(method: "GET", target: "/healthz")?.prepared)
    // Anything else goes through `handle`: other methods (HEAD too), paths, and prefixes.
    XCTAssertNil(router.constantResponse(method: "HEAD", target: "/healthz"))
    XCTAssertNil(router.constantResponse(method: "POST", target: "/healthz"))
    XCTAssertNil(router.constantResponse(method: "GET", target: "/healthz/"))
    XCTAssertNil(router.constantResponse(method: "GET", target: "/health"))
    XCTAssertNil(router.constantResponse(method: "GET", target: "/other"))
    XCTAssertNil(router.constantResponse(method: "GET", target: ""))
    // `handle` answers the same for it.
    XCTAssertEqual(body(router.handle(HTTPRequest(method: "GET", path: "/healthz"))), "ok")
    XCTAssertEqual(router.handle(HTTPRequest(method: "HEAD", path: "/healthz")).status, 200)
  }

  /// Constants are ruled out by the path's length first: paths of several lengths, and of 63
  /// bytes or more (which share one bit of the length mask), still match only themselves.
  func testConstantsOfManyLengthsMatchOnlyThemselves() {
    let long = "/" + String(repeating: "a", count: 70)
    let longer = "/" + String(repeating: "b", count: 99)
    var router = Router()
    for path in ["/", "/a.css", "/healthz", long, longer] {
      router.add("GET", path, constant: HTTPResponse(status: 200, body: Array(path.utf8)))
    }
    for path in ["/", "/a.css", "/healthz", long, longer] {
      XCTAssertEqual(body(router.constantResponse(method: "GET", target: path)?.response), path)
      XCTAssertEqual(
        body(router.constantResponse(method: "GET", target: path + "?q=1")?.response), path)
    }
    let sameLengthAsLong = "/" + String(repeating: "c", count: 70)
    for path in ["/b.css", "/healthy", sameLengthAsLong, "/" + String(repeating: "a", count: 80)] {
      XCTAssertNil(router.constantResponse(method: "GET", target: path), path)
    }
  }

  func testAHandlerRegisteredLaterReplacesTheConstant() {
    var router = Router()
    router.add("GET", "/healthz", constant: Self.ok)
    router.add("GET", "/healthz") { _, _ in HTTPResponse(status: 503, body: []) }
    XCTAssertNil(router.constantResponse(method: "GET", target: "/healthz"))
    XCTAssertEqual(router.handle(HTTPRequest(method: "GET", path: "/healthz")).status, 503)
  }

  func testObserversSeeConstantAnswers() {
    let seen = Mutex<[String]>([])
    var router = Router(observers: { pattern in
      { summary in
        seen.withLock {
          $0.append(
            "\(pattern ?? "-") \(summary.method) \(summary.status) \(summary.nanoseconds)")
        }
      }
    })
    router.add("GET", "/healthz", constant: Self.ok)
    _ = router.constantResponse(method: "GET", target: "/healthz")
    // A constant answer runs no handler: no handler time.
    XCTAssertEqual(seen.withLock { $0 }, ["/healthz GET 200 0"])
  }

  func testOverASocketConstantAndOtherRequestsAlternateOnOneConnection() throws {
    var router = Router()
    router.add("GET", "/healthz", constant: Self.ok)
    router.add("POST", "/echo") { request, _ in HTTPResponse(status: 200, body: request.body) }
    let server = try startTestServer(router: router)
    defer { server.shutdown(gracePeriodSeconds: 1) }
    let client = try RawHTTPClient(port: server.port)
    // The connection's request state is reused from one request to the next: each request
    // must see only its own method, body and framing.
    for round in 0..<3 {
      try client.send("GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n")
      let health = try client.readResponse()
      XCTAssertEqual(health.status, 200)
      XCTAssertEqual(health.text, "ok")
      XCTAssertEqual(health.header("Content-Type"), "text/plain")
      let payload = "round \(round)"
      try client.send(
        "POST /echo HTTP/1.1\r\nHost: test\r\nContent-Length: \(payload.utf8.count)\r\n\r\n\(payload)"
      )
      let echoed = try client.readResponse()
      XCTAssertEqual(echoed.status, 200)
      XCTAssertEqual(echoed.text, payload)
      try client.send("HEAD /healthz HTTP/1.1\r\nHost: test\r\n\r\n")
      let head = try client.readResponse(method: "HEAD")
      XCTAssertEqual(head.status, 200)
      XCTAssertEqual(head.header("Content-Length"), "2")
    }
  }

  func testABodyBufferIsSentWholeAndGivenBackOnce() throws {
    let payload = Array(String(repeating: "0123456789", count: 300).utf8)
    var router = Router()
    router.add("GET", "/buffer") { _, _ in
      let start = UnsafeMutableRawPointer.allocate(byteCount: payload.count, alignment: 1)
      start.copyMemory(from: payload, byteCount: payload.count)
      return HTTPResponse(
        status: 200,
        body: BodyBuffer(
          taking: start, count: payload.count, capacity: payload.count,
          deallocate: countingDeallocate))
    }
    let server = try startTestServer(router: router)
    defer { server.shutdown(gracePeriodSeconds: 1) }
    let client = try RawHTTPClient(port: server.port)
    let before = bodyBuffersGivenBack.load(ordering: .acquiring)
    for _ in 0..<3 {
      try client.send("GET /buffer HTTP/1.1\r\nHost: test\r\n\r\n")
      let response = try client.readResponse()
      XCTAssertEqual(response.status, 200)
      XCTAssertEqual(response.header("Content-Length"), "\(payload.count)")
      XCTAssertEqual(Array(response.text.utf8), payload)
    }
    // Given back once MHD has sent each (it lets go right after the send).
    var given = 0
    for _ in 0..<200 {
      given = bodyBuffersGivenBack.load(ordering: .acquiring) - before
      if given >= 3 { break }
      usleep(10_000)
    }
    XCTAssertEqual(given, 3)
  }
}

private let bodyBuffersGivenBack = Atomic<Int>(0)

private func countingDeallocate(_ start: UnsafeMutableRawPointer, _ capacity: Int) {
  start.deallocate()
  bodyBuffersGivenBack.add(1, ordering: .releasing)
}
