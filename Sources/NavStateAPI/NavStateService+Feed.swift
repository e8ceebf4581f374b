import MicroHTTPServer
import NavJSON
import NavStateEngine
import NavStateWire
import NavigationCore

/// The backend feed: `GET /v1/feed` (pages, with a cursor), `GET /v1/feed/stream` (Server-Sent
/// Events, resumed with `Last-Event-ID`), both backend only, and `POST /v1/analytics/funnel`.
extension NavStateService {
  /// What a feed request asks for: where to start, which items, and in which shape.
  struct FeedQuery {
    var after: UInt64
    /// The cursor as given (read by a shared feed itself); nil: from the oldest kept.
    var cursor: String?
    var types: Set<FeedKind>?
    var session: SessionID?
    /// The node name the `session` id begins with (read by a shared feed).
    var sessionSlot: String?
    var cloudEvents: Bool
    var source: String
    /// The node's prefix of session ids (`east-1.`), or empty.
    var idPrefix: String

    var filter: FeedFilter { FeedFilter(kinds: types, session: session, slot: sessionSlot) }

    func matches(_ item: FeedItem) -> Bool { filter.matches(item) }
  }

  func getFeed(_ request: HTTPRequest) throws(APIProblem) -> HTTPResponse {
    try requireBackend(request, for: "reading the feed")
    let query = try feedQuery(request, cursor: request.queryItem("after"))
    let limit = try Self.naturalQuery(request, "limit", default: 100, max: 1000, min: 1)
    if let shared = store.sharedFeed {
      return try sharedFeedPage(shared, query: query, limit: limit)
    }
    let cursors = store.feedCursors
    let snapshot = store.feed.snapshot()
    // Items may have gone since the query was checked: a cursor now behind them is 410, not a
    // page with a gap.
    guard query.after >= snapshot.droppedThrough else {
      throw Self.cursorExpired(oldest: cursors.string(snapshot.droppedThrough))
    }
    var writer = JSONWriter(capacity: 1024 + limit * 256)
    writer.beginObject()
    writer.key("events")
    writer.beginArray()
    var next = query.after
    var count = 0
    var scanned = 0
    var reachedEnd = true
    // A filtered read looks at most this many items; `next` then says where it stopped.
    let scanLimit = 200_000
    snapshot.forEach(after: query.after) { item in
      next = item.sequence
      scanned += 1
      if query.matches(item) {
        writeFeedItem(item, query: query, cursors: cursors, into: &writer)
        count += 1
      }
      if count >= limit || scanned >= scanLimit {
        reachedEnd = false
        return false
      }
      return true
    }
    if reachedEnd { next = max(next, snapshot.newest) }
    writer.endArray()
    writer.key("next")
    writer.string(cursors.string(next))
    writer.endObject()
    return Self.json(200, writer)
  }

  func streamFeed(_ request: HTTPRequest) throws(APIProblem) -> HTTPResponse {
    try requireBackend(request, for: "reading the feed")
    // A browser's EventSource sends back the last id it saw; it names where to go on from.
    let lastEventID = request.headers["last-event-id"].map { String(Substring($0)) }
    let query = try feedQuery(request, cursor: lastEventID ?? request.queryItem("after"))
    if let shared = store.sharedFeed {
      return try followSharedFeed(
        shared, query: query, client: clientAddresses.address(of: request))
    }
    let cursors = store.feedCursors
    let stream = try engine { () throws(EngineRefusal) in
      try store.followFeed(
        after: query.after, client: clientAddresses.address(of: request),
        matches: { query.matches($0) },
        render: { item in
          Self.feedFrame(
            item, cursor: cursors.string(item.sequence), idPrefix: query.idPrefix, query: query)
        }
      ) { maxBufferedBytes, onClose in
        HTTPStream(maxBufferedBytes: maxBufferedBytes, onClose: onClose)
      }
    }
    return .stream(headers: Self.eventStreamHeaders, stream)
  }

  /// An item as a Server-Sent Events message: `id:` its cursor, `event:` its type.
  static func feedFrame(_ item: FeedItem, cursor: String, idPrefix: String, query: FeedQuery)
    -> [UInt8]
  {
    var writer = JSONWriter(capacity: 512)
    writeFeedItem(item, cursor: cursor, idPrefix: idPrefix, query: query, into: &writer)
    var frame: [UInt8] = Array("id: \(cursor)\nevent: ".utf8)
    frame += query.cloudEvents ? Array("dev.navstate.".utf8) : []
    frame += Array(item.kind.name.utf8)
    frame += Array("\ndata: ".utf8)
    frame += writer.bytes
    frame += [0x0A, 0x0A]
    return frame
  }

  /// Reads and checks the query a feed request shares with its stream: 400 `invalid_query`,
  /// 400 `invalid_cursor` for a cursor this server never issued, 410 `cursor_expired` (with
  /// `oldest`, a cursor to start from) for one older than what is kept.
  private func feedQuery(_ request: HTTPRequest, cursor text: String?) throws(APIProblem)
    -> FeedQuery
  {
    try checkNodeNamed(request)
    let cursors = store.feedCursors
    let places = store.feed.places
    var after = places.oldest
    if let text, store.sharedFeed == nil {
      guard let sequence = cursors.sequence(of: Substring(text)), sequence <= places.newest
      else {
        throw APIProblem(
          status: 400, code: "invalid_cursor", title: "Invalid cursor",
          detail: "this server never issued the cursor \(quoted(text))")
      }
      guard sequence >= places.oldest else {
        throw Self.cursorExpired(oldest: cursors.string(places.oldest))
      }
      after = sequence
    }
    var types: Set<FeedKind>?
    if let list = request.queryItem("types") {
      var kinds = Set<FeedKind>()
      for name in list.split(separator: ",", omittingEmptySubsequences: false) {
        guard let kind = FeedKind(name: String(name)) else {
          throw APIProblem(
            status: 400, code: "invalid_query", title: "Invalid query",
            detail:
              "'types' lists item types separated by commas, each one of \(FeedKind.allCases.map(\.name).joined(separator: ", ")); \(quoted(String(name))) is none"
          )
        }
        kinds.insert(kind)
      }
      types = kinds
    }
    var session: SessionID?
    var sessionSlot: String?
    if var id = request.queryItem("session") {
      // A shared feed holds every node's sessions: an id of any of them.
      let located = id.withUTF8 { id -> (SessionID, NodeName?)? in
        if store.sharedFeed != nil { return store.slot(of: id).map { ($0.0, $0.1) } }
        return store.key(of: id).map { ($0, nil) }
      }
      guard let (key, slot) = located else {
        throw APIProblem(
          status: 400, code: "invalid_query", title: "Invalid query",
          detail: "'session' must be a session id of this server")
      }
      session = key
      sessionSlot = slot?.name
    }
    var cloudEvents = false
    if let format = request.queryItem("format") {
      guard format == "cloudevents" else {
        throw APIProblem(
          status: 400, code: "invalid_query", title: "Invalid query",
          detail: "'format' may only be cloudevents (or absent)")
      }
      cloudEvents = true
    }
    let host =
      store.configuration.node?.name ?? request.headers["host"].map { String(Substring($0)) }
    return FeedQuery(
      after: after, cursor: text, types: types, session: session, sessionSlot: sessionSlot,
      cloudEvents: cloudEvents,
      source: "navstate://" + (host ?? "localhost"),
      idPrefix: store.configuration.node?.prefix ?? "")
  }

  static func cursorExpired(oldest: String) -> APIProblem {
    APIProblem(
      status: 410, code: "cursor_expired", title: "Cursor expired",
      detail: "the feed no longer keeps the items after this cursor; go on from 'oldest'",
      extra: [("oldest", "\"" + oldest + "\"")])
  }

  /// `?node=NAME` (which the cluster's proxy routes by) must name this node, unless the feed is
  /// shared: then every node serves the same feed, and a proxy may send it to any.
  func checkNodeNamed(_ request: HTTPRequest) throws(APIProblem) {
    guard store.sharedFeed == nil, let named = request.queryItem("node") else { return }
    guard named == store.configuration.node?.name else {
      throw APIProblem(
        status: 400, code: "invalid_query", title: "Invalid query",
        detail: store.configuration.node.map {
          "this is node \(quoted($0.name)), not \(quoted(named))"
        } ?? "this server runs without --node; 'node' names none")
    }
  }

  private func writeFeedItem(
    _ item: FeedItem, query: FeedQuery, cursors: FeedCursorFormat, into writer: inout JSONWriter
  ) {
    Self.writeFeedItem(
      item, cursor: cursors.string(item.sequence), idPrefix: query.idPrefix, query: query,
      into: &writer)
  }

  /// `{id, type, session, at, ...}`, or the same as a CloudEvents 1.0 object whose `data` holds
  /// the item's own fields. `idPrefix` begins the session's id (its node's name and a dot).
  static func writeFeedItem(
    _ item: FeedItem, cursor: String, idPrefix: String, query: FeedQuery,
    into writer: inout JSONWriter
  ) {
    writer.beginObject()
    if query.cloudEvents {
      writer.key("specversion")
      writer.string("1.0")
      writer.key("id")
      writer.string(cursor)
      writer.key("source")
      writer.string(query.source)
      writer.key("type")
      writer.string("dev.navstate." + item.kind.name)
      writer.key("subject")
      writer.string(idPrefix + item.session.description)
      writer.key("time")
      item.at.withRFC3339 { writer.plainString($0) }
      writer.key("datacontenttype")
      writer.string("application/json")
      writer.key("data")
      writer.beginObject()
      item.writeFields(into: &writer)
      writer.endObject()
    } else {
      writer.key("id")
      writer.string(cursor)
      writer.key("type")
      writer.string(item.kind.name)
      writer.key("session")
      writer.string(idPrefix + item.session.description)
      writer.key("at")
      item.at.withRFC3339 { writer.plainString($0) }
      item.writeFields(into: &writer)
    }
    writer.endObject()
  }
}

/// The feed writes to a stream only as fast as its client reads.
extension HTTPStream: FeedSink {}
