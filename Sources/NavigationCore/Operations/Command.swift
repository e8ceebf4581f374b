public import NavJSON

/// A route to show and the parameters the client gave for it (checked against the graph later).
public struct RouteRequest: Sendable, Equatable {
  public var route: String
  public var params: JSONObject

  public init(route: String, params: JSONObject = JSONObject()) {
    self.route = route
    self.params = params
  }
}

/// One entry of a visible path a client asks for.
public struct PathEntry: Sendable, Equatable {
  public var route: String
  public var params: JSONObject
  public var presentation: Presentation

  public init(route: String, params: JSONObject = JSONObject(), presentation: Presentation) {
    self.route = route
    self.params = params
    self.presentation = presentation
  }
}

public enum PopAmount: Sendable, Equatable {
  case count(Int)
  case to(CoordinatorID)
  case toRoot
}

public enum DismissTarget: Sendable, Equatable {
  /// The modal flow that holds the active coordinator.
  case current
  case coordinator(CoordinatorID)
  case all
}

public enum ModalStyle: String, Sendable, Equatable {
  case sheet
  case fullScreenCover

  var presentation: Presentation { self == .sheet ? .sheet : .fullScreenCover }
}

public enum TabSelector: Sendable, Equatable {
  case index(Int)
  case route(String)
}

/// Every operation a client can ask of a session.
public indirect enum Command: Sendable, Equatable {
  case push(RouteRequest, target: CoordinatorID? = nil, singleTop: Bool = false)
  case pop(PopAmount = .count(1), result: JSONValue? = nil)
  case present(RouteRequest, style: ModalStyle)
  case dismiss(DismissTarget = .current, result: JSONValue? = nil)
  case back(result: JSONValue? = nil)
  case replace(RouteRequest)
  case selectTab(TabSelector, container: CoordinatorID? = nil)
  case setPath([PathEntry])
  /// `setPath` to the path the session showed at `version`, which its events say
  /// (`session.restored`).
  case restore(version: Int, path: [PathEntry])
  case deepLink(String)
  /// The client's presenter for this coordinator was torn down.
  case teardown(CoordinatorID)
  case batch([Command])
  /// Replaces the session's context (the backend's call; a merge patch is worked out first
  /// with ``SessionContext/merging(_:)``).
  case setContext(SessionContext)
  /// Sets (a reason) or clears (nil) the leave guard of a live coordinator.
  case setLeaveGuard(CoordinatorID, reason: String?)
  /// Hands out a share of the session (docs/shares.md); its token is made by the server.
  case createShare(SessionShare)
  /// Ends a share: revoked by a caller, or expired (the server's own call).
  case revokeShare(String, reason: ShareEndReason)
  /// The command, going ahead even where it stops coordinators with leave guards (`discard:
  /// true`). Around a batch it covers every op; inside one, that op.
  case discarding(Command)
}
