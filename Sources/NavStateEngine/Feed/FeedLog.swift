import NavStateWire
import Synchronization

/// An open `GET /v1/feed/stream`, as the feed sees it: it must say how much it has not yet
/// sent, so that a slow reader is sent more only as it reads (it falls behind, never over).
package protocol FeedSink: EventSink {
  var unsentBytes: Int { get }
}

/// The backend feed (docs/behaviour.md, "The backend feed"): every session's items in the
/// order the server applied them, numbered, the last `retention` (to twice that) kept.
///
/// A change takes its numbers (``reserve(_:)``) before it is kept, so that its store keeps the
/// items with them, and shows them (``publish(_:)``) once it is kept, or gives them up
/// (``abandon(_:)``) if it is not. Readers see an item only once every lower number was shown
/// or given up: a reader never passes an item that shows up later.
package final class FeedLog: Sendable {
  /// Items kept at least; 0: no feed.
  package let retention: Int
  private let chunkCapacity: Int
  private let memory: MemoryBudget?
  private let state = SleepingMutex(State())
  /// False once a shared store keeps the items (``keepNothing()``): they are still made and
  /// numbered, for the store, but not held here.
  private let keeping = Atomic(true)
  /// Held by the one thread that writes to the streams (``pump()``).
  private let pumping = Mutex(())

  /// Numbers settled before the ones below them: shown once those are.
  private struct Settled {
    var count: Int
    var items: [FeedItem]
  }

  package struct Subscriber: Sendable {
    package var sink: any FeedSink
    /// The last place sent (or skipped by the filter).
    package var cursor: UInt64
    package var matches: @Sendable (FeedItem) -> Bool
    /// The item as a Server-Sent Events message.
    package var render: @Sendable (FeedItem) -> [UInt8]
  }

  private struct State {
    var chunks: [FeedChunk] = []
    var count = 0
    var footprint = 0
    /// The next number to hand out.
    var next: UInt64 = 1
    /// Every number up to this one is in the chunks or never will be.
    var visible: UInt64 = 0
    /// The newest item in the chunks: the newest place a reader is given. Not `visible`, which
    /// may count numbers given up: those are kept nowhere, and after a restart the feed numbers
    /// on from its newest kept item, so a place past it would name an item to come.
    var newest: UInt64 = 0
    /// Every item up to this number was dropped for retention (or never kept).
    var droppedThrough: UInt64 = 0
    /// Numbers settled out of turn, by their first.
    var early: [UInt64: Settled] = [:]
    var subscribers: [Int: Subscriber] = [:]
    var lastSubscriber = 0
  }

  package init(retention: Int, memory: MemoryBudget? = nil) {
    self.retention = max(0, retention)
    // Small chunks: a reader's snapshot shares them, and the first item appended meanwhile
    // copies the newest (a few hundred KiB at most, not the whole feed's tail).
    chunkCapacity = max(1, min(2048, retention / 8))
    self.memory = memory
  }

  package var isOn: Bool { retention > 0 }

  /// From now on items are made for the store but not held here: it serves them itself.
  package func keepNothing() {
    keeping.store(false, ordering: .relaxed)
  }

  /// Numbers for `count` items, the first returned; each is published or abandoned later.
  package func reserve(_ count: Int) -> UInt64 {
    state.withLock { state in
      let first = state.next
      state.next += UInt64(count)
      return first
    }
  }

  /// Items numbered from a reservation, now kept: shown once the numbers before them are.
  package func publish(_ items: [FeedItem]) {
    guard let first = items.first?.sequence else { return }
    settle(first, Settled(count: items.count, items: items))
  }

  /// A reservation of `count` numbers from `first` whose change was not kept: skipped.
  package func abandon(_ first: UInt64, count: Int) {
    settle(first, Settled(count: count, items: []))
  }

  private func settle(_ first: UInt64, _ settled: Settled) {
    guard keeping.load(ordering: .relaxed) else { return }
    let grown = state.withLock { state -> Int in
      // Most changes settle in turn: no table then.
      guard first == state.visible + 1 else {
        state.early[first] = settled
        return 0
      }
      let before = state.footprint
      for item in settled.items { append(item, to: &state) }
      state.visible += UInt64(settled.count)
      while !state.early.isEmpty, let next = state.early.removeValue(forKey: state.visible + 1) {
        for item in next.items { append(item, to: &state) }
        state.visible += UInt64(next.count)
      }
      return state.footprint - before
    }
    if grown != 0 { memory?.add(grown) }
  }

  private func append(_ item: FeedItem, to state: inout State) {
    if state.chunks.last.map({ $0.count >= chunkCapacity || !$0.accepts(item) }) ?? true {
      let chunk = FeedChunk(capacity: chunkCapacity)
      state.footprint += chunk.footprint
      state.chunks.append(chunk)
    }
    let before = state.chunks[state.chunks.count - 1].footprint
    state.chunks[state.chunks.count - 1].append(item)
    state.footprint += state.chunks[state.chunks.count - 1].footprint - before
    state.count += 1
    state.newest = item.sequence
    // Whole chunks go, once what is left still holds `retention` items.
    while let oldest = state.chunks.first, state.count - oldest.count >= retention {
      state.droppedThrough = max(state.droppedThrough, oldest.last ?? 0)
      state.count -= oldest.count
      state.footprint -= oldest.footprint
      state.chunks.removeFirst()
    }
  }

  /// Items read back at start (from a data directory), in any order and possibly twice: kept
  /// in order, and numbering goes on after the highest.
  package func restore(_ items: [FeedItem]) {
    let sorted = items.sorted { $0.sequence < $1.sequence }
    let grown = state.withLock { state -> Int in
      let before = state.footprint
      var last = state.visible
      for item in sorted where item.sequence > last && item.sequence > 0 {
        append(item, to: &state)
        last = item.sequence
      }
      if let lowest = sorted.first?.sequence, lowest > 0, state.droppedThrough == 0 {
        state.droppedThrough = lowest - 1
      }
      state.visible = max(state.visible, last)
      state.next = max(state.next, last + 1)
      return state.footprint - before
    }
    memory?.add(grown)
  }

  /// What the feed holds now, to read without its lock.
  package struct Snapshot: Sendable {
    fileprivate var chunks: [FeedChunk]
    /// The newest place a reader may name: the newest item kept.
    package var newest: UInt64
    /// Places up to this one are no longer kept.
    package var droppedThrough: UInt64
    package var count: Int

    /// Calls `body` with each item after `sequence`, in order, until it returns false.
    package func forEach(after sequence: UInt64, _ body: (FeedItem) -> Bool) {
      for chunk in chunks where (chunk.last ?? 0) > sequence {
        for index in chunk.index(after: sequence)..<chunk.count {
          guard let item = chunk[index] else { continue }
          if !body(item) { return }
        }
      }
    }
  }

  package func snapshot() -> Snapshot {
    state.withLock { state in
      Snapshot(
        chunks: state.chunks, newest: state.newest, droppedThrough: state.droppedThrough,
        count: state.count)
    }
  }

  /// The place after every item kept, and the oldest place a reader may name.
  package var places: (newest: UInt64, oldest: UInt64) {
    state.withLock { ($0.newest, $0.droppedThrough) }
  }

  package var itemCount: Int { state.withLock { $0.count } }
  package var footprint: Int { state.withLock { $0.footprint } }

  // MARK: Streams

  package func subscribe(_ subscriber: Subscriber) -> Int {
    state.withLock { state in
      state.lastSubscriber += 1
      state.subscribers[state.lastSubscriber] = subscriber
      return state.lastSubscriber
    }
  }

  package func unsubscribe(_ id: Int) {
    _ = state.withLock { $0.subscribers.removeValue(forKey: id) }
  }

  /// Sends every stream what it has not been sent yet, as much as it has room for: called
  /// often by a duty of its own. A stream that fell behind what is kept ends.
  package func pump(maxUnsentBytes: Int = 512 * 1024, maxItems: Int = 4096) {
    pumping.withLock { _ in
      let (subscribers, snapshot) = state.withLock { state in
        (
          state.subscribers,
          state.subscribers.isEmpty
            ? nil
            : Snapshot(
              chunks: state.chunks, newest: state.newest,
              droppedThrough: state.droppedThrough, count: state.count)
        )
      }
      guard let snapshot else { return }
      for (id, subscriber) in subscribers where subscriber.cursor < snapshot.newest {
        guard subscriber.cursor >= snapshot.droppedThrough else {
          unsubscribe(id)
          subscriber.sink.finish()
          continue
        }
        guard subscriber.sink.unsentBytes < maxUnsentBytes else { continue }
        var cursor = subscriber.cursor
        var bytes: [UInt8] = []
        var sent = 0
        var reachedEnd = true
        snapshot.forEach(after: cursor) { item in
          if subscriber.matches(item) {
            bytes += subscriber.render(item)
            sent += 1
          }
          cursor = item.sequence
          if sent >= maxItems || bytes.count >= maxUnsentBytes {
            reachedEnd = false
            return false
          }
          return true
        }
        if reachedEnd { cursor = snapshot.newest }
        if !bytes.isEmpty, !subscriber.sink.write(bytes) {
          unsubscribe(id)
          continue
        }
        state.withLock { $0.subscribers[id]?.cursor = cursor }
      }
    }
  }
}
