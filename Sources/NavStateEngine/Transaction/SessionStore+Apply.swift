public import NavJSON
import NavStateWire
package import NavigationCore
import Synchronization

/// An `Idempotency-Key` claimed for one call: a change settles it with its answer, in the same
/// journal record as the change.
package struct IdempotencyClaim: Sendable {
  package var key: String
  package var fingerprint: [UInt8]

  package init(key: String, fingerprint: [UInt8]) {
    self.key = key
    self.fingerprint = fingerprint
  }
}

/// What an applied command did: the session's version after it, how many events it made, and
/// the answer (`MutationResult`) already written.
public struct AppliedCommand: ~Copyable {
  public var version: Int
  public var eventCount: Int
  public var answer: JSONWriter

  /// The answer, handed over (the rest is copied out first).
  public consuming func takeAnswer() -> JSONWriter { answer }
}

extension Command {
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
  /// sent for nothing). Under the session's lock: the precondition, the core's rules, the event
  /// log, the memory account, the journal (a change it cannot record is undone), delivery to
  /// open streams, and the encoded state kept for the next read.
  ///
  /// With `idempotency`, the change settles its key with its answer, journaled in the same
  /// record; `decisionHeaders` gives the answer's header fields for the version it reached.
  package func apply(
    _ command: Command, to record: SessionRecord, by caller: Caller = .sessionHolder,
    precondition: VersionPrecondition?, minimal: Bool, idempotency: IdempotencyClaim? = nil,
    decisionHeaders: (Int) -> [IdempotencyLedger.Decision.Header] = { _ in [] }
  ) throws(EngineRefusal) -> AppliedCommand {
    if caller != .backend, command.isBackendOnly {
      throw EngineRefusal.backendOnly(what: "setting a session's context")
    }
    let journal = self.journal
    var writer = JSONWriter(capacity: minimal ? 512 : 2048)
    let (version, events, counts) = try record.data.withLock {
      (data) throws(EngineRefusal) -> (Int, [NavigationEvent], RouteCounts?) in
      try call(record, &data)
      try precondition?.check(data.navigation.version)
      // Near the memory budget, keep what is needed to undo the operation should it grow the
      // session past it; with room to spare, nothing is copied.
      // With a journal, always: a change it cannot record is undone.
      // The tree is kept whole (a small copy, made on the first change); the log only as a mark.
      // (Two values, not an optional tuple: the tuple is destroyed through the runtime's generic
      // witnesses, a thousand instructions a change.)
      let undoNavigation = memory.hasRoom() && journal == nil ? nil : data.navigation
      let undoMark = data.log.mark
      let events: [NavigationEvent]
      do throws(NavigationError) {
        events = try data.navigation.apply(command)
      } catch {
        throw EngineRefusal.navigation(error)
      }
      // Each event is kept in the log in its compact form, and encoded as JSON once: for the
      // streams and this answer alike when the session has streams, else into the answer.
      var entries: [EventLog.Entry] = []
      if !events.isEmpty {
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
        data.updatedAt = .now()
        // A keyed change is answered before it is journaled: the answer goes in its record.
        var decided: (key: String, decision: IdempotencyLedger.Decision)?
        if let idempotency {
          Self.writeAnswer(record, &data, minimal: minimal, events, [], into: &writer)
          decided = (
            idempotency.key,
            IdempotencyLedger.Decision(
              fingerprint: idempotency.fingerprint, status: 200,
              headers: decisionHeaders(data.navigation.version), body: writer.bytes)
          )
        }
        if let journal {
          if !journal.recordChange(of: record, command, data: data, decided: decided),
            let undoNavigation
          {
            data.navigation = undoNavigation
            data.log.rollback(to: undoMark)
            data.updatedAt = previousUpdate
            data.dropCache()
            throw EngineRefusal.journalUnavailable
          }
        }
        if let decided {
          data.settle(decided.key, with: decided.decision)
          delivered(data.deliver(data.streamEntries(events)))
          noteStateCache(of: record, &data, grew: true)
          return (data.navigation.version, events, data.routeCounts)
        }
        entries = data.streamEntries(events)
        delivered(data.deliver(entries))
      }
      Self.writeAnswer(record, &data, minimal: minimal, events, entries, into: &writer)
      // After the state is written: its encoding is kept with the session, and counted.
      noteStateCache(of: record, &data, grew: !events.isEmpty)
      return (data.navigation.version, events, data.routeCounts)
    }
    account(events, counts: counts)
    return AppliedCommand(version: version, eventCount: events.count, answer: writer)
  }

  /// One shape for both answers (`MutationResult`): the version always, the state unless the
  /// client follows the stream (`minimal`). The events from `entries` when they were encoded
  /// for the streams, else encoded here.
  private static func writeAnswer(
    _ record: SessionRecord, _ data: inout SessionRecord.Data, minimal: Bool,
    _ events: [NavigationEvent], _ entries: [EventLog.Entry], into writer: inout JSONWriter
  ) {
    writer.beginObject()
    writer.key("version")
    writer.int(data.navigation.version)
    if !minimal {
      writer.key("session")
      record.writeState(of: &data, into: &writer)
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
