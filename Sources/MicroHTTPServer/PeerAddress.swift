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
    var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
    let ok: Bool
    switch Int32(address.pointee.sa_family) {
    case AF_INET:
      ok = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { ipv4 in
        var raw = ipv4.pointee.sin_addr
        return inet_ntop(AF_INET, &raw, &text, socklen_t(text.count)) != nil
      }
    case AF_INET6:
      ok = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { ipv6 in
        var raw = ipv6.pointee.sin6_addr
        return inet_ntop(AF_INET6, &raw, &text, socklen_t(text.count)) != nil
      }
    default:
      ok = false
    }
    guard ok else { return "" }
    return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }
}
