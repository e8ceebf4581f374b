/// Why an ``HTTPServer`` could not start.
public enum HTTPServerError: Error, Sendable, Equatable, CustomStringConvertible {
  /// A configuration value is out of range.
  case invalidConfiguration(String)
  /// `host` is not an address or a name that resolves.
  case cannotResolveHost(host: String, reason: String)
  /// Another socket already listens on this address and port (EADDRINUSE).
  case addressInUse(host: String, port: UInt16)
  /// The address cannot be bound (e.g. not local, EADDRNOTAVAIL; or a privileged port, EACCES).
  case cannotBind(host: String, port: UInt16, errno: Int32, reason: String)
  /// Creating or configuring the listening socket failed.
  case socketFailed(operation: String, errno: Int32, reason: String)
  /// libmicrohttpd refused to start (MHD_start_daemon returned NULL).
  case daemonStartFailed

  public var description: String {
    switch self {
    case .invalidConfiguration(let message):
      return "invalid HTTP server configuration: \(message)"
    case .cannotResolveHost(let host, let reason):
      return "cannot resolve listen host \"\(host)\": \(reason)"
    case .addressInUse(let host, let port):
      return "cannot listen on \(host):\(port): the port is already in use"
    case .cannotBind(let host, let port, _, let reason):
      return "cannot listen on \(host):\(port): \(reason)"
    case .socketFailed(let operation, _, let reason):
      return "cannot create the listening socket (\(operation)): \(reason)"
    case .daemonStartFailed:
      return "libmicrohttpd failed to start the HTTP daemon"
    }
  }
}
