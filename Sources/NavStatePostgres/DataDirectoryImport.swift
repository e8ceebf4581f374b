public import NavStateEngine
import NavStatePersistence
import PostgresClient
import Synchronization

/// Moving in: the sessions of a `--data-dir` written into PostgreSQL as the slot of the node that
/// wrote them, so that `--postgres` with the same `--node` serves them, ids and tokens unchanged;
/// and the directory's backend feed, after the items the shared feed holds already.
public enum DataDirectoryImport {
  public struct Failure: Error, CustomStringConvertible {
    public var description: String
    /// The input cannot be used (a directory of another node; a slot that already has sessions).
    public var isUsage: Bool
  }

  /// Reads `path` into `store` (a store of the graphs the server runs with) and writes every
  /// session to the slot `node`, which must have none yet. Returns how many were written.
  public static func run(
    path: String, into settings: PostgresSettings, node: NodeName, store: SessionStore
  ) throws(Failure) -> Int {
    do {
      let directory = try DataDirectory(path: path)
      if case .other(let recorded) = try directory.claim(node: node.name) {
        throw Failure(
          description:
            "\(path) holds the sessions of a server started with \(recorded.map { "--node \($0)" } ?? "no --node"), not --node \(node.name): its ids name that node",
          isUsage: true)
      }
      _ = try directory.load(into: store, journal: nil)
    } catch let failure as Failure {
      throw failure
    } catch {
      throw Failure(description: "cannot read \(path): \(error)", isUsage: false)
    }
    let durability = PostgresDurability(settings: settings, node: node)
    do {
      return try durability.importSessions(of: store)
    } catch {
      throw Failure(description: error.description, isUsage: error.isUsage)
    }
  }
}

extension PostgresDurability {
  /// Writes every session of `store` as a creation record of this node's slot, in groups of
  /// 500 rows, through the fenced commit statement, then gives the slot back.
  func importSessions(of store: SessionStore) throws(DataDirectoryImport.Failure) -> Int {
    func failed(_ error: PostgresError) -> DataDirectoryImport.Failure {
      DataDirectoryImport.Failure(description: "\(source): \(error)", isUsage: false)
    }
    do throws(Schema.SchemaFailure) {
      try Schema.prepare(database)
    } catch {
      switch error {
      case .newer(let version):
        throw DataDirectoryImport.Failure(
          description: "the schema in \(source) is version \(version), newer than this server's",
          isUsage: false)
      case .database(let failure): throw failed(failure)
      }
    }
    do throws(PostgresError) {
      for version in store.catalog.allVersions where !version.source.isEmpty {
        try GraphRows.save(version, to: database)
      }
      let existing = try database.query(
        "SELECT count(*)::int8 FROM navstate_records WHERE slot = $1", [.text(node.name)])
      guard existing.integer(0, 0) == 0 else {
        throw PostgresError(.server(""), "slot \(node.name) already has sessions in PostgreSQL")
      }
      guard case .claimed(let epoch) = try leases.claim(node).claim else {
        throw PostgresError(.server(""), "a live node holds slot \(node.name): stop it first")
      }
      leases.markReady(node.name)
      defer { leases.releaseAll() }
      let storage = PostgresStorage(database: database, leases: leases, feed: nil)
      defer { storage.stop() }
      var batch: [PostgresStorage.Pending] = []
      var count = 0
      var failure: PostgresError?
      // Renewed after each group, so that a long import keeps its lease.
      func flush() {
        guard !batch.isEmpty, failure == nil else { return }
        if !storage.commit(batch) || !leases.renew().lost.isEmpty {
          failure = PostgresError(.unreachable, "a group of sessions was not committed")
        }
        count += batch.count
        batch = []
      }
      store.forEachSession { record in
        let payload = record.data.withLock { data in
          Journal.session(record, data).payload
        }
        batch.append(
          PostgresStorage.Pending(
            slot: node.name, epoch: epoch, session: PostgresStorage.key(record.key),
            payload: payload, feed: []))
        if batch.count == 500 { flush() }
      }
      flush()
      if failure == nil {
        do throws(PostgresError) {
          try importFeed(of: store)
        } catch {
          failure = error
        }
      }
      if let failure {
        // All or nothing: a second try finds the slot empty again.
        _ = try? database.query(
          "DELETE FROM navstate_records WHERE slot = $1", [.text(node.name)])
        throw failure
      }
      return count
    } catch {
      if case .server = error.kind {
        throw DataDirectoryImport.Failure(description: error.message, isUsage: true)
      }
      throw failed(error)
    }
  }
}

extension PostgresDurability {
  static let importFeedStatement = """
    INSERT INTO navstate_feed (slot, session, kind, item)
    SELECT $1, f.session, f.kind, f.item
    FROM unnest($2::bytea[], $3::int8[], $4::bytea[]) WITH ORDINALITY AS f(session, kind, item, n)
    ORDER BY f.n
    """

  /// The feed items `store` read from the data directory, in their order, in one transaction:
  /// readers see all of them at once, or none if the import fails.
  func importFeed(of store: SessionStore) throws(PostgresError) {
    var items: [FeedItem] = []
    store.feed.snapshot().forEach(after: 0) { item in
      items.append(item)
      return true
    }
    guard !items.isEmpty else { return }
    let timeout = settings.loadTimeout
    try database.withConnection { (connection) throws(PostgresError) in
      _ = try connection.execute("BEGIN", timeout: timeout)
      do throws(PostgresError) {
        for start in stride(from: 0, to: items.count, by: 5000) {
          let group = items[start..<min(items.count, start + 5000)]
          _ = try connection.query(
            Self.importFeedStatement,
            [
              .text(node.name), .bytesArray(group.map { PostgresStorage.key($0.session) }),
              .int64Array(group.map { Int64($0.kind.rawValue) }),
              .bytesArray(
                group.map { item in
                  var bytes: [UInt8] = []
                  item.appendUnnumbered(to: &bytes)
                  return bytes
                }),
            ], timeout: timeout)
        }
        _ = try connection.execute("COMMIT", timeout: timeout)
      } catch {
        _ = try? connection.execute("ROLLBACK", timeout: timeout)
        throw error
      }
    }
  }
}
