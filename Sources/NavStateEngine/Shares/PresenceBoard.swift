package import Synchronization

/// Which sessions' presence changed (a stream opened or closed) and when each was last told,
/// so that `event: presence` goes out at most once a second per session, and only after a
/// change. A change of navigation never touches it: presence costs a change nothing.
package final class PresenceBoard: Sendable {
  package static let minimumIntervalMilliseconds: Int64 = 1000

  private struct Entry {
    /// Held only while a message is owed.
    var record: SessionRecord?
    var lastSent: Int64 = .min
  }

  private let entries = Mutex<[SessionID: Entry]>([:])

  package init() {}

  /// `record`'s streams changed: its streams are owed a presence message.
  package func changed(_ record: SessionRecord) {
    entries.withLock { entries in entries[record.key, default: Entry()].record = record }
  }

  /// The sessions owed a message that may be sent one by `now`; they count as told at `now`.
  /// Sessions told long enough ago and owed nothing are forgotten.
  package func takeDue(now: Int64) -> [SessionRecord] {
    entries.withLock { entries in
      var due: [SessionRecord] = []
      for (key, entry) in entries {
        let rested =
          entry.lastSent == .min || now - entry.lastSent >= Self.minimumIntervalMilliseconds
        guard rested else { continue }
        if let record = entry.record {
          due.append(record)
          entries[key] = Entry(record: nil, lastSent: now)
        } else {
          entries[key] = nil
        }
      }
      return due
    }
  }
}
