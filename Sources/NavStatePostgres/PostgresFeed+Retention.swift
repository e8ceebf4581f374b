import NavStateEngine
import NavStateWire
import PostgresClient
import Synchronization

/// Retention: the nodes delete all but the newest `--feed-retention` items, and record where.
extension PostgresFeed {
  static let trimStatement = """
    WITH cut AS (
      SELECT tx, id FROM navstate_feed
      WHERE tx < pg_snapshot_xmin(pg_current_snapshot())
      ORDER BY tx DESC, id DESC OFFSET $1 LIMIT 1
    ), moved AS (
      UPDATE navstate_feed_state AS s SET trimmed_tx = cut.tx, trimmed_id = cut.id FROM cut
      WHERE (s.trimmed_tx, s.trimmed_id) < (cut.tx, cut.id)
      RETURNING cut.tx, cut.id
    )
    DELETE FROM navstate_feed AS f USING moved WHERE (f.tx, f.id) <= (moved.tx, moved.id)
    """

  /// Deletes all but the newest `retention` items once this node wrote a quarter of
  /// `retention` since its last trim, or a minute passed with any written: the feed holds
  /// `retention` items after a trim, and a few quarters more (one per busy node) before the
  /// next. Counting the table instead would cost a scan of it every time.
  func trimIfDue() {
    let written = writtenSinceTrim.load(ordering: .relaxed)
    let now = MonotonicClock.now()
    guard written >= max(1, retention / 4) || (written > 0 && now - lastTrim.withLock { $0 } >= 60)
    else { return }
    do {
      try database.query(
        Self.trimStatement, [.int64(Int64(retention))], timeout: max(database.timeout, 30))
      writtenSinceTrim.wrappingAdd(-written, ordering: .relaxed)
      lastTrim.withLock { $0 = now }
    } catch {
      // Tried again at the next upkeep.
    }
  }
}
