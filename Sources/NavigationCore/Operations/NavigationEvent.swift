public import NavJSON

/// Something that happened to a session, numbered in the order it happened.
public struct NavigationEvent: Sendable, Equatable {
  public enum Kind: Sendable, Equatable {
    case started(
      CoordinatorID, route: String, params: Params, presentation: Presentation,
      parent: CoordinatorID?)
    case stopped(CoordinatorID, route: String, reason: StopReason)
    case resumed(CoordinatorID, result: JSONValue)
    case tabSelected(container: CoordinatorID, tab: Int, route: String)
    case sessionEnded(reason: SessionEndReason)
    /// The session moved from one version of its graph to another (graph versions, not session
    /// versions).
    case sessionMigrated(from: Int, to: Int)
    /// The backend set the session's context (docs/behaviour.md section 9).
    case contextChanged(SessionContext)
    /// `route` was closed, so `redirect` was started instead as `coordinator` (docs/behaviour.md section 10).
    case navigationRedirected(route: String, redirect: String, coordinator: CoordinatorID)
    /// The pending request for `route` went ahead once the context opened it.
    case pendingApplied(route: String)
    /// The pending request for `route` was given up; `code` says why when it no longer applied.
    case pendingDropped(route: String, reason: PendingDropReason, code: NavigationError.Code?)
    /// A leave guard was set on `coordinator`, or cleared (`reason` nil) (docs/behaviour.md section 11).
    case leaveGuardChanged(CoordinatorID, reason: String?)
    /// The visible path was made what it was at session version `from` (`POST .../restore`).
    case sessionRestored(from: Int)
    /// A share of the session was handed out (docs/shares.md).
    case shareCreated(id: String, mode: ShareMode, label: String)
    /// A share ended: revoked, or expired.
    case shareRevoked(id: String, reason: ShareEndReason)

    /// The `type` clients see, as a compile-time string: written as it is, with no `String`.
    public var staticTypeName: StaticString {
      switch self {
      case .started: "coordinator.started"
      case .stopped: "coordinator.stopped"
      case .resumed: "coordinator.resumed"
      case .tabSelected: "tab.selected"
      case .sessionEnded: "session.ended"
      case .sessionMigrated: "session.migrated"
      case .sessionRestored: "session.restored"
      case .contextChanged: "context.changed"
      case .navigationRedirected: "navigation.redirected"
      case .pendingApplied: "pending.applied"
      case .pendingDropped: "pending.dropped"
      case .leaveGuardChanged: "leaveGuard.changed"
      case .shareCreated: "share.created"
      case .shareRevoked: "share.revoked"
      }
    }

    public var typeName: String { staticTypeName.description }
  }

  /// Counts up by one per event within a session, never repeating.
  public var seq: Int
  /// The session version the event's operation produced.
  public var version: Int
  public var kind: Kind

  public init(seq: Int, version: Int, kind: Kind) {
    self.seq = seq
    self.version = version
    self.kind = kind
  }
}

/// The events of one operation while it runs. Stops are kept apart so that, within each operation,
/// every stopped event comes before the started ones whatever order the work happened in.
///
/// It also remembers the active coordinator as the operation has left it, when that is known
/// without a walk: each op of a batch needs it, and finding it walks the visible path, so a
/// batch of pushes would cost the square of its length.
struct PendingEvents {
  private(set) var ordered: [NavigationEvent.Kind] = []
  private var stops: [NavigationEvent.Kind] = []
  private var others: [NavigationEvent.Kind] = []
  /// The active coordinator, when `activeIsKnown`.
  var knownActive: CoordinatorID?
  var activeIsKnown = false
  /// The first coordinator with a leave guard that this operation stopped in a way a guard
  /// holds back (see ``StopReason/isBlockedByLeaveGuard``); the operation is refused unless it
  /// says `discard`.
  var leaveBlock: (coordinator: CoordinatorID, reason: String)?

  mutating func forgetActive() { activeIsKnown = false }

  mutating func know(active id: CoordinatorID?) {
    knownActive = id
    activeIsKnown = true
  }

  var isEmpty: Bool { ordered.isEmpty && stops.isEmpty && others.isEmpty }

  mutating func stopped(_ kind: NavigationEvent.Kind) { Self.append(kind, to: &stops) }
  mutating func happened(_ kind: NavigationEvent.Kind) { Self.append(kind, to: &others) }

  /// A list's first event makes room for four: an operation's events, or a small batch's once
  /// taken over into `ordered`, then fit without growing from one to two to four.
  private static func append(_ kind: NavigationEvent.Kind, to list: inout [NavigationEvent.Kind]) {
    if list.capacity == 0 { list.reserveCapacity(4) }
    list.append(kind)
  }

  /// Closes one operation (a batch holds several, each ordered on its own).
  mutating func endOperation() {
    // Most operations are one: their events are taken over rather than copied.
    if ordered.isEmpty && others.isEmpty {
      swap(&ordered, &stops)
    } else if ordered.isEmpty && stops.isEmpty {
      swap(&ordered, &others)
    } else {
      ordered.reserveCapacity(ordered.count + stops.count + others.count)
      ordered += stops
      ordered += others
      stops.removeAll()
      others.removeAll()
    }
  }
}
