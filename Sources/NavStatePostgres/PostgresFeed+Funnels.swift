import NavStateEngine
import NavStateWire
import PostgresClient
import Synchronization

/// Funnels over the shared feed: every kept `screen.viewed` item, read in pages.
extension PostgresFeed {
  static let viewsStatement = """
    SELECT tx::text, id, item FROM navstate_feed
    WHERE kind = $3 AND (tx, id) > ($1::text::xid8, $2::int8)
      AND tx < pg_snapshot_xmin(pg_current_snapshot())
    ORDER BY tx, id LIMIT 10000
    """

  func forEachView(_ body: (FeedItem) -> Void) throws(SharedFeedRefusal) {
    try reading { () throws(SharedFeedRefusal) in try views(body) }
  }

  private func views(_ body: (FeedItem) -> Void) throws(SharedFeedRefusal) {
    var place = FeedPlace.start
    while true {
      let rows: PostgresRows
      do {
        rows = try database.query(
          Self.viewsStatement,
          [
            .text(String(place.tx)), .int64(place.id),
            .int64(Int64(FeedKind.screenViewed.rawValue)),
          ],
          timeout: max(database.timeout, 30))
      } catch {
        throw .unavailable
      }
      for row in 0..<rows.count {
        guard let tx = rows.text(row, 0).flatMap({ UInt64($0) }), let id = rows.integer(row, 1)
        else { continue }
        place = FeedPlace(tx: tx, id: id)
        guard let bytes = rows.bytes(row, 2) else { continue }
        var reader = ByteReader(bytes, at: 0)
        if let item = FeedItem.readUnnumbered(from: &reader, sequence: 0) { body(item) }
      }
      if rows.count < 10000 { return }
    }
  }
}
