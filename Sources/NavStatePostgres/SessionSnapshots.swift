import NavStateEngine
import NavStatePersistence
import PostgresClient
import Synchronization

/// Snapshots, so that a slot loads in time bounded by its sessions, not by their age: a
/// session with ``PostgresStorage/snapshotAfter`` rows since its last snapshot gets one, a
/// creation record of the whole session as it stands (the same record a creation writes, with
/// its history, events, keys and shares), and its older rows go, in one fenced statement.
///
/// The snapshot is taken and committed at the session's commit gate, so no change of it is on
/// its way meanwhile: the rows it replaces are exactly those before it. A slot load that meets
/// older rows and a snapshot (the statement had not run yet when it read) replays the rows and
/// skips the snapshot, as a restart skips a record it already has.
enum SessionSnapshots {
  static let statement = """
    WITH held AS (
      SELECT s.slot FROM navstate_slots AS s
      WHERE s.slot = $1 AND s.epoch = $2 AND s.owner = $3 AND s.lease_until > now()
      FOR SHARE OF s
    ), written AS (
      INSERT INTO navstate_records (slot, session, payload)
      SELECT $1, $4, $5 WHERE EXISTS (SELECT 1 FROM held)
      RETURNING id
    ), replaced AS (
      DELETE FROM navstate_records
      WHERE slot = $1 AND session = $4 AND id < (SELECT id FROM written)
      RETURNING 1
    )
    SELECT (SELECT count(*) FROM written)::int8, (SELECT count(*) FROM replaced)::int8
    """

  /// Snapshots up to `limit` sessions due for one; how many rows went.
  @discardableResult
  static func take(
    in store: SessionStore, storage: PostgresStorage, limit: Int = 100
  ) -> Int {
    let due = storage.rowsSinceSnapshot.withLock { counts in
      counts.filter { $0.value >= PostgresStorage.snapshotAfter }.prefix(limit).map(\.key)
    }
    var replaced = 0
    for key in due {
      guard let record = store.registry[key] else {
        storage.rowsSinceSnapshot.withLock { _ = $0.removeValue(forKey: key) }
        continue
      }
      guard let rows = snapshot(record, storage: storage) else { continue }
      replaced += rows
    }
    return replaced
  }

  /// One session's snapshot; the rows it replaced, or nil if it was not written.
  private static func snapshot(_ record: SessionRecord, storage: PostgresStorage) -> Int? {
    record.commitGate.withLock(of: record) { () -> Int? in
      let slot = record.node ?? storage.leases.home
      // Not while the slot is in doubt: its sessions may differ from PostgreSQL until they are
      // read back, and a snapshot would make this node's copy the stored one.
      guard !storage.isDoubtful(slot.name), let epoch = storage.leases.servingEpoch(slot),
        let payload = record.data.withLock({ data -> [UInt8]? in
          data.ended ? nil : Journal.session(record, data).payload
        })
      else { return nil }
      do {
        let rows = try storage.database.query(
          statement,
          [
            .text(slot.name), .int64(epoch), .text(storage.leases.owner),
            .bytes(PostgresStorage.key(record.key)), .bytes(payload),
          ], prepare: true)
        guard rows.integer(0, 0) == 1 else { return nil }
        storage.rowsSinceSnapshot.withLock { $0[record.key] = 0 }
        return Int(rows.integer(0, 1) ?? 0)
      } catch {
        return nil
      }
    }
  }
}
