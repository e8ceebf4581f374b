import Logging
import MicroHTTPServer
import NavJSON
public import NavStateEngine
import NavigationCore

extension NavStateService {
  /// How every Server-Sent Events answer starts: never cached, never buffered by a proxy.
  static var eventStreamHeaders: HTTPHeaders {
    HTTPHeaders([
      ("Content-Type", "text/event-stream"), ("Cache-Control", "no-store"),
      ("X-Accel-Buffering", "no"),
    ])
  }

  /// `GET .../events`: the JSON catch-up; when `Accept` prefers `text/event-stream` over JSON,
  /// the stream (for clients written before `GET .../events/stream`, the stream's own
  /// operation).
  func listEvents(_ request: HTTPRequest, key: SessionID?) throws(APIProblem) -> HTTPResponse {
    let wantsStream = AcceptedMediaTypes(request.headers["accept"]).prefersEventStream
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
    let caller: Caller
    do {
      (record, caller) = try authorizeCaller(key, request)
    } catch {
      // A client catching up with a session that ended while it was away learns that it ended.
      let reason = request.headers.withFirstValue("authorization") { header in
        store.endReason(of: key, token: header.flatMap(BearerToken.token(in:)))
      }
      guard error.status == 404, let reason else { throw error }
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
      return try subscribe(
        record, after: after, client: clientAddresses.address(of: request), caller: caller)
    }
    let from = after ?? 0
    let body = try engine { () throws(EngineRefusal) in
      try store.events(of: record, after: from, viewer: caller.viewer)
    }
    return Self.json(200, body)
  }

  /// Opens a Server-Sent Events stream: the events after `after` (or, when those are no longer
  /// kept or none was given, one `reset` event with the whole state), then live events.
  func subscribe(
    _ record: SessionRecord, after: Int?, client: String, caller: Caller = .sessionHolder
  ) throws(APIProblem) -> HTTPResponse {
    let stream = try engine { () throws(EngineRefusal) in
      try store.followEvents(of: record, after: after, client: client, caller: caller) {
        maxBufferedBytes, onClose in
        HTTPStream(maxBufferedBytes: maxBufferedBytes, onClose: onClose)
      }
    }
    return .stream(headers: Self.eventStreamHeaders, stream)
  }
}

/// The engine delivers a session's events to the HTTP layer's streams.
extension HTTPStream: EventSink {}
