import Dispatch
import Synchronization

/// Group commit, as PostgreSQL and Redis do it: records that arrive while a write is under way
/// wait together in the open group, and once that write is done one of them (the leader) writes
/// the whole group with one call of `write`: one copy into the journal file and one flush (a
/// `Batch` of bytes), or one statement in PostgreSQL (a batch of records). Each caller waits
/// only until the group that holds its own record is done.
///
/// Sleepers wait on their group's semaphore, not on a condition variable: with many threads
/// waiting and waking at once, glibc 2.36's `pthread_cond_broadcast` was seen to spin for good in
/// `__condvar_quiesce_and_switch_g1` (an `--fsync always` server under wrk, 64 connections).
package final class CommitGroups<Batch: RangeReplaceableCollection & Sendable>: Sendable {
  /// Records written together. Guarded by `state`'s lock, but for `wake`.
  fileprivate final class Group: @unchecked Sendable {
    var batch = Batch()
    /// Callers asleep on `wake`.
    var sleepers = 0
    var done = false
    var written = false
    let wake = DispatchSemaphore(value: 0)
  }

  private struct State: ~Copyable {
    /// Where arriving records go.
    var open = Group()
    /// A leader is writing a group; the next leader is one of the open group's sleepers.
    var leading = false
  }

  private let state = Mutex(State())

  package init() {}

  /// A record's place in a group: given by ``enqueue(_:)``, redeemed once by
  /// ``wait(for:write:)``.
  package struct Ticket: @unchecked Sendable {
    fileprivate let group: Group
    fileprivate let leads: Bool
  }

  /// Adds `record` to the open group and returns once the group was written: what `write`
  /// answered for it (a group is written whole or not at all).
  package func commit(_ record: Batch, write: (Batch) -> Bool) -> Bool {
    wait(for: enqueue(record), write: write)
  }

  /// Adds `record` to the open group, in the order of the calls: a caller that holds a lock
  /// while it enqueues (a session's) fixes the order of its records, and waits with
  /// ``wait(for:write:)`` once it let go of the lock. Every ticket must be waited for, once:
  /// the group's leader hands the lead to a waiter of the next group.
  package func enqueue(_ record: Batch) -> Ticket {
    state.withLock { state -> Ticket in
      let group = state.open
      group.batch += record
      guard !state.leading else {
        group.sleepers += 1
        return Ticket(group: group, leads: false)
      }
      state.leading = true
      state.open = Group()
      return Ticket(group: group, leads: true)
    }
  }

  /// Returns once the ticket's group was written (writing it, when this caller leads): what
  /// `write` answered for it.
  package func wait(for ticket: Ticket, write: (Batch) -> Bool) -> Bool {
    let group = ticket.group
    if !ticket.leads {
      group.wake.wait()
      // Woken because the group is done, or to lead it (handed over, see `lead`).
      if state.withLock({ _ in group.done }) { return group.written }
    }
    return lead(group, write)
  }

  /// Writes `group`; then hands the lead to one sleeper of the group that opened meanwhile (it
  /// stays closed to new records from then on), or, with none, leaves the next caller to lead.
  private func lead(_ group: Group, _ write: (Batch) -> Bool) -> Bool {
    let written = write(group.batch)
    let (sleepers, next) = state.withLock { state -> (Int, Group?) in
      group.done = true
      group.written = written
      let waiting = state.open
      guard waiting.sleepers > 0 else {
        state.leading = false
        return (group.sleepers, nil)
      }
      waiting.sleepers -= 1
      state.open = Group()
      return (group.sleepers, waiting)
    }
    next?.wake.signal()
    for _ in 0..<sleepers { group.wake.signal() }
    return written
  }
}
