/// This server's name in a cluster (`--node`): every session id it hands out starts with the name
/// and a dot (`east-1.Xq…`), so a proxy can route a session's requests to the node that holds it
/// by the id alone, with no state shared between nodes. An id with another node's prefix is an
/// unknown session here.
///
/// With `--postgres` and `--shards`, sessions belong instead to one of 64 shards, named by the
/// first character of their id (``shard(_:)``), and ids carry no node name.
public final class NodeName: Sendable {
  public let name: String
  /// The name and the dot: a dot never occurs in the base64url part of an id. Empty for a shard.
  package let prefix: String
  /// The prefix's bytes, compared with an id's on every request of a cluster.
  private let prefixBytes: [UInt8]
  /// The shard this slot is (0 to 63), nil for a node's name.
  package let shardIndex: Int?

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
    shardIndex = nil
  }

  private init(shard index: Int) {
    // A dot cannot be in a node's name, so no node's slot is ever mistaken for a shard.
    name = "shard." + (index < 10 ? "0" : "") + String(index)
    prefix = ""
    prefixBytes = []
    shardIndex = index
  }

  /// How many shards there are: one per character an id can begin with.
  package static let shardCount = 64

  private static let shards = (0..<shardCount).map { NodeName(shard: $0) }

  /// The slot of shard `index` (0 to 63): the sessions whose id begins with base64url
  /// character number `index` (`A` is 0, `_` is 63).
  package static func shard(_ index: Int) -> NodeName { shards[index] }

  /// The slot of the session `key`, when it belongs to a shard.
  package static func shard(of key: SessionID) -> NodeName { shards[key.shard] }

  /// The slot a database row names: a node's name, or a shard's (`shard.07`); nil for neither.
  package static func slot(named name: String) -> NodeName? {
    if name.hasPrefix("shard."), let index = Int(name.dropFirst(6)), index >= 0,
      index < shardCount, shards[index].name == name
    {
      return shards[index]
    }
    return NodeName(name)
  }

  /// What a session id of slot `name` begins with: the name and a dot, or nothing for a shard.
  package static func idPrefix(ofSlot name: String) -> String {
    name.contains(".") ? "" : name + "."
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
      prefixBytes.withUnsafeBufferPointer({ id.starts(with: $0) }),
      let key = SessionID(bytes: UnsafeBufferPointer(rebasing: id[prefixLength...]))
    else { return nil }
    if let shardIndex, key.shard != shardIndex { return nil }
    return key
  }
}
