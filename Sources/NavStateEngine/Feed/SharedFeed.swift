import NavStateWire
import NavigationCore

/// The backend feed kept by a store that every node shares (`--postgres`): any node serves the
/// items of every node's sessions, and a cursor one node issued goes on at any other, so that a
/// reader follows the whole cluster through one address and across a failover. The store writes
/// the items with the changes that made them (the output gate keeps them together); this is how
/// they are read back.
package protocol SharedFeed: AnyObject, Sendable {
  /// Up to `limit` items after `cursor` (from the oldest kept when nil) that `filter` picks, and
  /// the cursor to go on from.
  func page(after cursor: String?, limit: Int, filter: FeedFilter) throws(SharedFeedRefusal)
    -> SharedFeedPage
  /// The cursor a stream starts after: `cursor` checked, or the oldest kept when nil.
  func start(after cursor: String?) throws(SharedFeedRefusal) -> String
  /// Sends `sink` every item after `cursor` (one ``start(after:)`` answered) that `filter`
  /// picks, as they are kept, rendered by `render`, as fast as the sink is read; a reader that
  /// falls behind what is kept is ended. Returns what ends the following (called once the sink
  /// closes).
  func follow(
    after cursor: String, filter: FeedFilter, sink: any FeedSink,
    render: @escaping @Sendable (SharedFeedEntry) -> [UInt8]
  ) -> @Sendable () -> Void
  /// Calls `body` with every kept `screen.viewed` item, in feed order (for funnels).
  func forEachView(_ body: (FeedItem) -> Void) throws(SharedFeedRefusal)
}

/// Which items a feed reader asked for (`types=`, `session=`); nil: any.
package struct FeedFilter: Sendable {
  package var kinds: Set<FeedKind>?
  package var session: SessionID?
  /// The node name `session`'s id begins with, for a shared feed (which holds every node's
  /// sessions); nil for a node's own feed, whose ids all begin with its name.
  package var slot: String?

  package init(kinds: Set<FeedKind>?, session: SessionID?, slot: String? = nil) {
    self.kinds = kinds
    self.session = session
    self.slot = slot
  }

  package func matches(_ item: FeedItem) -> Bool {
    (kinds?.contains(item.kind) ?? true) && (session.map { $0 == item.session } ?? true)
  }
}

/// One item as a shared feed reads it back: its cursor, and the prefix of its session's id (the
/// slot it belongs to, as `node.`).
package struct SharedFeedEntry: Sendable {
  package var cursor: String
  package var idPrefix: String
  package var item: FeedItem

  package init(cursor: String, idPrefix: String, item: FeedItem) {
    self.cursor = cursor
    self.idPrefix = idPrefix
    self.item = item
  }
}

package struct SharedFeedPage: Sendable {
  package var entries: [SharedFeedEntry]
  package var next: String

  package init(entries: [SharedFeedEntry], next: String) {
    self.entries = entries
    self.next = next
  }
}

/// Why a shared feed did not answer a read.
package enum SharedFeedRefusal: Error, Sendable, Equatable {
  /// A cursor this feed never issued (400 `invalid_cursor`).
  case invalidCursor
  /// A cursor older than what is kept (410 `cursor_expired`), and where the feed starts now.
  case expired(oldest: String)
  /// The store did not answer in time (503 `store_unavailable`).
  case unavailable
}

extension SessionStore {
  /// From now on the feed is read from `feed`, and this node keeps no items in memory (the
  /// store has them). Called before the store serves any request, as ``attach(_:)`` is.
  package func attach(sharedFeed: any SharedFeed) {
    sharedFeedValue = sharedFeed
    feed.keepNothing()
  }

  package var sharedFeed: (any SharedFeed)? { sharedFeedValue }
}
