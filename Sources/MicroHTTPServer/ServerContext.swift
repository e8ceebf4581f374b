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
  let streams = StreamRegistry()
  /// Requests whose headers have arrived and that have not completed yet.
  let inFlight = Atomic<Int>(0)
  /// Set when shutdown begins: responses then carry `Connection: close`.
  let stopping = Atomic<Bool>(false)

  init(configuration: HTTPServerConfiguration, handler: any HTTPHandler) {
    self.handler = handler
    self.maxBodyBytes = configuration.maxBodyBytes
    self.discardAllowance = max(configuration.maxBodyBytes, 1 << 20)
    self.errorLog = configuration.errorLog
  }

  func log(_ message: String) {
    errorLog?(ServerLogMessage(text: message))
  }
}
