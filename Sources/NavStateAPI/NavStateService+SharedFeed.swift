import MicroHTTPServer
import NavJSON
import NavStateEngine
import NavStateWire

/// The feed read from a store every node shares (`--postgres`): the same routes, answered from
/// the store for the whole cluster; its cursors are the store's own.
extension NavStateService {
  func sharedFeedPage(_ shared: any SharedFeed, query: FeedQuery, limit: Int)
    throws(APIProblem) -> HTTPResponse
  {
    let page = try Self.sharedFeedCall { () throws(SharedFeedRefusal) in
      try shared.page(after: query.cursor, limit: limit, filter: query.filter)
    }
    var writer = JSONWriter(capacity: 1024 + page.entries.count * 256)
    writer.beginObject()
    writer.key("events")
    writer.beginArray()
    for entry in page.entries {
      Self.writeFeedItem(
        entry.item, cursor: entry.cursor, idPrefix: entry.idPrefix, query: query, into: &writer)
    }
    writer.endArray()
    writer.key("next")
    writer.string(page.next)
    writer.endObject()
    return Self.json(200, writer)
  }

  func followSharedFeed(_ shared: any SharedFeed, query: FeedQuery, client: String)
    throws(APIProblem) -> HTTPResponse
  {
    let start = try Self.sharedFeedCall { () throws(SharedFeedRefusal) in
      try shared.start(after: query.cursor)
    }
    let stream = try engine { () throws(EngineRefusal) in
      try store.followSharedFeed(
        shared, after: start, client: client, filter: query.filter,
        render: { entry in
          Self.feedFrame(entry.item, cursor: entry.cursor, idPrefix: entry.idPrefix, query: query)
        }
      ) { maxBufferedBytes, onClose in
        HTTPStream(maxBufferedBytes: maxBufferedBytes, onClose: onClose)
      }
    }
    return .stream(headers: Self.eventStreamHeaders, stream)
  }

  /// A shared feed's refusal as the problem a client sees.
  static func sharedFeedCall<Result>(_ call: () throws(SharedFeedRefusal) -> Result)
    throws(APIProblem) -> Result
  {
    do {
      return try call()
    } catch {
      switch error {
      case .invalidCursor:
        throw APIProblem(
          status: 400, code: "invalid_cursor", title: "Invalid cursor",
          detail: "this cluster's feed never issued this cursor")
      case .expired(let oldest):
        throw cursorExpired(oldest: oldest)
      case .unavailable:
        throw APIProblem(
          EngineRefusal.storeUnavailable(
            reason: "PostgreSQL did not answer the feed's read in time", retryAfter: 1))
      }
    }
  }
}
