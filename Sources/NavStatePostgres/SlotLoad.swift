import NavStateEngine
import NavStatePersistence
import PostgresClient

/// Reads a slot's sessions back: its graph versions first (another node may have loaded newer
/// ones), then every record of the slot in commit order, replayed as a restart replays a
/// journal.
enum SlotLoad {
  /// `rows`: told how many rows each loaded session has, so that one read back from many gets
  /// its snapshot soon.
  static func load(
    _ slot: NodeName, into store: SessionStore, from database: Database,
    settings: PostgresSettings, rows counted: ((SessionID, Int) -> Void)? = nil
  ) throws(PostgresError) -> Int {
    // Whatever of the slot is still here (a lease lost and claimed again) is stale.
    store.evict { $0.node?.name == slot.name }
    _ = try GraphRows.load(into: store.catalog, from: database, timeout: settings.loadTimeout)
    let rows = try database.query(
      "SELECT payload, session FROM navstate_records WHERE slot = $1 ORDER BY session, id",
      [.text(slot.name)],
      timeout: settings.loadTimeout)
    var sessions: [SessionID: SessionRecord] = [:]
    var rowCounts: [SessionID: Int] = [:]
    for row in 0..<rows.count {
      guard let payload = rows.bytes(row, 0), !payload.isEmpty else { continue }
      if let session = rows.bytes(row, 1), let key = PostgresStorage.sessionID(session) {
        rowCounts[key, default: 0] += 1
      }
      do {
        _ = try RecordReplay.replay(payload, into: &sessions, store: store, node: slot)
      } catch {
        throw PostgresError(
          .server("XX001"), "slot \(slot.name): a record does not read back: \(error.reason)")
      }
    }
    for record in sessions.values {
      store.restore(record)
      counted?(record.key, rowCounts[record.key] ?? 0)
    }
    return sessions.count
  }
}
