import Logging
import MicroHTTPServer
import NavJSON
import NavigationCore

/// The navigation operations: every mutation goes through `apply`.
extension NavStateService {
  func teardown(
    _ request: HTTPRequest, key: SessionID?, coordinator: String,
    idempotency: IdempotencyClaim? = nil
  ) throws(APIProblem) -> HTTPResponse {
    let record = try store.authorize(key: key, headers: request.headers)
    guard let target = CoordinatorID(coordinator) else {
      throw APIProblem(
        NavigationError(
          .unknownCoordinator, "\(quoted(coordinator)) is not a coordinator id (c1, c2, ...)"))
    }
    let response = try apply(
      .teardown(target), to: record, request: request, idempotency: idempotency)
    // An already stopped coordinator is a no-op success: clients retry and gestures race.
    return response.status == 200 && response.events == 0
      ? HTTPResponse(status: 204) : response.http
  }

  func mutate(
    _ request: HTTPRequest, key: SessionID?, operation: String,
    idempotency: IdempotencyClaim? = nil
  ) throws(APIProblem) -> HTTPResponse {
    let record = try store.authorize(key: key, headers: request.headers)
    return try apply(
      try command(operation, for: request), to: record, request: request,
      idempotency: idempotency
    ).http
  }

  /// The body of `operation` as a command: the common shapes read straight from the bytes,
  /// anything else parsed and decoded in full (which words every refusal).
  func command(_ operation: String, for request: HTTPRequest) throws(APIProblem) -> Command {
    if !request.body.isEmpty {
      try Self.requireJSONMediaType(request)
      let hot = request.body.withUnsafeBufferPointer { bytes in
        HotCommandDecoder.command(operation, body: bytes)
      }
      if let hot { return hot }
    }
    return try decode(operation, try Self.jsonBody(request) ?? .object(JSONObject()))
  }

  struct Applied {
    var http: HTTPResponse
    var status: Int { http.status }
    var events: Int
  }

  /// Applies one command under the session's lock and answers `{version, session, events}`, or
  /// `{version, events}` to a client that sent `Prefer: return=minimal` (it follows the stream,
  /// so the state would be sent for nothing).
  /// With `--data-dir`, the command is journaled before it is answered; one the journal cannot
  /// take is undone (503).
  /// With `idempotency`, a change settles its key with its answer, journaled in the same record.
  func apply(
    _ command: Command, to record: SessionRecord, request: HTTPRequest,
    idempotency: IdempotencyClaim? = nil
  )
    throws(APIProblem) -> Applied
  {
    let journal = store.journal
    let minimal = ReturnPreference.prefersMinimal(request.headers)
    var writer = JSONWriter(capacity: minimal ? 512 : 2048)
    let (version, events) = try record.data.withLock {
      (data) throws(APIProblem) -> (Int, [NavigationEvent]) in
      try Self.touch(&data, store: store)
      try Self.checkPrecondition(request, version: data.navigation.version)
      // Near the memory budget, keep what is needed to undo the operation should it grow the
      // session past it; with room to spare, nothing is copied.
      // With a journal, always: a change it cannot record is undone.
      // The tree is kept whole (a small copy, made on the first change); the log only as a mark.
      let undo =
        store.memory.hasRoom() && journal == nil ? nil : (data.navigation, data.log.mark)
      let events: [NavigationEvent]
      do throws(NavigationError) {
        events = try data.navigation.apply(command)
      } catch {
        throw APIProblem(error)
      }
      // Each event is kept in the log in its compact form, and encoded as JSON once: for the
      // streams and this answer alike when the session has streams, else into the answer.
      var entries: [EventLog.Entry] = []
      if !events.isEmpty {
        for event in events { data.log.append(event) }
        if let undo {
          let growth = MemoryFootprint.session(data) - data.accountedBytes
          if growth > 0, !store.memory.hasRoom(for: growth) {
            data.navigation = undo.0
            data.log.rollback(to: undo.1)
            throw MemoryBudget.exhausted
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
              headers: Self.answerHeaders(version: data.navigation.version, minimal: minimal),
              body: writer.bytes)
          )
        }
        if let journal {
          let entry = Journal.command(record, command, data: data, decided: decided)
          if !journal.append(.command, entry), let undo {
            data.navigation = undo.0
            data.log.rollback(to: undo.1)
            data.updatedAt = previousUpdate
            data.dropCache()
            throw APIProblem.journalUnavailable
          }
        }
        if let decided {
          data.settle(decided.key, with: decided.decision)
          store.delivered(data.deliver(data.streamEntries(events)))
          store.noteStateCache(of: record, &data, grew: true)
          return (data.navigation.version, events)
        }
        entries = data.streamEntries(events)
        store.delivered(data.deliver(entries))
      }
      Self.writeAnswer(record, &data, minimal: minimal, events, entries, into: &writer)
      // After the state is written: its encoding is kept with the session, and counted.
      store.noteStateCache(of: record, &data, grew: !events.isEmpty)
      return (data.navigation.version, events)
    }
    store.account(events)
    var response = Self.json(200, writer, etag: version)
    if minimal { response.headers.add("Preference-Applied", "return=minimal") }
    return Applied(http: response, events: events.count)
  }

  /// The answer's header fields as ``apply`` sends them, for an idempotency key's record.
  private static func answerHeaders(version: Int, minimal: Bool)
    -> [IdempotencyLedger.Decision.Header]
  {
    var headers = [
      IdempotencyLedger.Decision.Header(name: "Content-Type", value: "application/json"),
      IdempotencyLedger.Decision.Header(name: "ETag", value: etag(version)),
    ]
    if minimal {
      headers.append(.init(name: "Preference-Applied", value: "return=minimal"))
    }
    return headers
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
}
