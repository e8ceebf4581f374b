import NavJSON
import NavStateWire
import NavigationCore

/// The feed's binary form, in the journal's feed records, feed files and the feed's chunks:
/// the header (number, kind, session, time, graph), then the payload's values. Every read
/// checks its bounds: a damaged item reads as nil, never traps.
extension FeedItem {
  package func append(to bytes: inout [UInt8]) {
    bytes.appendFixed(sequence)
    appendUnnumbered(to: &bytes)
  }

  /// The item without its number (a chunk keeps the numbers apart).
  package func appendUnnumbered(to bytes: inout [UInt8]) {
    bytes.append(kind.rawValue)
    bytes.appendFixed(session.high)
    bytes.appendFixed(session.low)
    bytes.appendFixed(UInt64(bitPattern: at.milliseconds))
    bytes.appendBlob(graph)
    switch payload {
    case .sessionStarted(let graphVersion, let root):
      bytes.appendVarint(UInt64(graphVersion))
      bytes.appendBlob(root)
    case .sessionEnded(let reason):
      bytes.appendBlob(reason.rawValue)
    case .screenViewed(
      let screen, let params, let presentation, let transition, let previous, let graphVersion):
      Self.append(screen, to: &bytes)
      bytes.appendVarint(UInt64(params.count))
      for (name, value) in params {
        bytes.appendBlob(name)
        CompactEvent.appendParam(value, to: &bytes)
      }
      bytes.appendBlob(presentation.rawValue)
      bytes.appendBlob(transition.rawValue)
      if let previous {
        bytes.append(1)
        Self.append(previous, to: &bytes)
      } else {
        bytes.append(0)
      }
      bytes.appendVarint(UInt64(graphVersion))
    case .screenLeft(let screen, let durationMs):
      Self.append(screen, to: &bytes)
      bytes.appendVarint(UInt64(max(0, durationMs)))
    case .navigationRedirected(let route, let redirect):
      bytes.appendBlob(route)
      bytes.appendBlob(redirect)
    case .pendingApplied(let route):
      bytes.appendBlob(route)
    case .pendingDropped(let route, let reason):
      bytes.appendBlob(route)
      bytes.appendBlob(reason.rawValue)
    case .contextChanged(let keys):
      bytes.appendVarint(UInt64(keys.count))
      for key in keys { bytes.appendBlob(key) }
    case .sessionMigrated(let from, let to):
      bytes.appendVarint(UInt64(from))
      bytes.appendVarint(UInt64(to))
    case .sessionRestored(let from):
      bytes.appendVarint(UInt64(from))
    }
  }

  private static func append(_ screen: FeedScreen, to bytes: inout [UInt8]) {
    bytes.appendVarint(UInt64(screen.id.number))
    bytes.appendBlob(screen.route)
  }

  private static func screen(_ reader: inout ByteReader) -> FeedScreen? {
    guard let number = reader.natural(), let route = reader.string() else { return nil }
    return FeedScreen(id: CoordinatorID(number), route: route)
  }

  /// Reads what ``append(to:)`` wrote; nil for bytes cut short or damaged.
  package static func read(from reader: inout ByteReader) -> FeedItem? {
    guard let sequence = reader.fixed() else { return nil }
    return readUnnumbered(from: &reader, sequence: sequence)
  }

  /// Reads what ``appendUnnumbered(to:)`` wrote, numbered `sequence`.
  package static func readUnnumbered(from reader: inout ByteReader, sequence: UInt64) -> FeedItem? {
    guard let rawKind = reader.byte(),
      let kind = FeedKind(rawValue: rawKind), let high = reader.fixed(),
      let low = reader.fixed(), let millis = reader.fixed(), let graph = reader.string(),
      let payload = payload(kind, &reader)
    else { return nil }
    var item = FeedItem(
      session: SessionID(high: high, low: low),
      at: Timestamp(milliseconds: Int64(bitPattern: millis)), graph: graph, payload: payload)
    item.sequence = sequence
    return item
  }

  private static func payload(_ kind: FeedKind, _ reader: inout ByteReader) -> FeedPayload? {
    switch kind {
    case .sessionStarted:
      guard let version = reader.natural(), let root = reader.string() else { return nil }
      return .sessionStarted(graphVersion: version, root: root)
    case .sessionEnded:
      guard let reason = reader.string().flatMap(SessionEndReason.init(rawValue:)) else {
        return nil
      }
      return .sessionEnded(reason: reason)
    case .screenViewed:
      guard let screen = screen(&reader), let count = reader.count() else { return nil }
      var params = Params(minimumCapacity: count)
      for _ in 0..<count {
        guard let name = reader.string(), let value = CompactEvent.readParam(&reader) else {
          return nil
        }
        params[name] = value
      }
      guard let presentation = reader.string().flatMap(Presentation.init(rawValue:)),
        let transition = reader.string().flatMap(FeedTransition.init(rawValue:)),
        let hasPrevious = reader.byte()
      else { return nil }
      var previous: FeedScreen?
      if hasPrevious == 1 {
        guard let screen = self.screen(&reader) else { return nil }
        previous = screen
      }
      guard let version = reader.natural() else { return nil }
      return .screenViewed(
        screen: screen, params: params, presentation: presentation, transition: transition,
        previous: previous, graphVersion: version)
    case .screenLeft:
      guard let screen = screen(&reader), let duration = reader.natural() else { return nil }
      return .screenLeft(screen: screen, durationMs: duration)
    case .navigationRedirected:
      guard let route = reader.string(), let redirect = reader.string() else { return nil }
      return .navigationRedirected(route: route, redirect: redirect)
    case .pendingApplied:
      return reader.string().map { .pendingApplied(route: $0) }
    case .pendingDropped:
      guard let route = reader.string(),
        let reason = reader.string().flatMap(PendingDropReason.init(rawValue:))
      else { return nil }
      return .pendingDropped(route: route, reason: reason)
    case .contextChanged:
      guard let count = reader.count() else { return nil }
      var keys: [String] = []
      for _ in 0..<count {
        guard let key = reader.string() else { return nil }
        keys.append(key)
      }
      return .contextChanged(keys: keys)
    case .sessionMigrated:
      guard let from = reader.natural(), let to = reader.natural() else { return nil }
      return .sessionMigrated(from: from, to: to)
    case .sessionRestored:
      return reader.natural().map { .sessionRestored(from: $0) }
    }
  }

  /// Items one after another, as a journal's feed record holds them.
  package static func encode(_ items: [FeedItem]) -> [UInt8] {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(items.count * 96)
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
