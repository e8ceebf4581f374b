import Synchronization

/// Which sessions' presence changed (a stream opened or closed) and when each was last told,
/// so that `event: presence` goes out at most once a second per session, and only after a
/// change. A change of navigation never touches it: presence costs a change nothing.
package final class PresenceBoard: Sendable {
  package static let minimumIntervalMilliseconds: Int64 = 1000

  private struct Entry {
    /// Held only while a message is owed.
    var record: SessionRecord?
    var lastSent: Int64 = .min
    /// Owed even if the session has no share left (its last share just ended).
    var forced = false
  }

  private let entries = Mutex<[SessionID: Entry]>([:])

  package init() {}

  /// `record`'s streams changed: its streams are owed a presence message. `forced`: owed even
  /// when the session has no share (one just ended, and its watchers with it).
  package func changed(_ record: SessionRecord, forced: Bool = false) {
    entries.withLock { entries in
      entries[record.key, default: Entry()].record = record
      if forced { entries[record.key]?.forced = true }
    }
  }

  /// The sessions owed a message that may be sent one by `now`; they count as told at `now`.
  /// Sessions told long enough ago and owed nothing are forgotten.
  package func takeDue(now: Int64) -> [(record: SessionRecord, forced: Bool)] {
    entries.withLock { entries in
      var due: [(record: SessionRecord, forced: Bool)] = []
      for (key, entry) in entries {
        let rested =
          entry.lastSent == .min || now - entry.lastSent >= Self.minimumIntervalMilliseconds
        guard rested else { continue }
        if let record = entry.record {
          due.append((record, entry.forced))
          entries[key] = Entry(record: nil, lastSent: now)
        } else {
          entries[key] = nil
        }
      }
      return due
    }
  }
}
