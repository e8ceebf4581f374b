import NavStateEngine
import NavStateWire
import PostgresClient
import Synchronization

/// The feed's streams: each open one is sent, every ``PostgresFeed/pumpInterval``, what was
/// kept after its place, as fast as its client reads.
extension PostgresFeed {
  func follow(
    after cursor: String, filter: FeedFilter, sink: any FeedSink,
    render: @escaping @Sendable (SharedFeedEntry) -> [UInt8]
  ) -> @Sendable () -> Void {
    let place = cursors.place(cursor) ?? .start
    let id = lastFollower.wrappingAdd(1, ordering: .relaxed).newValue
    followers.withLock {
      $0[id] = Follower(sink: sink, place: place, filter: filter, render: render)
    }
    return { [self] in _ = followers.withLock { $0.removeValue(forKey: id) } }
  }

  /// Sends every stream what is new, as much as it has room for (the feed duty, every
  /// ``pumpInterval``). A stream that fell behind what is kept ends; while the database does
  /// not answer, streams wait (their heartbeats go on).
  func pump(maxUnsentBytes: Int = 512 * 1024) {
    for (id, follower) in followers.withLock({ $0 }) {
      let room = maxUnsentBytes - follower.sink.unsentBytes
      guard room > 0 else { continue }
      let page: (entries: [Entry], next: FeedPlace, from: FeedPlace)
      do {
        page = try entries(after: follower.place, limit: 1000, filter: follower.filter)
      } catch {
        if case .unavailable = error { return }
        // Behind what is kept (or a place PostgreSQL no longer knows): the stream ends, and
        // its client's reconnection is answered with where to go on from.
        _ = followers.withLock { $0.removeValue(forKey: id) }
        follower.sink.finish()
        continue
      }
      var bytes: [UInt8] = []
      // After the last item written when the room runs out (the rest at the next pump), else
      // where the page goes on from.
      var place = page.next
      var written: FeedPlace?
      for entry in page.entries {
        let frame = follower.render(
          SharedFeedEntry(
            cursor: cursors.string(entry.place), idPrefix: NodeName.idPrefix(ofSlot: entry.slot),
            item: entry.item))
        if let written, bytes.count + frame.count > room {
          place = written
          break
        }
        bytes += frame
        written = entry.place
      }
      if !bytes.isEmpty, !follower.sink.write(bytes) {
        _ = followers.withLock { $0.removeValue(forKey: id) }
        continue
      }
      followers.withLock { $0[id]?.place = place }
    }
  }
}
