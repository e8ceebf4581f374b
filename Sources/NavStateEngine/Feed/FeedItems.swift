package import NavStateWire
package import NavigationCore

/// The coordinator a session shows: a `screen.viewed`'s screen, or its `previous`.
package struct FeedScreen: Sendable, Equatable {
  package var id: CoordinatorID
  package var route: String

  package init(id: CoordinatorID, route: String) {
    self.id = id
    self.route = route
  }
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
    let graph = state.graph.name
    func add(_ payload: FeedPayload) {
      items.append(FeedItem(session: session, at: at, graph: graph, payload: payload))
    }
    for event in events {
      switch event.kind {
      case .navigationRedirected(let route, let redirect, _):
        add(.navigationRedirected(route: route, redirect: redirect))
      case .pendingApplied(let route):
        add(.pendingApplied(route: route))
      case .pendingDropped(let route, let reason, _):
        add(.pendingDropped(route: route, reason: reason))
      case .contextChanged(let context):
        add(
          .contextChanged(keys: changedKeys(from: contextBefore ?? SessionContext(), to: context)))
      case .sessionMigrated(let from, let to):
        add(.sessionMigrated(from: from, to: to))
      case .sessionRestored(let from):
        add(.sessionRestored(from: from))
      default: continue
      }
    }
    let after = state.activeScreen
    guard after != before else { return items }
    if let before {
      add(.screenLeft(screen: before, durationMs: duration(since: activeSince, at: at)))
    }
    if let after {
      add(viewed(after, previous: before, transition: transition(), in: state))
    }
    return items
  }

  /// A new session's items: `session.started`, then `screen.viewed` (transition `start`).
  package static func started(session: SessionID, at: Timestamp, state: NavigationState)
    -> [FeedItem]
  {
    let graph = state.graph.name
    let root = state.rootID.flatMap { state[$0]?.route } ?? ""
    var items = [
      FeedItem(
        session: session, at: at, graph: graph,
        payload: .sessionStarted(graphVersion: state.graphVersion, root: root))
    ]
    if let active = state.activeScreen {
      items.append(
        FeedItem(
          session: session, at: at, graph: graph,
          payload: viewed(active, previous: nil, transition: .start, in: state)))
    }
    return items
  }

  /// An ended session's items: `screen.left` for the screen it showed, then `session.ended`.
  package static func ended(
    session: SessionID, at: Timestamp, showing before: FeedScreen?, activeSince: Timestamp,
    graph: String, reason: SessionEndReason
  ) -> [FeedItem] {
    var items: [FeedItem] = []
    if let before {
      items.append(
        FeedItem(
          session: session, at: at, graph: graph,
          payload: .screenLeft(screen: before, durationMs: duration(since: activeSince, at: at))))
    }
    items.append(
      FeedItem(session: session, at: at, graph: graph, payload: .sessionEnded(reason: reason)))
    return items
  }

  private static func duration(since: Timestamp, at: Timestamp) -> Int {
    Int(max(0, at.milliseconds - since.milliseconds))
  }

  private static func viewed(
    _ screen: FeedScreen, previous: FeedScreen?, transition: FeedTransition,
    in state: NavigationState
  ) -> FeedPayload {
    let node = state[screen.id]
    return .screenViewed(
      screen: screen,
      params: redacted(node?.params ?? Params(), of: screen.route, in: state.graph),
      presentation: node?.presentation ?? .root, transition: transition, previous: previous,
      graphVersion: state.graphVersion)
  }

  /// The params, each one its route declares sensitive as `"[redacted]"`.
  private static func redacted(_ params: Params, of route: String, in graph: RouteGraph)
    -> Params
  {
    guard !params.isEmpty else { return params }
    var shown = params
    for (name, _) in params where graph.isSensitive(route: route, param: name) {
      shown[name] = .string(Redaction.placeholder)
    }
    return shown
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
