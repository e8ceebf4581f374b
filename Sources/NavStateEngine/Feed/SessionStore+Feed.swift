import NavStateWire
import NavigationCore
import Synchronization

/// How the transaction of a change hands its feed items on: numbered before the store keeps
/// them, shown once it has, given up if it refuses.
extension SessionStore {
  /// Numbers `items` from a reservation of the feed's (none for an empty list).
  package func number(_ items: inout [FeedItem]) {
    guard !items.isEmpty else { return }
    let first = feed.reserve(items.count)
    for index in items.indices { items[index].sequence = first + UInt64(index) }
  }

  /// The change that made `items` is kept: readers may see them.
  package func show(_ items: [FeedItem]) {
    if !items.isEmpty { feed.publish(items) }
  }

  /// The change that made `items` was not kept: their numbers are skipped.
  package func giveUp(_ items: [FeedItem]) {
    if let first = items.first?.sequence { feed.abandon(first, count: items.count) }
  }

  /// The feed's streams are sent what is new: a duty, every 5 ms while the feed is on and kept
  /// here (a shared feed's store runs its own, ``attach(sharedFeed:)``).
  package var feedDuty: Duty? {
    guard feed.isOn, sharedFeed == nil else { return nil }
    return Duty(label: "navstate.feed", interval: 0.005) { [feed] in
      feed.pump()
      return nil
    }
  }
}

extension SessionStore {
  /// Opens a feed stream from `cursor` on: counted like any event stream (per client address,
  /// the memory budget, heartbeats), and sent its items by the feed's duty as it reads them.
  package func followFeed<Sink: FeedSink>(
    after cursor: UInt64, client: String, matches: @escaping @Sendable (FeedItem) -> Bool,
    render: @escaping @Sendable (FeedItem) -> [UInt8],
    makeSink: (_ maxBufferedBytes: Int, _ onClose: @escaping @Sendable () -> Void) -> Sink
  ) throws(EngineRefusal) -> Sink {
    try openFeedStream(client: client, makeSink: makeSink) { [feed] sink in
      let id = feed.subscribe(
        FeedLog.Subscriber(sink: sink, cursor: cursor, matches: matches, render: render))
      return { feed.unsubscribe(id) }
    }
  }

  /// Opens a stream of the shared feed (``SharedFeed``) after `cursor`, one that
  /// ``SharedFeed/start(after:)`` answered: counted as ``followFeed(after:client:matches:render:makeSink:)`` counts it.
  package func followSharedFeed<Sink: FeedSink>(
    _ shared: any SharedFeed, after cursor: String, client: String, filter: FeedFilter,
    render: @escaping @Sendable (SharedFeedEntry) -> [UInt8],
    makeSink: (_ maxBufferedBytes: Int, _ onClose: @escaping @Sendable () -> Void) -> Sink
  ) throws(EngineRefusal) -> Sink {
    try openFeedStream(client: client, makeSink: makeSink) { sink in
      shared.follow(after: cursor, filter: filter, sink: sink, render: render)
    }
  }

  /// A feed stream counted and budgeted, its first comment written, then handed to `follow`,
  /// whose answer is called when it closes.
  private func openFeedStream<Sink: FeedSink>(
    client: String,
    makeSink: (_ maxBufferedBytes: Int, _ onClose: @escaping @Sendable () -> Void) -> Sink,
    follow: (Sink) -> @Sendable () -> Void
  ) throws(EngineRefusal) -> Sink {
    try streams.reserve(for: client)
    // What the stream may hold unsent at most: what a pump found (under 512 KiB) and wrote.
    let footprint = MemoryFootprint.stream + 4 * MemoryFootprint.streamBufferLimit
    guard memory.hasRoom(for: footprint) else {
      streams.release(of: client)
      throw EngineRefusal.memoryExhausted
    }
    memory.add(footprint)
    let unfollow = Mutex<(@Sendable () -> Void)?>(nil)
    // Room for what a pump writes at most (512 KiB) beyond what it found unsent.
    let sink = makeSink(8 * MemoryFootprint.streamBufferLimit) {
      [streams, memory] in
      if let stop = unfollow.withLock({ $0 }) { stop() }
      streams.closed()
      streams.release(of: client)
      memory.add(-footprint)
    }
    sink.write(Array(": navstate feed\n\n".utf8))
    let stop = follow(sink)
    unfollow.withLock { $0 = stop }
    streams.opened(sink, now: .now())
    return sink
  }
}
