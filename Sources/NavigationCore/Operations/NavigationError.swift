/// A refused operation. Nothing changed; `code` is the stable name clients match on.
public struct NavigationError: Error, Sendable, Equatable, CustomStringConvertible {
  public enum Code: String, Sendable, CaseIterable {
    case invalidRequest = "invalid_request"
    case unknownRoute = "unknown_route"
    case invalidParams = "invalid_params"
    case routeNotAllowed = "route_not_allowed"
    case presentationNotAllowed = "presentation_not_allowed"
    case notARootRoute = "not_a_root_route"
    case coordinatorLimit = "coordinator_limit"
    case nothingToPop = "nothing_to_pop"
    case notInActiveFlow = "not_in_active_flow"
    case nothingToDismiss = "nothing_to_dismiss"
    case notAModal = "not_a_modal"
    case nothingToGoBackTo = "nothing_to_go_back_to"
    case noTabContainer = "no_tab_container"
    case noSuchTab = "no_such_tab"
    case cannotReplaceTab = "cannot_replace_tab"
    case targetNotFree = "target_not_free"
    case coordinatorStopped = "coordinator_stopped"
    case unknownCoordinator = "unknown_coordinator"
    case cannotTearDownRoot = "cannot_tear_down_root"
    case cannotTearDownTab = "cannot_tear_down_tab"
    case invalidPath = "invalid_path"
    case invalidURL = "invalid_url"
    case noRouteForURL = "no_route_for_url"
    case sessionEnded = "session_ended"
    /// The route is closed in the session's context and has no redirect (docs/behaviour.md section 10).
    case requirementNotMet = "requirement_not_met"
    /// The operation would stop a coordinator with a leave guard, and did not say `discard`.
    case leaveBlocked = "leave_blocked"
    case invalidContext = "invalid_context"
    case contextTooLarge = "context_too_large"
    case tooManyShares = "too_many_shares"
    case shareNotFound = "share_not_found"

    /// What kind of refusal this is; the HTTP layer maps it to a status.
    public var kind: Kind {
      switch self {
      case .nothingToPop, .notInActiveFlow, .nothingToDismiss, .notAModal, .nothingToGoBackTo,
        .noTabContainer, .cannotReplaceTab, .targetNotFree, .coordinatorStopped,
        .cannotTearDownRoot, .cannotTearDownTab, .leaveBlocked, .tooManyShares:
        .conflict
      case .requirementNotMet:
        .forbidden
      case .unknownCoordinator, .sessionEnded, .shareNotFound:
        .notFound
      case .invalidRequest, .unknownRoute, .invalidParams, .routeNotAllowed,
        .presentationNotAllowed, .notARootRoute, .coordinatorLimit, .noSuchTab, .invalidPath,
        .invalidURL, .noRouteForURL, .invalidContext, .contextTooLarge:
        .unprocessable
      }
    }
  }

  public enum Kind: Sendable, Equatable {
    /// The request cannot mean anything in this graph (HTTP 422).
    case unprocessable
    /// The request is fine but the session's current state refuses it (HTTP 409).
    case conflict
    /// It names something that does not exist (HTTP 404).
    case notFound
    /// The session's context does not let it through (HTTP 403).
    case forbidden
  }

  /// What a client needs beyond the code to act on a refusal, for the codes that carry more.
  public enum Details: Sendable, Equatable {
    /// `route` is closed; `missing` are the context keys whose requirement fails, sorted.
    case requirementNotMet(route: String, missing: [String])
    /// `coordinator` has a leave guard with this reason; retry with `discard` to go anyway.
    case leaveBlocked(coordinator: CoordinatorID, reason: String)
  }

  public var code: Code
  public var detail: String
  /// For a refused batch: the position of the op that was refused.
  public var opIndex: Int?
  public var details: Details?

  public init(_ code: Code, _ detail: String, opIndex: Int? = nil, details: Details? = nil) {
    self.code = code
    self.detail = detail
    self.opIndex = opIndex
    self.details = details
  }

  public var kind: Kind { code.kind }

  public var description: String {
    let position = opIndex.map { " (op \($0))" } ?? ""
    return "\(code.rawValue)\(position): \(detail)"
  }
}
