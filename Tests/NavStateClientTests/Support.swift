import Foundation
import HTTPTypes
import NavStateTestSupport
import OpenAPIAsyncHTTPClient
import OpenAPIRuntime
import Synchronization

@testable import NavStateClient

/// The transport the tests use, AsyncHTTPClient's (it streams bodies as they arrive on Linux),
/// wrapped to record what was sent and, on demand, to cut an event stream short: a dropped
/// connection, as a phone's network does.
final class TestTransport: ClientTransport {
  private let inner = AsyncHTTPClientTransport()
  /// The requests sent, by operation.
  let sent = Mutex<[(operation: String, headers: HTTPFields)]>([])
  /// Event streams opened from now on end after this many events (nil: never).
  let dropStreamsAfterEvents = Mutex<Int?>(nil)

  func send(
    _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String
  ) async throws -> (HTTPResponse, HTTPBody?) {
    sent.withLock { $0.append((operationID, request.headerFields)) }
    let (response, responseBody) = try await inner.send(
      request, body: body, baseURL: baseURL, operationID: operationID)
    guard operationID == "streamEvents", let responseBody,
      let limit = dropStreamsAfterEvents.withLock({ $0 })
    else { return (response, responseBody) }
    return (response, Self.cut(responseBody, afterEvents: limit))
  }

  /// The body up to the end of its `limit`th event (an event ends with a blank line).
  static func cut(_ body: HTTPBody, afterEvents limit: Int) -> HTTPBody {
    let stream = AsyncThrowingStream<ArraySlice<UInt8>, any Error> { continuation in
      let task = Task {
        var events = 0
        var previous: UInt8 = 0
        do {
          for try await chunk in body {
            var kept: [UInt8] = []
            for byte in chunk {
              kept.append(byte)
              if byte == UInt8(ascii: "\n") && previous == UInt8(ascii: "\n") { events += 1 }
              previous = byte
              if events == limit { break }
            }
            continuation.yield(ArraySlice(kept))
            if events == limit { break }
          }
          continuation.finish()
        } catch {
          continuation.finish(throwing: error)
        }
      }
      continuation.onTermination = { _ in task.cancel() }
    }
    return HTTPBody(stream, length: .unknown, iterationBehavior: .single)
  }

  func headers(of operation: String) -> [HTTPFields] {
    sent.withLock { $0.filter { $0.operation == operation }.map(\.headers) }
  }
}

/// A live navstate and a transport to it.
struct LiveServer {
  let server: ServerProcess
  let transport = TestTransport()

  init(_ arguments: [String] = []) throws {
    // A generous request deadline, and idle connections kept as long: these tests share the
    // process's two cooperative threads with the integration tests, whose blocking sockets can
    // hold them for seconds at a time (a minute in all, in a full run on two cores), and
    // AsyncHTTPClient writes requests from that pool. A kept-alive connection the server closed
    // as idle meanwhile fails the next request on it (remoteConnectionClosed); the server's 408
    // for a stalled body is right too. A test stalled through no fault of the code under test
    // is not a finding.
    server = try ServerProcess(["--header-timeout", "120", "--idle-timeout", "600"] + arguments)
  }

  func create(
    graph: String? = nil, root: String? = nil, params: Params = [:],
    options: NavStateSession.Options = .init()
  ) async throws -> (session: NavStateSession, state: SessionState) {
    try await NavStateSession.create(
      serverURL: server.url, transport: transport, graph: graph, root: root, params: params,
      options: options)
  }

  /// Another client of the same session (another device, or another window).
  func open(_ session: NavStateSession, options: NavStateSession.Options = .init())
    -> NavStateSession
  {
    NavStateSession(
      serverURL: server.url, transport: transport, id: session.id, token: session.token,
      options: options)
  }
}

/// Waits, polling, until `condition` holds (a live change arrives within a few seconds).
@MainActor
/// Up to 30 s: in a full run on two cores, blocking integration tests hold the cooperative pool
/// for seconds at a time (a stream's first state once took over 5 s to arrive). It returns as
/// soon as the condition holds, so only a failure waits that long.
func eventually(
  timeout: Duration = .seconds(30), _ condition: @MainActor () -> Bool
) async -> Bool {
  let deadline = ContinuousClock.now + timeout
  while ContinuousClock.now < deadline {
    if condition() { return true }
    try? await Task.sleep(for: .milliseconds(20))
  }
  return condition()
}

extension SessionState {
  var routes: [String] { path.map(\.route) }
}
