import NavJSON
package import NavStateWire
package import NavigationCore

/// The coordinator a session shows: a `screen.viewed`'s screen, or its `previous`.
package struct FeedScreen: Sendable, Equatable {
  package var id: CoordinatorID
  package var route: String
}

extension NavigationState {
  /// The active coordinator, as the feed names it.
  package var activeScreen: FeedScreen? {
    guard let id = activeID, let node = self[id] else { return nil }
    return FeedScreen(id: id, route: node.route)
  }
}

/// The feed items one change makes: pure, from the state before and after and the events.
package enum FeedItems {
  /// A version's items: what its events say (redirects, pending requests, context keys,
  /// migrations, restores), then, when it left another coordinator active than before,
  /// `screen.left` for that one and `screen.viewed` for the new one.
  package static func change(
    session: SessionID, at: Timestamp, before: FeedScreen?, activeSince: Timestamp,
    state: NavigationState, events: [NavigationEvent], contextBefore: SessionContext?,
    transition: () -> FeedTransition
  ) -> [FeedItem] {
    var items: [FeedItem] = []
    items.reserveCapacity(2)
    var fields = FeedFields()
    let graph = state.graph.name
    func add(_ kind: FeedKind, screen: String = "", _ write: (inout JSONWriter) -> Void) {
      items.append(
        FeedItem(
          kind: kind, session: session, at: at, graph: graph, screen: screen,
          fields: fields.members(write)))
    }
    for event in events {
      switch event.kind {
      case .navigationRedirected(let route, let redirect, _):
        add(.navigationRedirected) { writer in
          writer.key("route")
          writer.string(route)
          writer.key("redirect")
          writer.string(redirect)
        }
      case .pendingApplied(let route):
        add(.pendingApplied) { writer in
          writer.key("route")
          writer.string(route)
        }
      case .pendingDropped(let route, let reason, _):
        add(.pendingDropped) { writer in
          writer.key("route")
          writer.string(route)
          writer.key("reason")
          writer.string(reason.rawValue)
        }
      case .contextChanged(let context):
        let keys = changedKeys(from: contextBefore ?? SessionContext(), to: context)
        add(.contextChanged) { writer in
          writer.key("keys")
          writer.beginArray()
          for key in keys { writer.string(key) }
          writer.endArray()
        }
      case .sessionMigrated(let from, let to):
        add(.sessionMigrated) { writer in
          writer.key("from")
          writer.int(from)
          writer.key("to")
          writer.int(to)
        }
      case .sessionRestored(let from):
        add(.sessionRestored) { writer in
          writer.key("from")
          writer.int(from)
        }
      default: continue
      }
    }
    let after = state.activeScreen
    guard after != before else { return items }
    if let before {
      items.append(
        left(before, session: session, at: at, since: activeSince, graph: graph, &fields))
    }
    if let after {
      items.append(
        viewed(
          after, previous: before, transition: transition(), session: session, at: at, in: state,
          &fields))
    }
    return items
  }

  /// A new session's items: `session.started`, then `screen.viewed` (transition `start`).
  package static func started(session: SessionID, at: Timestamp, state: NavigationState)
    -> [FeedItem]
  {
    let graph = state.graph.name
    let root = state.rootID.flatMap { state[$0]?.route } ?? ""
    var fields = FeedFields()
    var items = [
      FeedItem(
        kind: .sessionStarted, session: session, at: at, graph: graph,
        fields: fields.members { writer in
          writer.key("graph")
          writer.string(graph)
          writer.key("graphVersion")
          writer.int(state.graphVersion)
          writer.key("root")
          writer.string(root)
        })
    ]
    if let active = state.activeScreen {
      items.append(
        viewed(
          active, previous: nil, transition: .start, session: session, at: at, in: state,
          &fields))
    }
    return items
  }

  /// An ended session's items: `screen.left` for the screen it showed, then `session.ended`.
  package static func ended(
    session: SessionID, at: Timestamp, showing before: FeedScreen?, activeSince: Timestamp,
    graph: String, reason: SessionEndReason
  ) -> [FeedItem] {
    var items: [FeedItem] = []
    var fields = FeedFields()
    if let before {
      items.append(
        left(before, session: session, at: at, since: activeSince, graph: graph, &fields))
    }
    items.append(
      FeedItem(
        kind: .sessionEnded, session: session, at: at, graph: graph,
        fields: fields.members { writer in
          writer.key("reason")
          writer.string(reason.rawValue)
        }))
    return items
  }

  private static func left(
    _ screen: FeedScreen, session: SessionID, at: Timestamp, since: Timestamp, graph: String,
    _ fields: inout FeedFields
  ) -> FeedItem {
    FeedItem(
      kind: .screenLeft, session: session, at: at, graph: graph, screen: screen.route,
      fields: fields.members { writer in
        writer.key("screen")
        writer.plainString(screen.route)
        writer.key("screenId")
        StateJSON.writeID(screen.id, into: &writer)
        writer.key("durationMs")
        writer.int(Int(max(0, at.milliseconds - since.milliseconds)))
      })
  }

  private static func viewed(
    _ screen: FeedScreen, previous: FeedScreen?, transition: FeedTransition, session: SessionID,
    at: Timestamp, in state: NavigationState, _ fields: inout FeedFields
  ) -> FeedItem {
    let node = state[screen.id]
    return FeedItem(
      kind: .screenViewed, session: session, at: at, graph: state.graph.name,
      screen: screen.route,
      fields: fields.members { writer in
        writer.key("screen")
        writer.plainString(screen.route)
        writer.key("screenId")
        StateJSON.writeID(screen.id, into: &writer)
        writer.key("params")
        writeRedacted(node?.params ?? Params(), of: screen.route, in: state.graph, into: &writer)
        writer.key("presentation")
        writer.plainString((node?.presentation ?? .root).jsonName)
        writer.key("transition")
        writer.plainString(transition.rawValue)
        writer.key("previous")
        if let previous {
          writer.beginObject()
          writer.key("screen")
          writer.plainString(previous.route)
          writer.key("screenId")
          StateJSON.writeID(previous.id, into: &writer)
          writer.endObject()
        } else {
          writer.null()
        }
        writer.key("graphVersion")
        writer.int(state.graphVersion)
      })
  }

  /// Params in name order, each one its route declares sensitive as `"[redacted]"`.
  private static func writeRedacted(
    _ params: Params, of route: String, in graph: RouteGraph, into writer: inout JSONWriter
  ) {
    writer.beginObject()
    for (name, value) in params {
      writer.key(plain: name)
      if graph.isSensitive(route: route, param: name) {
        writer.string(Redaction.placeholder)
        continue
      }
      switch value {
      case .string(let text): writer.string(text)
      case .int(let number): writer.int(number)
      case .number(let number): writer.double(number)
      case .bool(let flag): writer.bool(flag)
      }
    }
    writer.endObject()
  }

  /// The names of the keys set, changed or removed, in name order.
  package static func changedKeys(from before: SessionContext, to after: SessionContext)
    -> [String]
  {
    var keys = Set<String>()
    for member in after where before[member.key] != member.value { keys.insert(member.key) }
    for member in before where after[member.key] == nil { keys.insert(member.key) }
    return keys.sorted()
  }

}

/// Writes the fields of a change's items into one buffer, each item's copied out: one
/// allocation an item.
struct FeedFields: ~Copyable {
  private var writer = JSONWriter(capacity: 1024)

  init() { writer.beginArray() }

  /// An object's members as written by `write`, without its braces.
  mutating func members(_ write: (inout JSONWriter) -> Void) -> [UInt8] {
    writer.beginObject()
    let start = writer.byteCount
    write(&writer)
    let end = writer.byteCount
    writer.endObject()
    return writer.bytes(in: start..<end)
  }
}
