public import MicroHTTPServer

/// The client address a request counts against (`--max-sessions-per-ip`). Behind a reverse
/// proxy every request comes from the proxy's address, so for a peer named with
/// `--trusted-proxy` it is the last address in `X-Forwarded-For`: the one that proxy saw. Any
/// other peer's `X-Forwarded-For` is ignored, since a client can send whatever it likes.
public struct ClientAddressPolicy: Sendable {
  /// Canonical addresses (``canonicalIPAddress(_:)``) of the proxies whose header is believed.
  public let trustedProxies: Set<String>

  public init(trustedProxies: Set<String> = []) {
    self.trustedProxies = trustedProxies
  }

  public func address(of request: HTTPRequest) -> String {
    let peer = request.remoteAddress
    guard !trustedProxies.isEmpty, trustedProxies.contains(peer),
      let forwarded = request.headers["X-Forwarded-For"],
      let last = forwarded.split(separator: ",", omittingEmptySubsequences: false).last,
      let address = canonicalIPAddress(last.trimmingSpaces)
    else { return peer }
    return address
  }
}

extension Substring {
  fileprivate var trimmingSpaces: Substring {
    let isSpace = { (character: Character) in character == " " || character == "\t" }
    guard let first = firstIndex(where: { !isSpace($0) }),
      let last = lastIndex(where: { !isSpace($0) })
    else { return "" }
    return self[first...last]
  }
}
