import Synchronization

/// When each session with shares next has one to expire: the sessions the share duty visits.
/// Few sessions have shares, so a map scanned once a second costs nothing to the rest.
package final class ShareDeadlines: Sendable {
  private let next = Mutex<[SessionID: Int64]>([:])

  package init() {}

  /// `key` has a share that expires at `at` (ms): visited then, or sooner if it already was due.
  package func schedule(_ key: SessionID, at: Int64) {
    next.withLock { next in next[key] = min(next[key] ?? .max, at) }
  }

  /// The sessions due by `now`, taken off (the duty schedules again what is left of each).
  package func takeDue(now: Int64) -> [SessionID] {
    next.withLock { next in
      let due = next.filter { $0.value <= now }.map(\.key)
      for key in due { next[key] = nil }
      return due
    }
  }
}
