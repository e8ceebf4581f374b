public import NavJSON
package import NavStateWire
package import NavigationCore
import Synchronization

/// A body the engine wrote, with the session version it shows.
public struct EncodedAnswer: ~Copyable {
  public var version: Int
  public var body: JSONWriter

  /// The body, handed over (the version is copied out first).
  public consuming func takeBody() -> JSONWriter { body }
}

/// A session just made, with its creation's answer.
public struct CreatedSession: ~Copyable {
  public var record: SessionRecord
  public var answer: EncodedAnswer

  public consuming func takeAnswer() -> EncodedAnswer { answer }
}

/// The calls that read a session, and its creation's and deletion's answers.
extension SessionStore {
  /// Opens a session and answers `{session, token}` (the only time the token is shown).
  /// `context` is the backend's alone: a creation by anyone else (`creator` nil) with one is
  /// refused.
  package func createSession(
    graph name: String?, root: RouteRequest?, context: SessionContext? = nil,
    creator: Caller? = nil, client: String, now: Timestamp = .now()
  ) throws(EngineRefusal) -> CreatedSession {
    // Any `context` member, `{}` included, is the backend's to give.
    if context != nil, creator != .backend {
      throw EngineRefusal.backendOnly(what: "a session's context")
    }
    let (record, token) = try create(
      graph: name, root: root, context: context ?? SessionContext(), creator: creator,
      client: client, now: now)
    return created(record, token: token)
  }

  /// A new session's answer, made or forked: `{session, token}`.
  func created(_ record: SessionRecord, token: String) -> CreatedSession {
    var writer = JSONWriter(capacity: 1024)
    let version = record.data.withLock { data in
      writer.beginObject()
      writer.key("session")
      // Not yet in use: a session that is created and then left holds no encoded state.
      record.writeState(of: &data, into: &writer, viewer: .owner, watchers: shareWatchers)
      writer.key("token")
      writer.string(token)
      writer.endObject()
      return data.navigation.version
    }
    return CreatedSession(record: record, answer: EncodedAnswer(version: version, body: writer))
  }

  /// The session's context now and the version it is at (a merge patch applies to it).
  package func context(of record: SessionRecord) throws(EngineRefusal)
    -> (SessionContext, version: Int)
  {
    try record.data.withLock { (data) throws(EngineRefusal) -> (SessionContext, version: Int) in
      guard !data.ended else { throw EngineRefusal.sessionNotFound }
      return (data.navigation.context, data.navigation.version)
    }
  }

  /// The session's state, as JSON, as `viewer` sees it.
  package func state(of record: SessionRecord, viewer: Viewer = .owner) throws(EngineRefusal)
    -> EncodedAnswer
  {
    try record.data.withLock { (data) throws(EngineRefusal) -> EncodedAnswer in
      try call(record, &data)
      let body = record.encodedState(of: &data, viewer: viewer, watchers: shareWatchers)
      noteStateCache(of: record, &data, grew: false)
      return EncodedAnswer(version: data.navigation.version, body: body)
    }
  }

  /// Ends the session at the caller's request, if it is at a version `precondition` accepts.
  /// Refused when a concurrent deletion or expiry got there first: it is gone all the same.
  package func delete(_ record: SessionRecord, precondition: VersionPrecondition?)
    throws(EngineRefusal)
  {
    let events = try end(record, reason: .deleted) { (data) throws(EngineRefusal) in
      try precondition?.check(data.navigation.version)
      return true
    }
    guard !events.isEmpty else { throw EngineRefusal.sessionNotFound }
  }

  /// The events after sequence number `after` as `{events, lastSeq}`; when those are no longer
  /// kept, `{events: [], reset: <the whole state>, lastSeq}`.
  package func events(of record: SessionRecord, after: Int, viewer: Viewer = .owner)
    throws(EngineRefusal) -> JSONWriter
  {
    var writer = JSONWriter(capacity: 2048)
    try record.data.withLock { (data) throws(EngineRefusal) in
      try call(record, &data)
      writer.beginObject()
      if let entries = data.log.after(after) {
        writer.key("events")
        writer.beginArray()
        let graph = data.navigation.graph
        for entry in entries {
          writer.raw(viewer.follows ? FollowView.filter(json: entry.json, in: graph) : entry.json)
        }
        writer.endArray()
      } else {
        // The events asked for are no longer kept: hand over the whole state instead.
        writer.key("events")
        writer.beginArray()
        writer.endArray()
        writer.key("reset")
        record.writeState(of: &data, into: &writer, viewer: viewer, watchers: shareWatchers)
        noteStateCache(of: record, &data, grew: false)
      }
      writer.key("lastSeq")
      writer.int(data.navigation.lastSeq)
      writer.endObject()
    }
    return writer
  }

  /// Opens an event stream on the session: the events after `after` (or, when those are no
  /// longer kept or none was given, one `reset` event with the whole state), then live events.
  package func followEvents<Sink: EventSink>(
    of record: SessionRecord, after: Int?, client: String, caller: Caller = .sessionHolder,
    makeSink: (_ maxBufferedBytes: Int, _ onClose: @escaping @Sendable () -> Void) -> Sink
  ) throws(EngineRefusal) -> Sink {
    let viewer = caller.viewer
    return try subscribe(
      record, client: client, caller: caller,
      prepare: { (data) throws(EngineRefusal) -> ([UInt8], Bool) in
        guard !data.ended else { throw EngineRefusal.sessionNotFound }
        // Checked again under the lock: a share revoked since its token was checked attaches
        // no stream (the revocation ended those it found).
        try Self.requireStanding(caller, in: data)
        try migrateIfBehind(record, &data)
        var initial = EventStreamFraming.retryField
        let lastSeq = data.navigation.lastSeq
        if let after, after <= lastSeq, let entries = data.log.after(after) {
          // Up to date already: the `retry:` line waits for the first live event.
          guard !entries.isEmpty else { return ([], false) }
          let graph = data.navigation.graph
          for entry in entries {
            let json = viewer.follows ? FollowView.filter(json: entry.json, in: graph) : entry.json
            initial += EventStreamFraming.event(id: entry.seq, type: entry.type, json: json)
          }
        } else {
          var writer = JSONWriter(capacity: 1024)
          record.writeState(of: &data, into: &writer, viewer: viewer, watchers: shareWatchers)
          noteStateCache(of: record, &data, grew: false)
          initial += EventStreamFraming.event(id: lastSeq, type: "reset", json: writer.bytes)
        }
        return (initial, true)
      }, makeSink: makeSink)
  }
}
