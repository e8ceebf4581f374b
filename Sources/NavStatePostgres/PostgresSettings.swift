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

  public init(url: String, timeout: Double = 2, leaseSeconds: Double = 10) {
    self.url = url
    self.timeout = timeout
    self.leaseSeconds = leaseSeconds
  }

  /// Seconds between renewals: four per lease, so that three can fail before it runs out.
  var renewInterval: Double { max(0.05, leaseSeconds / 4) }

  /// Loading a slot reads every record of its sessions: longer than one change may take.
  var loadTimeout: Double { max(timeout, 30) }
}
