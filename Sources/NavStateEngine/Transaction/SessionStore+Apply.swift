public import NavJSON
import NavStateWire
package import NavigationCore
import Synchronization

/// An `Idempotency-Key` one call claims: a change settles it with its answer, in the same
/// journal record as the change.
///
/// A reference, held by one request: the engine marks it ``isSettled`` when the change settled
/// it (or it was a replay), so the API knows whether it has a refusal of its own to settle.
/// (`@unchecked Sendable`: one request uses it, on its own thread, from start to end.)
package final class IdempotencyClaim: @unchecked Sendable {
  package let key: String
  package let fingerprint: [UInt8]
  /// This call's number, so that only the call that claimed a key settles it.
  package let owner: UInt64
  package fileprivate(set) var isSettled = false

  private static let calls = Atomic<UInt64>(0)

  package init(key: String, fingerprint: [UInt8]) {
    self.key = key
    self.fingerprint = fingerprint
    self.owner = Self.calls.wrappingAdd(1, ordering: .relaxed).newValue
  }
}

/// What an applied command did: the session's version after it, how many events it made (none:
/// a key it carried is still to be settled), and the answer (`MutationResult`) already written;
/// or, for a key decided before, that answer to give again (`replay`), the command not applied.
public struct AppliedCommand: ~Copyable {
  public var version: Int
  public var eventCount: Int
  public var answer: JSONWriter
  package var replay: IdempotencyLedger.Decision?

  /// The answer, handed over (the rest is copied out first).
  public consuming func takeAnswer() -> JSONWriter { answer }
}

extension Command {
  /// A batch's elements (under `discard` too); nil for any other command.
  var batchElements: [Command]? {
    switch self {
    case .batch(let commands): commands
    case .discarding(let command): command.batchElements
    default: nil
    }
  }

  /// Only the backend may give this command: it sets the session's context (docs/behaviour.md section 9).
  var isBackendOnly: Bool {
    switch self {
    case .setContext: true
    case .discarding(let command): command.isBackendOnly
    case .batch(let commands): commands.contains { $0.isBackendOnly }
    default: false
    }
  }
}

/// The transaction of an operation: everything one change does, under its session's lock.
extension SessionStore {
  /// Applies `command` to `record` and answers `{version, session, events}`, or
  /// `{version, events}` when `minimal` (the caller follows the stream, so the state would be
  /// sent for nothing). In three steps:
  /// - prepare, under the session's lock: the precondition, the core's rules, the event log and
  ///   the memory account (a change that outgrows the budget is undone);
  /// - commit: the record handed to the store (a change it refuses is undone); a store that
  ///   confirms later is waited for with the session's lock let go (its commit gate keeps the
  ///   session's changes in order meanwhile), and a change it then fails is undone;
  /// - publish, under the lock: the idempotency key settled, the events sent to open streams,
  ///   the encoded state kept for the next read.
  ///
  /// With `idempotency`, the change settles its key with its answer's body, kept in the same
  /// record (status 200 and no header fields: the API words a change's header fields from its
  /// body, for the live answer and a replay alike).
  package func apply(
    _ command: Command, to record: SessionRecord, by caller: Caller = .sessionHolder,
    precondition: VersionPrecondition?, minimal: Bool, idempotency: IdempotencyClaim? = nil
  ) throws(EngineRefusal) -> AppliedCommand {
    if caller != .backend, caller != .server, command.isBackendOnly {
      throw EngineRefusal.backendOnly(what: "setting a session's context")
    }
    let storage = self.storage
    let change = Change(
      command: command, precondition: precondition, minimal: minimal, idempotency: idempotency,
      author: caller.author, viewer: caller.viewer, caller: caller)
    guard let storage, storage.confirmsLater else {
      return try commit(change, to: record, storage: storage)
    }
    return try record.commitGate.withLock(of: record) { () throws(EngineRefusal) in
      try commit(change, to: record, storage: storage)
    }
  }

  /// What a call asks of ``apply(_:to:by:precondition:minimal:idempotency:)``.
  private struct Change {
    var command: Command
    var precondition: VersionPrecondition?
    var minimal: Bool
    var idempotency: IdempotencyClaim?
    var author: SessionHistory.Author
    /// Whose answer it is: a share's shows its own share alone.
    var viewer: Viewer
    var caller: Caller
  }

  /// What a change leaves to undo should its store fail it: the tree before (a small copy, made
  /// on the first change), the log as a mark, the time of the change before.
  private struct Undo {
    var navigation: NavigationState
    var mark: EventLog.Mark
    var updatedAt: Timestamp
    var activeSince: Timestamp

    func restore(_ data: inout SessionRecord.Data) {
      data.navigation = navigation
      data.log.rollback(to: mark)
      data.updatedAt = updatedAt
      data.activeSince = activeSince
      data.history.removeNewest()
      data.dropCache()
    }
  }

  private func commit(
    _ change: Change, to record: SessionRecord, storage: (any SessionStorage)?
  ) throws(EngineRefusal) -> AppliedCommand {
    var writer = JSONWriter(capacity: change.minimal ? 512 : 2048)
    // Set only when the store confirms later; kept out of the closure's result, whose tuple is
    // destroyed through the runtime's generic witnesses (see `Waiting`).
    var waiting: Waiting?
    // A revoked share's streams, finished once the lock is let go.
    var endedStreams: [any EventSink] = []
    var replay: IdempotencyLedger.Decision?
    let prepared = try record.data.withLock {
      (data) throws(EngineRefusal) -> (
        version: Int, events: [NavigationEvent], counts: RouteCounts?
      ) in
      // The server's own change (a share's expiry) is no call: it keeps nobody's session alive.
      if change.author == .server {
        guard !data.ended else { throw EngineRefusal.sessionNotFound }
        try migrateIfBehind(record, &data)
      } else {
        try call(record, &data)
        // A share revoked since its token was checked changes nothing.
        try Self.requireStanding(change.caller, in: data)
      }
      // A refusal from here on, or a change of nothing, leaves the key claimed: the API words
      // the answer and settles the key (``decide(_:of:with:)``); a retry meanwhile is told the
      // key is in use.
      if let idempotency = change.idempotency {
        replay = try Self.claim(idempotency, in: &data)
        if replay != nil { return (data.navigation.version, [], nil) }
      }
      try change.precondition?.check(data.navigation.version)
      // Near the memory budget, keep what is needed to undo the operation should it grow the
      // session past it; with room to spare, nothing is copied. With a store, always: a change
      // it cannot keep is undone. (Two values, not an optional tuple: the tuple is destroyed
      // through the runtime's generic witnesses, a thousand instructions a change.)
      let undoNavigation = memory.hasRoom() && storage == nil ? nil : data.navigation
      let undoMark = data.log.mark
      // What the feed compares the change with: the screen shown, the context (a context
      // change names its keys), and for a batch the whole state (its elements are applied
      // again to name the transition).
      let feedOn = feed.isOn
      let activeBefore = feedOn ? data.navigation.activeScreen : nil
      let contextBefore = feedOn && change.command.isBackendOnly ? data.navigation.context : nil
      let batchBefore =
        feedOn && change.command.batchElements != nil ? undoNavigation ?? data.navigation : nil
      let events: [NavigationEvent]
      do throws(NavigationError) {
        events = try data.navigation.apply(change.command)
      } catch {
        throw EngineRefusal.navigation(error)
      }
      guard !events.isEmpty else {
        // A key stays claimed: the API words a change of nothing (a teardown's 204) and
        // settles it with that answer.
        Self.writeAnswer(
          record, &data, minimal: change.minimal, viewer: change.viewer, watchers: shareWatchers,
          events, [], into: &writer)
        noteStateCache(of: record, &data, grew: false)
        return (data.navigation.version, events, data.routeCounts)
      }
      for event in events { data.log.append(event) }
      if let undoNavigation {
        let growth = MemoryFootprint.session(data) - data.accountedBytes
        if growth > 0, !memory.hasRoom(for: growth) {
          data.navigation = undoNavigation
          data.log.rollback(to: undoMark)
          throw EngineRefusal.memoryExhausted
        }
      }
      let previousUpdate = data.updatedAt
      let previousActiveSince = data.activeSince
      data.updatedAt = .now()
      data.history.append(
        SessionHistory.Entry(
          version: data.navigation.version, at: data.updatedAt, by: change.author,
          change: .command(change.command)),
        state: data.navigation, limit: configuration.historyVersions)
      var feedItems: [FeedItem] = []
      if feedOn {
        feedItems = FeedItems.change(
          session: record.key, at: data.updatedAt, before: activeBefore,
          activeSince: data.activeSince, state: data.navigation, events: events,
          contextBefore: contextBefore
        ) {
          if let batchBefore, let elements = change.command.batchElements {
            return FeedTransition.batch(elements, from: batchBefore)
          }
          return FeedTransition.of(change.command, events: events)
        }
        if feedItems.last?.kind == .screenViewed { data.activeSince = data.updatedAt }
        number(&feedItems)
      }
      // Each event is kept in the log in its compact form, and encoded as JSON once: for the
      // streams and this answer alike when the session has streams, else into the answer.
      let entries = data.streamEntries(events)
      // A keyed change is answered before it is kept: the answer goes in its record.
      var decided: (key: String, decision: IdempotencyLedger.Decision)?
      if let idempotency = change.idempotency {
        Self.writeAnswer(
          record, &data, minimal: change.minimal, viewer: change.viewer, watchers: shareWatchers,
          events, entries,
          into: &writer)
        decided = (
          idempotency.key,
          IdempotencyLedger.Decision(
            fingerprint: idempotency.fingerprint, status: 200, headers: [], body: writer.bytes)
        )
      }
      if let storage, let undoNavigation {
        let undo = Undo(
          navigation: undoNavigation, mark: undoMark, updatedAt: previousUpdate,
          activeSince: previousActiveSince)
        switch storage.recordChange(
          of: record, change.command, data: data, decided: decided, feed: feedItems)
        {
        case .stored: break
        case .refused:
          undo.restore(&data)
          giveUp(feedItems)
          throw storage.refusal
        case .pending(let confirmation):
          // Answered once kept: the rest happens after the wait, under the lock again.
          if decided == nil {
            Self.writeAnswer(
              record, &data, minimal: change.minimal, viewer: change.viewer,
              watchers: shareWatchers, events, entries,
              into: &writer)
          }
          waiting = Waiting(
            confirmation: confirmation, undo: undo, entries: entries, decided: decided,
            feed: feedItems)
          noteStateCache(of: record, &data, grew: true)
          return (data.navigation.version, events, data.routeCounts)
        }
      }
      publish(entries, decided: decided, in: &data)
      show(feedItems)
      endedStreams = streamsEnded(by: change.command, of: record, in: &data)
      if decided == nil {
        Self.writeAnswer(
          record, &data, minimal: change.minimal, viewer: change.viewer, watchers: shareWatchers,
          events, entries,
          into: &writer)
      }
      // After the state is written: its encoding is kept with the session, and counted.
      noteStateCache(of: record, &data, grew: true)
      return (data.navigation.version, events, data.routeCounts)
    }
    if let replay {
      change.idempotency?.isSettled = true
      return AppliedCommand(
        version: prepared.version, eventCount: 0, answer: writer, replay: replay)
    }
    if let waiting {
      endedStreams = try confirm(waiting, command: change.command, of: record)
    }
    for sink in endedStreams { sink.finish() }
    if !prepared.events.isEmpty { change.idempotency?.isSettled = true }
    account(prepared.events, counts: prepared.counts)
    return AppliedCommand(
      version: prepared.version, eventCount: prepared.events.count, answer: writer)
  }

  /// Claims a change's key, or says what was decided under it before (to be answered again).
  private static func claim(_ claim: IdempotencyClaim, in data: inout SessionRecord.Data)
    throws(EngineRefusal) -> IdempotencyLedger.Decision?
  {
    let ledger = data.idempotency ?? IdempotencyLedger()
    data.idempotency = ledger
    switch ledger.claim(claim.key, fingerprint: claim.fingerprint, owner: claim.owner) {
    case .claimed: return nil
    case .replay(let decision): return decision
    case .inUse: throw EngineRefusal.idempotencyKeyInUse
    case .reused: throw EngineRefusal.idempotencyKeyReused
    }
  }

  /// A change whose record the store has queued: what is left to do once it is kept. A class,
  /// so that the common case (no store that confirms later) destroys one nil reference.
  private final class Waiting {
    let confirmation: any StorageConfirmation
    let undo: Undo
    let entries: [EventLog.Entry]
    let decided: (key: String, decision: IdempotencyLedger.Decision)?
    let feed: [FeedItem]

    init(
      confirmation: any StorageConfirmation, undo: Undo, entries: [EventLog.Entry],
      decided: (key: String, decision: IdempotencyLedger.Decision)?, feed: [FeedItem]
    ) {
      self.confirmation = confirmation
      self.undo = undo
      self.entries = entries
      self.decided = decided
      self.feed = feed
    }
  }

  /// Waits, with no lock held, for the store to keep a change; then publishes it, or undoes it
  /// (the session's commit gate is held, so no later change stands on it) and refuses it.
  private func confirm(_ waiting: Waiting, command: Command, of record: SessionRecord)
    throws(EngineRefusal) -> [any EventSink]
  {
    let kept = waiting.confirmation.wait()
    return try record.data.withLock { (data) throws(EngineRefusal) -> [any EventSink] in
      guard kept else {
        waiting.undo.restore(&data)
        reaccount(&data)
        giveUp(waiting.feed)
        throw storage?.refusal ?? EngineRefusal.journalUnavailable
      }
      // No stream opened meanwhile: a subscription waits at the commit gate too.
      publish(waiting.entries, decided: waiting.decided, in: &data)
      show(waiting.feed)
      return streamsEnded(by: command, of: record, in: &data)
    }
  }

  /// A revoked share's open streams end, after its `share.revoked` event: taken off the
  /// session here, finished by the caller once the lock is let go.
  private func streamsEnded(
    by command: Command, of record: SessionRecord, in data: inout SessionRecord.Data
  ) -> [any EventSink] {
    // Presence changes (the share's watchers go), and is told even if no share is left.
    if case .revokeShare = command { presence.changed(record, forced: true) }
    guard case .revokeShare(let id, _) = command, !data.subscribers.isEmpty else { return [] }
    return data.removeStreams(ofShare: id)
  }

  /// The change is kept: its key is settled and its events go to the open streams.
  private func publish(
    _ entries: [EventLog.Entry], decided: (key: String, decision: IdempotencyLedger.Decision)?,
    in data: inout SessionRecord.Data
  ) {
    if let decided { data.settle(decided.key, with: decided.decision) }
    if !entries.isEmpty { delivered(data.deliver(entries)) }
  }

  /// One shape for both answers (`MutationResult`): the version always, the state unless the
  /// client follows the stream (`minimal`). The events from `entries` when they were encoded
  /// for the streams, else encoded here.
  private static func writeAnswer(
    _ record: SessionRecord, _ data: inout SessionRecord.Data, minimal: Bool, viewer: Viewer,
    watchers: ShareWatchers,
    _ events: [NavigationEvent], _ entries: [EventLog.Entry], into writer: inout JSONWriter
  ) {
    writer.beginObject()
    writer.key("version")
    writer.int(data.navigation.version)
    if !minimal {
      writer.key("session")
      record.writeState(of: &data, into: &writer, viewer: viewer, watchers: watchers)
    }
    writer.key("events")
    writer.beginArray()
    if entries.isEmpty {
      for event in events { StateJSON.writeEvent(event, into: &writer) }
    } else {
      for entry in entries { writer.raw(entry.json) }
    }
    writer.endArray()
    writer.endObject()
  }

  /// Every authorized call keeps the session alive for another TTL, and first moves it to its
  /// graph's newest version if one was loaded since; one that ended meanwhile is gone.
  package func call(_ record: SessionRecord, _ data: inout SessionRecord.Data)
    throws(EngineRefusal)
  {
    guard !data.ended else { throw EngineRefusal.sessionNotFound }
    touch(&data)
    try migrateIfBehind(record, &data)
  }
}
