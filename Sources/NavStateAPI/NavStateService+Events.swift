import Logging
import MicroHTTPServer
import NavJSON
import NavigationCore

extension NavStateService {
  /// `GET .../events`: the JSON catch-up; with `Accept: text/event-stream`, the stream (for
  /// clients written before `GET .../events/stream`, the stream's own operation).
  func listEvents(_ request: HTTPRequest, key: SessionID?) throws(APIProblem) -> HTTPResponse {
    let wantsStream = request.headers["accept"]?.contains("text/event-stream") == true
    return try events(request, key: key, asStream: wantsStream)
  }

  /// `GET .../events/stream`: always the stream, whatever the client accepts.
  func streamEvents(_ request: HTTPRequest, key: SessionID?) throws(APIProblem) -> HTTPResponse {
    try events(request, key: key, asStream: true)
  }

  private func events(_ request: HTTPRequest, key: SessionID?, asStream wantsStream: Bool)
    throws(APIProblem) -> HTTPResponse
  {
    let record: SessionRecord
    do {
      record = try store.authorize(key: key, headers: request.headers)
    } catch {
      // A client catching up with a session that ended while it was away learns that it ended.
      guard error.status == 404, let reason = store.endReason(of: key, headers: request.headers)
      else { throw error }
      throw APIProblem.sessionEnded(reason)
    }
    var after: Int? = nil
    if let text = request.queryItem("after") {
      guard let value = Int(text), value >= 0 else {
        throw APIProblem(
          status: 400, code: "invalid_query", title: "Invalid query",
          detail: "'after' must be a sequence number (0 or more)")
      }
      after = value
    }
    if wantsStream {
      if let text = request.headers["last-event-id"] {
        // A browser sends back the last id it saw; anything else means "start afresh".
        after = Int(Substring(text).trimmingWhitespace()).flatMap { $0 >= 0 ? $0 : nil }
      }
      return try subscribe(record, after: after, client: clientAddresses.address(of: request))
    }
    let from = after ?? 0
    var writer = JSONWriter(capacity: 2048)
    try record.data.withLock { (data) throws(APIProblem) in
      try Self.touch(&data, store: store)
      writer.beginObject()
      if let entries = data.log.after(from) {
        writer.key("events")
        writer.beginArray()
        for entry in entries { writer.raw(entry.json) }
        writer.endArray()
      } else {
        // The events asked for are no longer kept: hand over the whole state instead.
        writer.key("events")
        writer.beginArray()
        writer.endArray()
        writer.key("reset")
        record.writeState(of: &data, into: &writer)
        store.noteStateCache(of: record, &data, grew: false)
      }
      writer.key("lastSeq")
      writer.int(data.navigation.lastSeq)
      writer.endObject()
    }
    return Self.json(200, writer.bytes)
  }

  /// Opens a Server-Sent Events stream: the events after `after` (or, when those are no longer
  /// kept or none was given, one `reset` event with the whole state), then live events.
  func subscribe(_ record: SessionRecord, after: Int?, client: String) throws(APIProblem)
    -> HTTPResponse
  {
    let stream = try store.subscribe(record, client: client) {
      (data) throws(APIProblem) -> ([UInt8], Bool) in
      guard !data.ended else { throw APIProblem.sessionNotFound }
      var initial = EventStreamFraming.retryField
      let lastSeq = data.navigation.lastSeq
      if let after, after <= lastSeq, let entries = data.log.after(after) {
        // Up to date already: the `retry:` line waits for the first live event.
        guard !entries.isEmpty else { return ([], false) }
        for entry in entries {
          initial += EventStreamFraming.event(id: entry.seq, type: entry.type, json: entry.json)
        }
      } else {
        var writer = JSONWriter(capacity: 1024)
        record.writeState(of: &data, into: &writer)
        store.noteStateCache(of: record, &data, grew: false)
        initial += EventStreamFraming.event(id: lastSeq, type: "reset", json: writer.bytes)
      }
      return (initial, true)
    }
    return .stream(
      headers: HTTPHeaders([
        ("Content-Type", "text/event-stream"), ("Cache-Control", "no-store"),
        ("X-Accel-Buffering", "no"),
      ]), stream)
  }
}
