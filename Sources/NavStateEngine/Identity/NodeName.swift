/// This server's name in a cluster (`--node`): every session id it hands out starts with the name
/// and a dot (`east-1.Xq…`), so a proxy can route a session's requests to the node that holds it
/// by the id alone, with no state shared between nodes. An id with another node's prefix is an
/// unknown session here.
public final class NodeName: Sendable {
  public let name: String
  /// The name and the dot: a dot never occurs in the base64url part of an id.
  package let prefix: String
  /// The prefix's bytes, compared with an id's on every request of a cluster.
  private let prefixBytes: [UInt8]

  /// Nil unless `name` is 1 to 32 lower-case letters, digits and hyphens, starting with a letter
  /// or digit (it goes into URLs, file names and nginx configuration as it is).
  public init?(_ name: String) {
    guard let first = name.utf8.first, name.utf8.count <= 32,
      Self.isLetterOrDigit(first),
      name.utf8.allSatisfy({ Self.isLetterOrDigit($0) || $0 == UInt8(ascii: "-") })
    else { return nil }
    self.name = name
    prefix = name + "."
    prefixBytes = Array(prefix.utf8)
  }

  private static func isLetterOrDigit(_ byte: UInt8) -> Bool {
    (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
      || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
  }

  /// The key of an id of this node, or nil (another node's, or no id at all).
  package func key(of id: String) -> SessionID? {
    var id = id
    return id.withUTF8 { key(of: $0) }
  }

  /// The same, from the id's bytes (as they lie in a request's path).
  package func key(of id: UnsafeBufferPointer<UInt8>) -> SessionID? {
    let prefixLength = prefixBytes.count
    guard id.count == prefixLength + 22,
      prefixBytes.withUnsafeBufferPointer({ id.starts(with: $0) })
    else { return nil }
    return SessionID(bytes: UnsafeBufferPointer(rebasing: id[prefixLength...]))
  }
}
