public import Foundation
import HTTPTypes
import OpenAPIRuntime

/// One item of the backend feed (`GET /v1/feed`): what happened to which session, when. The
/// members a type carries are set; the others are nil.
public struct FeedItem: Sendable, Hashable, Decodable {
  /// Its cursor: pass it as `after` (or keep it) to go on after this item.
  public var id: String
  /// `session.started`, `screen.viewed`, `screen.left`, `navigation.redirected`,
  /// `pending.applied`, `pending.dropped`, `context.changed`, `session.migrated`,
  /// `session.restored` or `session.ended`.
  public var type: String
  public var session: String
  public var at: Date

  public struct Screen: Sendable, Hashable, Decodable {
    public var screen: String
    public var screenId: String
  }

  /// `screen.viewed` and `screen.left`: the route and the coordinator's id.
  public var screen: String?
  public var screenId: String?
  /// `screen.viewed`: its params (sensitive ones `[redacted]`), presentation, how it came about
  /// (`push`, `pop`, `redirect`, `resume`, ...) and the screen shown before (nil for the first).
  public var params: Params?
  public var presentation: String?
  public var transition: String?
  public var previous: Screen?
  public var graphVersion: Int?
  /// `screen.left`: how long the screen was shown.
  public var durationMs: Int?
  /// `session.started`.
  public var graph: String?
  public var root: String?
  /// `session.ended` (`deleted`, `expired`) and `pending.dropped`.
  public var reason: String?
  /// `navigation.redirected`, `pending.applied`, `pending.dropped`.
  public var route: String?
  public var redirect: String?
  /// `context.changed`: the names of the keys that changed (never their values).
  public var keys: [String]?
  /// `session.migrated` (graph versions) and `session.restored` (`from`, a session version).
  public var from: Int?
  public var to: Int?
}

/// A page of the feed, and the cursor to go on from.
public struct FeedPage: Sendable, Hashable, Decodable {
  public var events: [FeedItem]
  /// Pass it as `after` next time (at the end of the feed: where to wait from).
  public var next: String
}

/// A funnel (`POST /v1/analytics/funnel`): how many sessions reached each step, and where the
/// others went instead.
public struct FunnelReport: Sendable, Hashable, Decodable {
  public struct Step: Sendable, Hashable, Decodable {
    public var route: String
    public var sessions: Int
    public var medianSecondsFromPrevious: Double?
  }

  public struct Exit: Sendable, Hashable, Decodable {
    public var after: String
    /// The screen viewed next instead of the step after `after`; nil when none was.
    public var to: String?
    public var sessions: Int
  }

  public var steps: [Step]
  public var exits: [Exit]
}

extension NavStateBackend {
  /// A page of the feed after `cursor` (nil: from the oldest item kept), at most `limit` items
  /// (1 to 1000), of `types` only and of one `session` only if given.
  /// An old cursor throws `cursorExpired`: go on from the oldest kept (``FeedPage/next`` of a
  /// read without a cursor); one this server never issued throws `invalidCursor`.
  public func feed(
    after cursor: String? = nil, limit: Int = 100, types: [String] = [], session: String? = nil
  ) async throws(NavStateError) -> FeedPage {
    var items = [URLQueryItem(name: "limit", value: String(limit))]
    if let cursor { items.append(URLQueryItem(name: "after", value: cursor)) }
    if !types.isEmpty {
      items.append(URLQueryItem(name: "types", value: types.joined(separator: ",")))
    }
    if let session { items.append(URLQueryItem(name: "session", value: session)) }
    var components = URLComponents()
    components.path = "/v1/feed"
    components.queryItems = items
    let body = try await send(
      .get, components.string ?? "/v1/feed", json: nil, operationID: "getFeed")
    return try Self.decode(FeedPage.self, body)
  }

  /// The feed as it happens, from after `cursor` (nil: the oldest kept): reconnects after a
  /// drop and goes on after the last item it yielded (`Last-Event-ID`), so no item is missed
  /// or yielded twice. It throws when the cursor is no longer kept or the key is refused.
  public func followFeed(after cursor: String? = nil) -> AsyncThrowingStream<FeedItem, any Error> {
    AsyncThrowingStream { continuation in
      let task = Task {
        var last = cursor
        while !Task.isCancelled {
          do {
            let body = try await client.streamFeed(
              query: .init(after: nil), headers: .init(lastEventID: last)
            ).ok.body.textEventStream
            for try await event in body.asDecodedServerSentEvents() {
              guard let data = event.data, event.event != nil else { continue }
              let item = try FeedItems.decoder.decode(FeedItem.self, from: Data(data.utf8))
              last = item.id
              continuation.yield(item)
            }
          } catch {
            if Task.isCancelled { break }
            let refusal = NavStateError.from(error)
            if refusal.status >= 400, refusal.status < 500 {
              continuation.finish(throwing: refusal)
              return
            }
          }
          try? await Task.sleep(for: .seconds(2))
        }
        continuation.finish()
      }
      continuation.onTermination = { _ in task.cancel() }
    }
  }

  /// How many sessions on `graph` viewed `steps` in order, each within `withinSeconds` of the
  /// first, over the items the feed keeps between `since` and `until`.
  public func funnel(
    graph: String, steps: [String], withinSeconds: Double? = nil, since: Date? = nil,
    until: Date? = nil
  ) async throws(NavStateError) -> FunnelReport {
    struct Request: Encodable {
      var graph: String
      var steps: [String]
      var withinSeconds: Double?
      var since: String?
      var until: String?
    }
    let format = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
    let request = Request(
      graph: graph, steps: steps, withinSeconds: withinSeconds, since: since?.formatted(format),
      until: until?.formatted(format))
    let json: Data
    do {
      json = try JSONEncoder().encode(request)
    } catch {
      throw NavStateError(status: 0, code: .unexpectedResponse, detail: "\(error)")
    }
    let body = try await send(.post, "/v1/analytics/funnel", json: json, operationID: "funnel")
    return try Self.decode(FunnelReport.self, body)
  }

  private static func decode<Value: Decodable>(_ type: Value.Type, _ body: Data)
    throws(NavStateError) -> Value
  {
    do {
      return try FeedItems.decoder.decode(type, from: body)
    } catch {
      throw NavStateError(
        status: 200, code: .unexpectedResponse,
        detail: String(decoding: body.prefix(200), as: UTF8.self))
    }
  }
}

/// How the feed's JSON is read: times in RFC 3339 with milliseconds.
enum FeedItems {
  static let decoder: JSONDecoder = {
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .custom { decoder in
      let text = try decoder.singleValueContainer().decode(String.self)
      return try Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
    return decoder
  }()
}
