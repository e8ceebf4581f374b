package import NavStateWire

/// What one backend feed item is about (docs/behaviour.md, "The backend feed").
package enum FeedKind: UInt8, Sendable, CaseIterable {
  case sessionStarted = 1
  case sessionEnded = 2
  case screenViewed = 3
  case screenLeft = 4
  case navigationRedirected = 5
  case pendingApplied = 6
  case pendingDropped = 7
  case contextChanged = 8
  case sessionMigrated = 9
  case sessionRestored = 10

  /// The item's `type` (and an event stream's `event:`).
  package var name: String {
    switch self {
    case .sessionStarted: "session.started"
    case .sessionEnded: "session.ended"
    case .screenViewed: "screen.viewed"
    case .screenLeft: "screen.left"
    case .navigationRedirected: "navigation.redirected"
    case .pendingApplied: "pending.applied"
    case .pendingDropped: "pending.dropped"
    case .contextChanged: "context.changed"
    case .sessionMigrated: "session.migrated"
    case .sessionRestored: "session.restored"
    }
  }

  package init?(name: String) {
    guard let kind = Self.allCases.first(where: { $0.name == name }) else { return nil }
    self = kind
  }
}

/// One item of the backend feed: what happened to which session, when, and the item's own
/// fields as JSON members already written (params redacted). `graph` and `screen` are kept
/// apart as well, for funnels and filters; they are not shown unless the fields hold them.
package struct FeedItem: Sendable, Equatable {
  /// The item's place in the feed (its cursor names it); 0 until the feed numbers it.
  package var sequence: UInt64 = 0
  package var kind: FeedKind
  package var session: SessionID
  package var at: Timestamp
  package var graph: String
  /// The screen a `screen.viewed` or `screen.left` is about; empty otherwise.
  package var screen: String
  /// The item's other members, written as JSON object members (`"a":1,"b":2`) with no braces.
  package var fields: [UInt8]

  package init(
    kind: FeedKind, session: SessionID, at: Timestamp, graph: String, screen: String = "",
    fields: [UInt8]
  ) {
    self.kind = kind
    self.session = session
    self.at = at
    self.graph = graph
    self.screen = screen
    self.fields = fields
  }
}

extension FeedItem {
  /// The item in the journal's (and the feed's own) binary form.
  package func append(to bytes: inout [UInt8]) {
    bytes.appendFixed(sequence)
    bytes.append(kind.rawValue)
    bytes.appendFixed(session.high)
    bytes.appendFixed(session.low)
    bytes.appendFixed(UInt64(bitPattern: at.milliseconds))
    bytes.appendBlob(graph)
    bytes.appendBlob(screen)
    bytes.appendVarint(UInt64(fields.count))
    bytes.append(contentsOf: fields)
  }

  /// Reads what ``append(to:)`` wrote; nil for bytes cut short or damaged.
  package static func read(from reader: inout ByteReader) -> FeedItem? {
    guard let sequence = reader.fixed(), let rawKind = reader.byte(),
      let kind = FeedKind(rawValue: rawKind), let high = reader.fixed(),
      let low = reader.fixed(), let millis = reader.fixed(), let graph = reader.string(),
      let screen = reader.string(), let length = reader.count(),
      let fields = reader.bytes(length)
    else { return nil }
    var item = FeedItem(
      kind: kind, session: SessionID(high: high, low: low),
      at: Timestamp(milliseconds: Int64(bitPattern: millis)), graph: graph, screen: screen,
      fields: fields)
    item.sequence = sequence
    return item
  }

  /// Items one after another, as a journal's feed record holds them.
  package static func encode(_ items: [FeedItem]) -> [UInt8] {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(items.count * 128)
    bytes.appendVarint(UInt64(items.count))
    for item in items { item.append(to: &bytes) }
    return bytes
  }

  package static func decode(_ reader: inout ByteReader) -> [FeedItem]? {
    guard let count = reader.count() else { return nil }
    var items: [FeedItem] = []
    items.reserveCapacity(count)
    for _ in 0..<count {
      guard let item = read(from: &reader) else { return nil }
      items.append(item)
    }
    return items
  }
}
