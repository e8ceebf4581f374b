package import NavigationCore
package import Synchronization

/// Every live session by its key, split into shards so that requests on different sessions do
/// not contend on one lock; and how many sessions and coordinators are live.
package final class SessionRegistry: Sendable {
  private final class Shard: Sendable {
    let sessions = Mutex<[SessionID: SessionRecord]>([:])
  }

  private let shards: [Shard] = (0..<64).map { _ in Shard() }
  /// Live sessions, places reserved for ones being made included (see ``SessionAdmission``).
  package let sessionCount = Atomic<Int>(0)
  package let coordinatorCount = Atomic<Int>(0)

  package init() {}

  private func shard(for key: SessionID) -> Shard {
    // The id is random: its own bits spread the sessions evenly.
    shards[Int(key.randomBits % UInt64(shards.count))]
  }

  package subscript(key: SessionID) -> SessionRecord? {
    shard(for: key).sessions.withLock { $0[key] }
  }

  /// Adds `record` unless its key is taken; false if it is.
  package func insert(_ record: SessionRecord) -> Bool {
    shard(for: record.key).sessions.withLock { sessions in
      guard sessions[record.key] == nil else { return false }
      sessions[record.key] = record
      return true
    }
  }

  /// Puts `record` in its place, whatever was there (a session read back at start-up).
  package func replace(_ record: SessionRecord) {
    shard(for: record.key).sessions.withLock { $0[record.key] = record }
  }

  @discardableResult
  package func remove(_ key: SessionID) -> SessionRecord? {
    shard(for: key).sessions.withLock { $0.removeValue(forKey: key) }
  }

  /// Calls `body` with every session held, shard by shard (not under the shard's lock).
  package func forEach(_ body: (SessionRecord) -> Void) {
    for shard in shards {
      let records = shard.sessions.withLock { Array($0.values) }
      for record in records { body(record) }
    }
  }

  /// Counts the coordinators `events` started and stopped.
  package func countCoordinators(_ events: [NavigationEvent]) {
    var delta = 0
    for event in events {
      switch event.kind {
      case .started: delta += 1
      case .stopped: delta -= 1
      default: break
      }
    }
    if delta != 0 { coordinatorCount.wrappingAdd(delta, ordering: .relaxed) }
  }
}
