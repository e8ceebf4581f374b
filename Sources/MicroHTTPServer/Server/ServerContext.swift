internal import CMicroHTTPD
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Everything the C callbacks need, passed to MHD as `cls`. The server retains it for MHD
/// (Unmanaged.passRetained) and releases that retain only after MHD_stop_daemon has returned, so
/// no callback can outlive it.
final class ServerContext: Sendable {
  let handler: any HTTPHandler
  let maxBodyBytes: Int
  let largerBodyLimit: (@Sendable (String, String) -> Int?)?
  /// Bytes of an over-size chunked body read and dropped before the connection is simply closed.
  /// Until then the client gets its 413; past it, a client streaming forever is cut off.
  let discardAllowance: Int
  let errorLog: (@Sendable (ServerLogMessage) -> Void)?
  let streams: StreamRegistry
  /// The streams handed over by libmicrohttpd, and their threads.
  let sockets: StreamSockets
  let connections: ConnectionRegistry
  /// The daemon while it runs (nil before it starts and once it is stopping), for handing a
  /// stream's connection back after its last chunk.
  let daemon = Locked<UnsafeHandle?>(nil)
  /// The hand-overs whose connection libmicrohttpd is about to end by sending the last chunk to
  /// the stand-in socket; each such send fails and logs one line, dropped (see `mhdLog`).
  private let standInFailures = Atomic<Int>(0)
  /// Host names (lowercased, no port) this server answers for; empty: any.
  let allowedHosts: Set<String>
  /// Requests whose headers have arrived and that have not completed yet.
  let inFlight = Atomic<Int>(0)
  /// Set when shutdown begins: responses then carry `Connection: close`.
  let stopping = Atomic<Bool>(false)

  init(configuration: HTTPServerConfiguration, handler: any HTTPHandler, streamThreads: Int) {
    self.handler = handler
    self.maxBodyBytes = configuration.maxBodyBytes
    self.largerBodyLimit = configuration.largerBodyLimit
    self.discardAllowance = max(configuration.maxBodyBytes, 1 << 20)
    let errorLog = configuration.errorLog
    self.errorLog = errorLog
    self.allowedHosts = Set(configuration.allowedHosts.map(HostName.normalized))
    let streams = StreamRegistry()
    self.streams = streams
    self.sockets = StreamSockets(threads: streamThreads)
    self.connections = ConnectionRegistry(
      limit: configuration.connectionLimit, perAddressLimit: configuration.connectionsPerIP,
      timing: RequestDeadlines(
        headers: Milliseconds(configuration.headerTimeoutSeconds * 1000),
        minimumBodyBytesPerSecond: configuration.minimumBodyBytesPerSecond,
        idle: Milliseconds(configuration.connectionTimeoutSeconds) * 1000),
      onRefused: { message in errorLog?(ServerLogMessage(text: message, kind: .connectionRefused))
      },
      onTimedOut: { handler.recordRefusal(method: "", status: 408) },
      everySecond: { streams.closeAbandoned() }
    )
  }

  func log(_ message: String) {
    errorLog?(ServerLogMessage(text: message))
  }

  func expectStandInFailure() {
    standInFailures.add(1, ordering: .relaxed)
  }

  /// Whether `message` is libmicrohttpd failing to send a handed-over stream's last chunk to the
  /// stand-in socket, as one hand-over expects (its count is then taken).
  func isStandInFailure(_ message: String) -> Bool {
    guard message.hasPrefix("Failed to send the footers for the request for"),
      message.hasSuffix("The socket is no longer available for sending")
    else { return false }
    var expected = standInFailures.load(ordering: .relaxed)
    while expected > 0 {
      let (exchanged, original) = standInFailures.compareExchange(
        expected: expected, desired: expected - 1, ordering: .relaxed)
      if exchanged { return true }
      expected = original
    }
    return false
  }

  /// A finished stream's connection goes back to libmicrohttpd for the client's next request
  /// (as a connection that finished a chunked response on its own would); closed instead when
  /// the server is stopping or the peer is gone. libmicrohttpd closes it if it cannot take it.
  func giveBack(_ socket: Int32) {
    var address = sockaddr_storage()
    var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
    let known = withUnsafeMutablePointer(to: &address) { storage in
      storage.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(socket, $0, &length) }
    }
    let taken = daemon.withLock { daemon -> Bool in
      guard known == 0, let daemon, !stopping.load(ordering: .relaxed) else { return false }
      _ = withUnsafePointer(to: &address) { storage in
        storage.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          MHD_add_connection(daemon.pointer, socket, $0, length)
        }
      }
      return true
    }
    if !taken {
      _ = shutdown(socket, Int32(SHUT_WR))
      _ = close(socket)
    }
  }
}
