import Glibc
import NavStateTestSupport
import Synchronization

@testable import MicroHTTPServer

/// Collects the streams the test router opens, and counts their `onClose` calls.
final class StreamProbe: Sendable {
  /// A request a handler kept after answering (to check that its headers no longer read).
  let keptRequest = Mutex<HTTPRequest?>(nil)
  private let streams = Mutex<[HTTPStream]>([])
  let closeCount = Atomic<Int>(0)

  func add(_ stream: HTTPStream) {
    streams.withLock { $0.append(stream) }
  }

  /// The first stream opened, waiting up to `timeout` for it.
  func firstStream(timeout: Double = 2) -> HTTPStream? {
    _ = eventually(timeout: timeout) { streams.withLock { !$0.isEmpty } }
    return streams.withLock { $0.first }
  }

  var closes: Int { closeCount.load(ordering: .acquiring) }

  var count: Int { streams.withLock { $0.count } }

  var all: [HTTPStream] { streams.withLock { $0 } }
}

/// The routes the socket tests use.
func makeTestRouter(probe: StreamProbe) -> Router {
  var router = Router()
  router.add("GET", "/hello") { _, _ in
    HTTPResponse(
      status: 200, headers: HTTPHeaders([("Content-Type", "text/plain")]), body: Array("hello".utf8)
    )
  }
  router.add("GET", "/v1/sessions/{sid}/coordinators/{cid}") { _, parameters in
    let text = "sid=\(parameters["sid"] ?? "-") cid=\(parameters["cid"] ?? "-")"
    return HTTPResponse(status: 200, body: Array(text.utf8))
  }
  router.add("POST", "/echo") { request, _ in
    HTTPResponse(
      status: 200, headers: HTTPHeaders([("X-Body-Length", String(request.body.count))]),
      body: request.body)
  }
  router.add("GET", "/slow") { _, _ in
    sleepSeconds(0.5)
    return HTTPResponse(status: 200, body: Array("slow done".utf8))
  }
  router.add("GET", "/request-info") { request, _ in
    let text = [
      request.remoteAddress, request.query ?? "<nil>", request.queryItem("q") ?? "<nil>",
      request.headers["x-big"].map { String($0.count) } ?? "0",
    ].joined(separator: "|")
    return HTTPResponse(status: 200, body: Array(text.utf8))
  }
  router.add("GET", "/keep") { request, _ in
    probe.keptRequest.withLock { $0 = request }
    return HTTPResponse(status: 200, body: Array((request.headers["x-tag"] ?? "-").utf8))
  }
  // The same without keeping it: the connection's request state is reused for the next one.
  router.add("GET", "/tag") { request, _ in
    HTTPResponse(status: 200, body: Array((request.headers["x-tag"] ?? "-").utf8))
  }
  router.add("GET", "/keep-address") { request, _ in
    let address = request.remoteAddress
    probe.keptRequest.withLock { $0 = request }
    return HTTPResponse(status: 200, body: Array(address.utf8))
  }
  router.add("GET", "/stream") { request, _ in
    let limit = request.queryItem("max").flatMap { Int($0) } ?? 1 << 20
    let stream = HTTPStream(maxBufferedBytes: limit) {
      probe.closeCount.add(1, ordering: .releasing)
    }
    probe.add(stream)
    return .stream(headers: HTTPHeaders([("Content-Type", "text/event-stream")]), stream)
  }
  return router
}

/// Starts a real server on 127.0.0.1 with a free port and short timeouts.
func startTestServer(
  probe: StreamProbe = StreamProbe(),
  _ configure: (inout HTTPServerConfiguration) -> Void = { _ in }
) throws -> HTTPServer {
  try startTestServer(router: makeTestRouter(probe: probe), configure)
}

/// The same, answering with `router`.
func startTestServer(
  router: Router, _ configure: (inout HTTPServerConfiguration) -> Void = { _ in }
) throws -> HTTPServer {
  var configuration = HTTPServerConfiguration()
  configuration.host = "127.0.0.1"
  configuration.port = 0
  configuration.threads = 2
  configuration.connectionTimeoutSeconds = 5
  configure(&configuration)
  return try HTTPServer(configuration: configuration, handler: router)
}

/// A simple GET on a fresh connection.
func get(_ path: String, port: UInt16) throws -> RawHTTPClient.Response {
  let client = try RawHTTPClient(port: port)
  try client.send("GET \(path) HTTP/1.1\r\nHost: test\r\n\r\n")
  return try client.readResponse()
}

final class HookFlag: Sendable {
  private let flag = Atomic<Bool>(false)
  func set() { flag.store(true, ordering: .releasing) }
  var isSet: Bool { flag.load(ordering: .acquiring) }
}

final class HookCounter: Sendable {
  private let count = Atomic<Int>(0)
  func increment() { count.add(1, ordering: .relaxed) }
  var value: Int { count.load(ordering: .relaxed) }
}

final class LogCollector: Sendable {
  private let lines = Mutex<[String]>([])
  func append(_ line: String) { lines.withLock { $0.append(line) } }
  var messages: [String] { lines.withLock { $0 } }
}
