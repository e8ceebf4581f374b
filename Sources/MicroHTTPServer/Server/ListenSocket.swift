internal import CMicroHTTPD

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Creates the listening socket that the server accepts connections on (``ConnectionAcceptor``).
///
/// Binding here rather than inside MHD_start_daemon turns a failure into its errno (a busy port
/// becomes ``HTTPServerError/addressInUse(host:port:)``) instead of a bare NULL daemon.
enum ListenSocket {
  struct Bound {
    var descriptor: Int32
    var isIPv6: Bool
  }

  static let backlog: Int32 = 1024

  static func open(host: String, port: UInt16) throws(HTTPServerError) -> Bound {
    var hints = addrinfo()
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
    hints.ai_family = AF_UNSPEC
    hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
    var list: UnsafeMutablePointer<addrinfo>?
    let status = getaddrinfo(host, String(port), &hints, &list)
    guard status == 0, let first = list else {
      throw .cannotResolveHost(host: host, reason: String(cString: gai_strerror(status)))
    }
    defer { freeaddrinfo(first) }
    // Try each address in the order the resolver gives; report the first error if none binds.
    var firstError: HTTPServerError?
    var entry: UnsafeMutablePointer<addrinfo>? = first
    while let info = entry {
      entry = info.pointee.ai_next
      do {
        return try openOne(info.pointee, host: host, port: port)
      } catch {
        if firstError == nil { firstError = error }
      }
    }
    throw firstError ?? .cannotResolveHost(host: host, reason: "no address")
  }

  private static func openOne(_ info: addrinfo, host: String, port: UInt16) throws(HTTPServerError)
    -> Bound
  {
    let descriptor = socket(
      info.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard descriptor >= 0 else { throw failure("socket") }
    var ok = false
    defer { if !ok { _ = close(descriptor) } }

    var one: Int32 = 1
    let size = socklen_t(MemoryLayout<Int32>.size)
    // SO_REUSEADDR lets a restarted server bind while old connections sit in TIME_WAIT; on Linux
    // it does not let two sockets listen on the same port, so a busy port still fails below.
    guard setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, size) == 0 else {
      throw failure("setsockopt(SO_REUSEADDR)")
    }
    let isIPv6 = info.ai_family == AF_INET6
    if isIPv6 {
      guard setsockopt(descriptor, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &one, size) == 0 else {
        throw failure("setsockopt(IPV6_V6ONLY)")
      }
    }
    if bind(descriptor, info.ai_addr, info.ai_addrlen) != 0 {
      let code = errno
      if code == EADDRINUSE { throw .addressInUse(host: host, port: port) }
      throw .cannotBind(host: host, port: port, errno: code, reason: message(code))
    }
    guard listen(descriptor, backlog) == 0 else { throw failure("listen") }
    // Non-blocking: the acceptor accepts until nothing is left (``ConnectionAcceptor``).
    let flags = fcntl(descriptor, F_GETFL)
    guard flags >= 0, fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) == 0 else {
      throw failure("fcntl(O_NONBLOCK)")
    }
    ok = true
    return Bound(descriptor: descriptor, isIPv6: isIPv6)
  }

  /// The port `descriptor` is bound to; nil if it cannot be read.
  static func port(of descriptor: Int32) -> UInt16? {
    var address = sockaddr_storage()
    var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
    let read = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
    }
    guard read == 0 else { return nil }
    switch Int32(address.ss_family) {
    case AF_INET:
      return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
          UInt16(bigEndian: $0.pointee.sin_port)
        }
      }
    case AF_INET6:
      return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
          UInt16(bigEndian: $0.pointee.sin6_port)
        }
      }
    default: return nil
    }
  }

  private static func failure(_ operation: String) -> HTTPServerError {
    let code = errno
    return .socketFailed(operation: operation, errno: code, reason: message(code))
  }

  static func message(_ code: Int32) -> String {
    guard let text = strerror(code) else { return "errno \(code)" }
    return String(cString: text)
  }
}
