/// A request a redirect holds back until the session's context opens its route (docs/behaviour.md section 10).
public struct PendingRequest: Sendable, Equatable {
  /// The kind of call that was redirected, as clients see it in `pending.op`.
  public enum Op: String, Sendable, CaseIterable {
    case push
    case present
    case replace
    case state
    case deeplink
    /// A session created at a closed root.
    case create
  }

  /// What applying it does, once the redirect coordinator has stopped.
  public enum Action: Sendable, Equatable {
    /// Start `route` as `presentation` under `parent` (nil: as the root), where the redirect
    /// was started in its place.
    case start(route: String, params: Params, presentation: Presentation, parent: CoordinatorID?)
    /// Make the visible path equal these entries, as `PUT state` and deep links do.
    case path([PathEntry])
  }

  public var op: Op
  /// The closed route that was asked for (for a path, its first closed entry).
  public var route: String
  /// The deep link, for `deeplink`.
  public var url: String?
  /// The redirect's coordinator: leaving it cancels the request.
  public var coordinator: CoordinatorID
  public var action: Action

  public init(
    op: Op, route: String, url: String? = nil, coordinator: CoordinatorID = CoordinatorID(0),
    action: Action
  ) {
    self.op = op
    self.route = route
    self.url = url
    self.coordinator = coordinator
    self.action = action
  }
}

/// Why a pending request was given up.
public enum PendingDropReason: String, Sendable, Hashable, CaseIterable {
  /// A newer redirect took its place.
  case replaced
  /// The user left the redirect screen.
  case cancelled
  /// Its route opened but the request no longer applies (the `code` says why).
  case invalid
}

/// An unsaved-changes veto on one live coordinator (docs/behaviour.md section 11).
public struct LeaveGuard: Sendable, Hashable {
  public var coordinator: CoordinatorID
  public var reason: String

  public init(coordinator: CoordinatorID, reason: String) {
    self.coordinator = coordinator
    self.reason = reason
  }

  /// The longest reason a guard may give, in Unicode scalars (at most 800 bytes of UTF-8): not
  /// in characters, since one grapheme cluster may hold any number of combining scalars.
  public static let maxReasonLength = 200
}
