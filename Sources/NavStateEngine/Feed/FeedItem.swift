package import NavStateWire
package import NavigationCore

/// What one backend feed item is about (docs/feed.md).
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

/// An item's own fields, as values: kept in a compact binary form (a screen view takes some 80
/// bytes with its header, where its JSON takes 250) and written as JSON when read.
package enum FeedPayload: Sendable, Equatable {
  case sessionStarted(graphVersion: Int, root: String)
  case sessionEnded(reason: SessionEndReason)
  /// `params` with the route's sensitive params already `[redacted]`.
  case screenViewed(
    screen: FeedScreen, params: Params, presentation: Presentation, transition: FeedTransition,
    previous: FeedScreen?, graphVersion: Int)
  case screenLeft(screen: FeedScreen, durationMs: Int)
  case navigationRedirected(route: String, redirect: String)
  case pendingApplied(route: String)
  case pendingDropped(route: String, reason: PendingDropReason)
  /// The names of the keys set, changed or removed, never their values.
  case contextChanged(keys: [String])
  case sessionMigrated(from: Int, to: Int)
  case sessionRestored(from: Int)

  package var kind: FeedKind {
    switch self {
    case .sessionStarted: .sessionStarted
    case .sessionEnded: .sessionEnded
    case .screenViewed: .screenViewed
    case .screenLeft: .screenLeft
    case .navigationRedirected: .navigationRedirected
    case .pendingApplied: .pendingApplied
    case .pendingDropped: .pendingDropped
    case .contextChanged: .contextChanged
    case .sessionMigrated: .sessionMigrated
    case .sessionRestored: .sessionRestored
    }
  }
}

/// One item of the backend feed: what happened to which session, when, on which graph.
package struct FeedItem: Sendable, Equatable {
  /// The item's place in the feed (its cursor names it); 0 until the feed numbers it.
  package var sequence: UInt64 = 0
  package var session: SessionID
  package var at: Timestamp
  package var graph: String
  package var payload: FeedPayload

  package init(session: SessionID, at: Timestamp, graph: String, payload: FeedPayload) {
    self.session = session
    self.at = at
    self.graph = graph
    self.payload = payload
  }

  package var kind: FeedKind { payload.kind }

  /// The screen a `screen.viewed` shows, for funnels; nil for any other item.
  package var viewedScreen: String? {
    if case .screenViewed(let screen, _, _, _, _, _) = payload { return screen.route }
    return nil
  }
}
