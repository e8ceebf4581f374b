import NavStateEngine

/// How a node keeps its sessions in PostgreSQL (`--postgres`).
public struct PostgresSettings: Sendable {
  /// `postgres://user[:password]@host[:port]/database`, or `host=… port=…` keywords.
  public var url: String
  /// Seconds a statement (or a connection) may take before the change is refused
  /// (`--postgres-timeout`).
  public var timeout: Double
  /// Seconds a lease lasts unless renewed (`--lease-seconds`): how long a dead node's sessions
  /// wait before another node takes them over.
  public var leaseSeconds: Double
  /// The shards this node is home to (`--shards`, 0 to 63): it makes its sessions in them, with
  /// ids that carry no node name, and claims them at start. Empty: sessions go in the node's
  /// own slot, with ids that begin with its name.
  public var shards: [Int]

  public init(url: String, timeout: Double = 2, leaseSeconds: Double = 10, shards: [Int] = []) {
    self.url = url
    self.timeout = timeout
    self.leaseSeconds = leaseSeconds
    self.shards = shards
  }

  /// The shards `text` lists (`--shards`): numbers and ranges from 0 to 63, separated by
  /// commas (`0-20,42`), in order without repeats; nil for anything else.
  public static func shards(_ text: String) -> [Int]? {
    var shards = Set<Int>()
    for part in text.split(separator: ",", omittingEmptySubsequences: false) {
      let bounds = part.split(separator: "-", omittingEmptySubsequences: false)
      guard bounds.count <= 2,
        bounds.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy { (48...57).contains($0) } }),
        let low = Int(bounds[0]), let high = Int(bounds[bounds.count - 1]),
        low <= high, high < NodeName.shardCount
      else { return nil }
      shards.formUnion(low...high)
    }
    return shards.sorted()
  }

  /// Seconds between renewals: four per lease, so that three can fail before it runs out.
  var renewInterval: Double { max(0.05, leaseSeconds / 4) }

  /// Loading a slot reads every record of its sessions: longer than one change may take.
  var loadTimeout: Double { max(timeout, 30) }
}
