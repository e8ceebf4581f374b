internal import CMicroHTTPD
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
///
/// A connection whose socket an event stream took over (see ``HTTPStream``) keeps its place in
/// both counts, in total and for its address, until the stream ends: libmicrohttpd forgets it
/// (and so does its own per-address count) as soon as the stream leaves it.
final class ConnectionRegistry: Sendable {
  private struct Open: Sendable {
    var connections: [ObjectIdentifier: ConnectionState] = [:]
    /// Connections and handed-over streams per client address, when there is a cap.
    var perAddress: [ClientAddressKey: Int] = [:]
  }
  private let open = Locked(Open())
  private let openCount = Atomic<Int>(0)
  let limit: Int
  /// Most connections (streams included) from one address; 0: no cap.
  let perAddressLimit: Int
  let timing: RequestDeadlines
  private let onRefused: @Sendable (String) -> Void
  /// Told of each request answered 408 here, for the request metrics.
  private let onTimedOut: @Sendable () -> Void
  private let sweeper: Locked<SweepTimer?> = Locked(nil)
  /// Run every fifth sweep (about once a second): work that need not be as prompt as deadlines.
  private let everySecond: @Sendable () -> Void
  private let sweeps = Atomic<Int>(0)

  init(
    limit: Int, perAddressLimit: Int = 0, timing: RequestDeadlines,
    onRefused: @escaping @Sendable (String) -> Void,
    onTimedOut: @escaping @Sendable () -> Void = {},
    everySecond: @escaping @Sendable () -> Void = {}
  ) {
    self.limit = limit
    self.perAddressLimit = perAddressLimit
    self.timing = timing
    self.onRefused = onRefused
    self.onTimedOut = onTimedOut
    self.everySecond = everySecond
  }

  var count: Int { openCount.load(ordering: .relaxed) }

  /// The accept policy: room for one more connection, in total and from `address`?
  /// (libmicrohttpd's own per-address cap, checked before, counts only the connections it
  /// serves; this one counts the streams that left it too.)
  func admits(from address: UnsafePointer<sockaddr>?) -> Bool {
    guard count < limit else {
      onRefused("refused a connection: \(limit) connections are open (the limit)")
      return false
    }
    guard perAddressLimit > 0, let key = ClientAddressKey(address) else { return true }
    let held = open.withLock { $0.perAddress[key, default: 0] }
    guard held < perAddressLimit else {
      onRefused(
        "refused a connection: \(perAddressLimit) connections and event streams are open from "
          + "\(PeerAddress.string(address)) (the per-address limit)")
      return false
    }
    return true
  }

  func opened(_ state: ConnectionState) {
    open.withLock { open in
      open.connections[ObjectIdentifier(state)] = state
      if perAddressLimit > 0, let key = state.address { open.perAddress[key, default: 0] += 1 }
    }
    openCount.add(1, ordering: .relaxed)
  }

  /// Called by MHD before it closes the descriptor, so that the sweeper, which works under the
  /// same lock, never touches a descriptor number that was closed and reused. A connection whose
  /// socket an event stream took over keeps its place in the count until the stream ends
  /// (``streamEnded()``): the socket is still open.
  func closed(_ state: ConnectionState) {
    let held = state.isHeldByStream
    open.withLock { open in
      _ = open.connections.removeValue(forKey: ObjectIdentifier(state))
      if !held { Self.release(state, from: &open) }
    }
    if !held { openCount.subtract(1, ordering: .relaxed) }
  }

  /// An event stream that had taken over the socket of the connection `state` closed it, or
  /// gave it back to libmicrohttpd (which counts it again as a new connection).
  func streamEnded(_ state: ConnectionState) {
    open.withLock { Self.release(state, from: &$0) }
    openCount.subtract(1, ordering: .relaxed)
  }

  private static func release(_ state: ConnectionState, from open: inout Open) {
    guard let key = state.address, let held = open.perAddress[key] else { return }
    open.perAddress[key] = held > 1 ? held - 1 : nil
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
    open.withLock { open in
      for state in open.connections.values {
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

/// A client's address as a key: the family and the address's bytes (the port left out).
struct ClientAddressKey: Hashable, Sendable {
  var family: UInt16
  var high: UInt64
  var low: UInt64

  init?(_ address: UnsafePointer<sockaddr>?) {
    guard let address else { return nil }
    switch Int32(address.pointee.sa_family) {
    case AF_INET:
      family = UInt16(AF_INET)
      high = 0
      low = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
        UInt64($0.pointee.sin_addr.s_addr)
      }
    case AF_INET6:
      family = UInt16(AF_INET6)
      (high, low) = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { ipv6 in
        withUnsafeBytes(of: ipv6.pointee.sin6_addr) { bytes in
          (bytes.load(as: UInt64.self), bytes.load(fromByteOffset: 8, as: UInt64.self))
        }
      }
    default:
      return nil
    }
  }
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
