import NavStateEngine
import NavStateWire
import PostgresClient
import Synchronization

/// The backend feed in PostgreSQL, one for the whole cluster (``SharedFeed``): every node writes
/// the items of its changes into `navstate_feed` in the statement that commits the changes
/// (``PostgresStorage``), and any node reads every node's items back.
///
/// The order is the order of the transactions that wrote them (`tx`, PostgreSQL's own
/// transaction id, `pg_current_xact_id()`), then of the items within one. A transaction id is
/// drawn when a transaction starts writing, not when it commits, so two commits may become
/// visible out of that order; a reader therefore sees only the items of transactions older than
/// the oldest one still running (`pg_snapshot_xmin`, "the frontier"): no item can show up later
/// before a place it has passed. One node's commits run one after another, and a session moves
/// to another node only after its last commit there (the claim waits for it), so a session's
/// items keep their order.
///
/// Retention: ``trimIfDue()`` deletes all but the newest `retention` items once enough were
/// written, and records the place it deleted up to (`trimmed`) in the same transaction; a page
/// reads that place in its own snapshot, so a cursor behind it is refused (410) rather than
/// answered with a gap.
final class PostgresFeed: SharedFeed {
  let database: Database
  let retention: Int
  let cursors: FeedCursorText
  /// Items this node wrote since its last trim, and when that was (monotonic seconds).
  let writtenSinceTrim = Atomic<Int>(0)
  let lastTrim = Mutex<Double>(MonotonicClock.now())
  let followers = Mutex<[Int: Follower]>([:])
  let lastFollower = Atomic<Int>(0)
  /// A filtered read scans at most this many items; its `next` then says where it stopped.
  static let scanLimit = 100_000
  /// How often the streams are sent what is new (``pump()``).
  static let pumpInterval = 0.1

  struct Follower: Sendable {
    var sink: any FeedSink
    var place: FeedPlace
    var filter: FeedFilter
    var render: @Sendable (SharedFeedEntry) -> [UInt8]
  }

  init(database: Database, retention: Int, epoch: UInt32) {
    self.database = database
    self.retention = retention
    cursors = FeedCursorText(epoch: epoch)
  }

  /// The feed's epoch, from its state row (made with the tables).
  static func epoch(in database: Database) throws(PostgresError) -> UInt32 {
    let rows = try database.query("SELECT epoch FROM navstate_feed_state LIMIT 1")
    return UInt32(truncatingIfNeeded: rows.count == 1 ? rows.integer(0, 0) ?? 1 : 1)
  }

  /// Items written by this node (counted towards the next trim).
  func noteWritten(_ count: Int) {
    if count > 0 { writtenSinceTrim.wrappingAdd(count, ordering: .relaxed) }
  }

  // MARK: Reading

  static let pageStatement = """
    WITH state AS (
      SELECT trimmed_tx, trimmed_id, pg_snapshot_xmin(pg_current_snapshot()) AS frontier
      FROM navstate_feed_state LIMIT 1
    ), scanned AS (
      SELECT f.tx, f.id, f.kind, f.session, f.slot FROM navstate_feed AS f, state AS s
      WHERE (f.tx, f.id) > ($1::text::xid8, $2::int8) AND f.tx < s.frontier
      ORDER BY f.tx, f.id LIMIT $3
    ), matched AS (
      SELECT tx, id FROM scanned
      WHERE (cardinality($4::int8[]) = 0 OR kind = ANY($4::int8[]))
        AND (length($5::bytea) = 0 OR (session = $5::bytea AND slot = $7))
      ORDER BY tx, id LIMIT $6
    )
    SELECT 's', s.trimmed_tx::text, s.trimmed_id, s.frontier::text,
      (SELECT count(*) FROM scanned)::int8, NULL::bytea
    FROM state AS s
    UNION ALL
    SELECT 'l', l.tx::text, l.id, NULL, NULL, NULL
    FROM (SELECT tx, id FROM scanned ORDER BY tx DESC, id DESC LIMIT 1) AS l
    UNION ALL
    SELECT 'm', f.tx::text, f.id, f.slot, NULL, f.item
    FROM matched AS m JOIN navstate_feed AS f ON f.tx = m.tx AND f.id = m.id
    """

  typealias Entry = (place: FeedPlace, slot: String, item: FeedItem)

  /// What one read found: the items, where it stopped, and the feed's bounds in its snapshot.
  private struct Read {
    var entries: [Entry] = []
    /// Rows the filter picked, and the last of them: counted even when one does not read back,
    /// so that a page of `limit` rows goes on after its last row, not past the rows after it.
    var matched = 0
    var lastMatched: FeedPlace?
    var lastScanned: FeedPlace?
    var scanned = 0
    var trimmed = FeedPlace.start
    var frontier: UInt64 = 0
  }

  /// Reads on request threads at a time (pages, stream starts, funnels); more are refused (503)
  /// rather than queued, so that backend readers cannot take the database's connections from the
  /// commits (they have a pool of their own, of at most this many plus the streams' one).
  static let maxReaders = 4
  private let readers = Atomic<Int>(0)

  func reading<T>(_ body: () throws(SharedFeedRefusal) -> T) throws(SharedFeedRefusal)
    -> T
  {
    guard readers.wrappingAdd(1, ordering: .acquiring).newValue <= Self.maxReaders else {
      readers.wrappingAdd(-1, ordering: .releasing)
      throw .unavailable
    }
    defer { readers.wrappingAdd(-1, ordering: .releasing) }
    return try body()
  }

  private func read(after place: FeedPlace, limit: Int, scanLimit: Int, filter: FeedFilter)
    throws(SharedFeedRefusal) -> Read
  {
    let rows: PostgresRows
    do {
      rows = try database.query(
        Self.pageStatement,
        [
          .text(String(place.tx)), .int64(place.id), .int64(Int64(scanLimit)),
          .int64Array(filter.kinds.map { $0.map { Int64($0.rawValue) } } ?? []),
          .bytes(filter.session.map(PostgresStorage.key) ?? []), .int64(Int64(limit)),
          .text(filter.slot ?? ""),
        ], prepare: true)
    } catch {
      throw .unavailable
    }
    var read = Read()
    for row in 0..<rows.count {
      guard let tx = rows.text(row, 1).flatMap({ UInt64($0) }), let id = rows.integer(row, 2)
      else { continue }
      let here = FeedPlace(tx: tx, id: id)
      switch rows.text(row, 0) {
      case "s":
        read.trimmed = here
        read.frontier = rows.text(row, 3).flatMap { UInt64($0) } ?? 0
        read.scanned = Int(rows.integer(row, 4) ?? 0)
      case "l":
        read.lastScanned = here
      default:
        read.matched += 1
        read.lastMatched = max(read.lastMatched ?? here, here)
        guard let slot = rows.text(row, 3), let bytes = rows.bytes(row, 5) else { continue }
        var reader = ByteReader(bytes, at: 0)
        // An item this server cannot read (a damaged row) is passed over, not a failed page.
        guard let item = FeedItem.readUnnumbered(from: &reader, sequence: 0) else { continue }
        read.entries.append((here, slot, item))
      }
    }
    read.entries.sort { $0.place < $1.place }
    return read
  }

  /// Up to `limit` items after `place` that `filter` picks, and the place to go on from: after
  /// the last of them when there were `limit`, else after the last item looked at (never past
  /// an item not seen, not even to the frontier: after a crash or a failover PostgreSQL may hand
  /// out transaction ids again from below a frontier it had reported, and items would then come
  /// before such a place).
  func entries(after place: FeedPlace?, limit: Int, filter: FeedFilter)
    throws(SharedFeedRefusal) -> (entries: [Entry], next: FeedPlace, from: FeedPlace)
  {
    let filtered = filter.kinds != nil || filter.session != nil
    let scanLimit = filtered ? Self.scanLimit : limit
    let read = try read(after: place ?? .start, limit: limit, scanLimit: scanLimit, filter: filter)
    let from = try checked(place, trimmed: read.trimmed, frontier: read.frontier)
    let next: FeedPlace
    if read.matched >= limit, let last = read.lastMatched {
      next = last
    } else {
      // Fewer than `limit` picked: every item looked at is passed (all of them when the scan
      // ended before its limit).
      next = read.lastScanned ?? from
    }
    return (read.entries, max(from, next), from)
  }

  /// `place` checked against the feed's bounds in a read's snapshot (nil: the oldest kept).
  private func checked(_ place: FeedPlace?, trimmed: FeedPlace, frontier: UInt64)
    throws(SharedFeedRefusal) -> FeedPlace
  {
    guard let place else { return trimmed }
    guard place.tx < max(frontier, 1) else { throw .invalidCursor }
    guard place >= trimmed else { throw .expired(oldest: cursors.string(trimmed)) }
    return place
  }

  private func place(_ cursor: String?) throws(SharedFeedRefusal) -> FeedPlace? {
    guard let cursor else { return nil }
    guard let place = cursors.place(cursor) else { throw .invalidCursor }
    return place
  }

  func page(after cursor: String?, limit: Int, filter: FeedFilter) throws(SharedFeedRefusal)
    -> SharedFeedPage
  {
    try reading { () throws(SharedFeedRefusal) in
      let page = try entries(after: try place(cursor), limit: limit, filter: filter)
      return SharedFeedPage(
        entries: page.entries.map {
          SharedFeedEntry(
            cursor: cursors.string($0.place), idPrefix: NodeName.idPrefix(ofSlot: $0.slot),
            item: $0.item)
        }, next: cursors.string(page.next))
    }
  }

  func start(after cursor: String?) throws(SharedFeedRefusal) -> String {
    try reading { () throws(SharedFeedRefusal) in
      let page = try entries(
        after: try place(cursor), limit: 0, filter: FeedFilter(kinds: nil, session: nil))
      return cursors.string(page.from)
    }
  }
}
