import Dispatch
import Synchronization

/// Group commit with a thread of its own: records that arrive while a commit is under way wait
/// together, and the committer writes them all with the next statement as soon as the one under
/// way is done. It sends that statement before it wakes the callers of the group just
/// committed, so PostgreSQL works on the next group while they are woken.
///
/// ``CommitGroups`` (the journal's) hands the lead from one caller to another instead: after
/// each commit the next leader must be woken and scheduled before the next statement goes out,
/// and with two cores shared by the node, PostgreSQL and the load, that wait left PostgreSQL
/// idle between commits.
final class CommitLine<Record: Sendable>: Sendable {
  /// Records committed together. Guarded by `state`'s lock, but for `wake`.
  final class Group: @unchecked Sendable {
    var records: [Record] = []
    var written = false
    let wake = DispatchSemaphore(value: 0)
  }

  private struct State: ~Copyable {
    var open = Group()
    /// The committer waits for work: the next record must signal it.
    var idle = true
    var stopped = false
  }

  private let state = Mutex(State())
  private let work = DispatchSemaphore(value: 0)

  /// Starts the committer. `write` commits a group, calling its `sent` argument once the
  /// statement is on its way (or not at all if it never left); true when the group was kept.
  init(write: @escaping @Sendable (_ records: [Record], _ sent: () -> Void) -> Bool) {
    let queue = DispatchQueue(label: "navstate.postgres.commits", qos: .userInitiated)
    queue.async { [self] in run(write) }
  }

  /// Adds `record` to the open group: the group to wait for with ``wait(for:)``. A caller that
  /// holds a lock while it enqueues (a session's) fixes the order of its records.
  func enqueue(_ record: Record) -> Group {
    let (group, signal) = state.withLock { state -> (Group, Bool) in
      guard !state.stopped else {
        // No committer any more: refused at once (written stays false).
        let refused = Group()
        refused.wake.signal()
        return (refused, false)
      }
      state.open.records.append(record)
      defer { state.idle = false }
      return (state.open, state.idle)
    }
    if signal { work.signal() }
    return group
  }

  /// Returns once `group` was committed (or refused): whether it was kept.
  func wait(for group: Group) -> Bool {
    group.wake.wait()
    return state.withLock { _ in group.written }
  }

  /// Ends the committer once the groups that were enqueued are written.
  func stop() {
    state.withLock { $0.stopped = true }
    work.signal()
  }

  private func run(_ write: (_ records: [Record], _ sent: () -> Void) -> Bool) {
    var committed: Group?
    while true {
      // Whether to stop is decided with the group's emptiness, under one lock: a record that
      // came just before the stop is still written.
      let (next, stopping) = state.withLock { state -> (Group?, Bool) in
        guard !state.open.records.isEmpty else {
          state.idle = true
          return (nil, state.stopped)
        }
        let group = state.open
        state.open = Group()
        return (group, false)
      }
      guard let group = next else {
        if let committed { Self.wakeAll(committed) }
        committed = nil
        if stopping { return }
        work.wait()
        continue
      }
      var waking = committed
      let written = write(group.records) {
        if let done = waking { Self.wakeAll(done) }
        waking = nil
      }
      if let done = waking { Self.wakeAll(done) }
      state.withLock { _ in group.written = written }
      committed = group
    }
  }

  private static func wakeAll(_ group: Group) {
    for _ in 0..<group.records.count { group.wake.signal() }
  }
}
