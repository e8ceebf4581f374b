import PostgresClient
import Synchronization

/// Connections to one PostgreSQL database, made when needed and kept while they work: the
/// commit leader, the lease duty and slot loads each take one for a call and give it back.
final class Database: Sendable {
  let url: String
  let timeout: Double
  private let idle = Mutex<[PostgresConnection]>([])

  init(url: String, timeout: Double) {
    self.url = url
    self.timeout = timeout
  }

  /// Runs `body` with a connection of its own (a new one if none is idle); one that broke is
  /// dropped, so the next call connects again (how the server recovers once the database is
  /// back).
  func withConnection<T>(_ body: (PostgresConnection) throws(PostgresError) -> T)
    throws(PostgresError) -> T
  {
    let connection: PostgresConnection
    if let reused = idle.withLock({ $0.popLast() }) {
      connection = reused
    } else {
      connection = try PostgresConnection(url, timeout: timeout)
    }
    defer {
      if connection.isUsable { idle.withLock { $0.append(connection) } }
    }
    return try body(connection)
  }

  /// One statement on any connection; `prepare` for the frequent ones, `sent` for work to do
  /// while it runs (see ``PostgresConnection/query(_:_:timeout:prepare:sent:)``).
  @discardableResult
  func query(
    _ sql: String, _ parameters: [PostgresParameter] = [], timeout: Double? = nil,
    prepare: Bool = false, sent: (() -> Void)? = nil
  ) throws(PostgresError) -> PostgresRows {
    let timeout = timeout ?? self.timeout
    return try withConnection { (connection) throws(PostgresError) in
      try connection.query(sql, parameters, timeout: timeout, prepare: prepare, sent: sent)
    }
  }

  /// Closes the idle connections (at stop).
  func close() { idle.withLock { $0.removeAll() } }
}
