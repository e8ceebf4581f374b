internal import CMicroHTTPD

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Formats a peer's socket address as text.
enum PeerAddress {
  /// "127.0.0.1", "::1", …; "" when unknown.
  static func string(_ address: UnsafePointer<sockaddr>?) -> String {
    guard let address else { return "" }
    // On the stack: this runs for every request.
    return withUnsafeTemporaryAllocation(of: CChar.self, capacity: Int(INET6_ADDRSTRLEN)) { text in
      guard let base = text.baseAddress else { return "" }
      let written: UnsafePointer<CChar>?
      switch Int32(address.pointee.sa_family) {
      case AF_INET:
        written = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { ipv4 in
          var raw = ipv4.pointee.sin_addr
          return inet_ntop(AF_INET, &raw, base, socklen_t(text.count))
        }
      case AF_INET6:
        written = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { ipv6 in
          var raw = ipv6.pointee.sin6_addr
          return inet_ntop(AF_INET6, &raw, base, socklen_t(text.count))
        }
      default:
        written = nil
      }
      return written.map { String(cString: $0) } ?? ""
    }
  }
}

/// An IPv4 or IPv6 address literal in the form peers' addresses are written in ("::1", not
/// "0:0::1"), so that addresses compare as text; nil when `text` is not one.
public func canonicalIPAddress(_ text: some StringProtocol) -> String? {
  guard text.utf8.count <= Int(INET6_ADDRSTRLEN) else { return nil }
  var ipv6 = in6_addr()
  var ipv4 = in_addr()
  let family: Int32
  if inet_pton(AF_INET, String(text), &ipv4) == 1 {
    family = AF_INET
  } else if inet_pton(AF_INET6, String(text), &ipv6) == 1 {
    family = AF_INET6
  } else {
    return nil
  }
  return withUnsafeTemporaryAllocation(of: CChar.self, capacity: Int(INET6_ADDRSTRLEN)) { buffer in
    guard let base = buffer.baseAddress else { return nil }
    let written =
      family == AF_INET
      ? inet_ntop(AF_INET, &ipv4, base, socklen_t(buffer.count))
      : inet_ntop(AF_INET6, &ipv6, base, socklen_t(buffer.count))
    return written.map { String(cString: $0) }
  }
}
