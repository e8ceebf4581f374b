import Synchronization

/// Everything the C callbacks need, passed to MHD as `cls`. The server retains it for MHD
/// (Unmanaged.passRetained) and releases that retain only after MHD_stop_daemon has returned, so
/// no callback can outlive it.
final class ServerContext: Sendable {
  let handler: any HTTPHandler
  let maxBodyBytes: Int
  /// Bytes of an over-size chunked body read and dropped before the connection is simply closed.
  /// Until then the client gets its 413; past it, a client streaming forever is cut off.
  let discardAllowance: Int
  let errorLog: (@Sendable (ServerLogMessage) -> Void)?
  let streams: StreamRegistry
  let connections: ConnectionRegistry
  /// Host names (lowercased, no port) this server answers for; empty: any.
  let allowedHosts: Set<String>
  /// Requests whose headers have arrived and that have not completed yet.
  let inFlight = Atomic<Int>(0)
  /// Set when shutdown begins: responses then carry `Connection: close`.
  let stopping = Atomic<Bool>(false)

  init(configuration: HTTPServerConfiguration, handler: any HTTPHandler) {
    self.handler = handler
    self.maxBodyBytes = configuration.maxBodyBytes
    self.discardAllowance = max(configuration.maxBodyBytes, 1 << 20)
    let errorLog = configuration.errorLog
    self.errorLog = errorLog
    self.allowedHosts = Set(configuration.allowedHosts.map(HostName.normalized))
    let streams = StreamRegistry()
    self.streams = streams
    self.connections = ConnectionRegistry(
      limit: configuration.connectionLimit,
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
}
