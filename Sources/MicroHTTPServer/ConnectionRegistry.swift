import Dispatch
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Every open connection, for two jobs libmicrohttpd 0.9.75 does not do:
///
/// - **Refusing at once past the limit.** MHD enforces its own connection limit by no longer
///   accepting, which leaves new clients waiting in the listen backlog until they time out. The
///   accept policy asks ``admits()`` instead, and a connection over the limit is closed as soon
///   as it is accepted.
/// - **Deadlines.** MHD's timeout is an idle timeout: a client that sends one byte every few
///   seconds keeps a connection forever. A sweeper closes connections whose request (or
///   body) is not complete by its deadline, with a 408 when nothing has been answered yet.
final class ConnectionRegistry: Sendable {
  private let connections = Locked<[ObjectIdentifier: ConnectionState]>([:])
  private let openCount = Atomic<Int>(0)
  let limit: Int
  let timing: RequestDeadlines
  private let onRefused: @Sendable (String) -> Void
  /// Told of each request answered 408 here, for the request metrics.
  private let onTimedOut: @Sendable () -> Void
  private let sweeper: Locked<SweepTimer?> = Locked(nil)
  /// Run every fifth sweep (about once a second): work that need not be as prompt as deadlines.
  private let everySecond: @Sendable () -> Void
  private let sweeps = Atomic<Int>(0)

  init(
    limit: Int, timing: RequestDeadlines, onRefused: @escaping @Sendable (String) -> Void,
    onTimedOut: @escaping @Sendable () -> Void = {},
    everySecond: @escaping @Sendable () -> Void = {}
  ) {
    self.limit = limit
    self.timing = timing
    self.onRefused = onRefused
    self.onTimedOut = onTimedOut
    self.everySecond = everySecond
  }

  var count: Int { openCount.load(ordering: .relaxed) }

  /// The accept policy: room for one more connection?
  func admits() -> Bool {
    guard count < limit else {
      onRefused("refused a connection: \(limit) connections are open (the limit)")
      return false
    }
    return true
  }

  func opened(_ state: ConnectionState) {
    connections.withLock { $0[ObjectIdentifier(state)] = state }
    openCount.add(1, ordering: .relaxed)
  }

  /// Called by MHD before it closes the descriptor, so that the sweeper, which works under the
  /// same lock, never touches a descriptor number that was closed and reused.
  func closed(_ state: ConnectionState) {
    connections.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(state)) }
    openCount.subtract(1, ordering: .relaxed)
  }

  func startSweeping() {
    let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "http.deadlines"))
    timer.schedule(deadline: .now() + .milliseconds(200), repeating: .milliseconds(200))
    timer.setEventHandler { [self] in
      sweep(now: MonotonicClock.now())
      if sweeps.add(1, ordering: .relaxed).newValue % 5 == 0 { everySecond() }
    }
    timer.resume()
    sweeper.withLock { $0 = SweepTimer(timer: timer) }
  }

  func stopSweeping() {
    sweeper.withLock { sweeper in
      sweeper?.timer.cancel()
      sweeper = nil
    }
  }

  /// Closes every connection past its deadline. A client that has not been answered gets a 408
  /// first; the shutdown then wakes MHD, which closes the connection in its own thread.
  func sweep(now: Milliseconds) {
    connections.withLock { open in
      for state in open.values {
        // Every phase that can expire is one in which nothing is being written.
        guard let phase = state.expire(now: now) else { continue }
        if phase.hasRequest {
          Self.requestTimeout.withUnsafeBytes { bytes in
            _ = send(
              state.descriptor, bytes.baseAddress, bytes.count,
              Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
          }
          onTimedOut()
        }
        _ = shutdown(state.descriptor, Int32(SHUT_RDWR))
      }
    }
  }

  private static let requestTimeout: [UInt8] = {
    guard
      case .bytes(let body) = HTTPResponse.problem(
        status: 408, code: "request_timeout", title: "Request Timeout",
        detail: "The request was not complete in time."
      ).body
    else { return [] }
    let head =
      "HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n"
      + "Content-Type: application/problem+json\r\nX-Content-Type-Options: nosniff\r\n"
      + "Content-Length: \(body.count)\r\n\r\n"
    return Array(head.utf8) + body
  }()
}

/// When a request's parts are due, counted from the moment the previous part ended.
struct RequestDeadlines: Sendable {
  /// The headers, from the request line.
  var headers: Milliseconds
  /// Added to `headers` for a body: at least this many bytes per second are expected.
  var minimumBodyBytesPerSecond: Int
  /// Before a request line must have arrived, on a new connection or between requests on a
  /// kept-alive one (plus `headers`, for a line trickled in); 0: none.
  var idle: Milliseconds

  /// The deadline of a connection with no request under way.
  func waiting(from now: Milliseconds) -> Milliseconds {
    idle == 0 ? 0 : now + idle + headers
  }

  func body(expectedLength: Int) -> Milliseconds {
    let (scaled, overflow) = UInt64(max(0, expectedLength)).multipliedReportingOverflow(by: 1000)
    let transfer = overflow ? .max : scaled / UInt64(max(1, minimumBodyBytesPerSecond))
    // Kept within the 56 bits the deadline word holds.
    return min(headers &+ min(transfer, 1 << 50), 1 << 52)
  }
}

/// A dispatch timer, which is safe to cancel from any thread but is not marked Sendable.
private final class SweepTimer: @unchecked Sendable {
  let timer: any DispatchSourceTimer

  init(timer: any DispatchSourceTimer) {
    self.timer = timer
  }
}
