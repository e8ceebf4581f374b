/// How a coordinator is shown by its parent.
public enum Presentation: String, Sendable, Hashable, CaseIterable {
  case root
  case push
  case sheet
  case fullScreenCover
  case tab

  public var isModal: Bool { self == .sheet || self == .fullScreenCover }

  /// The presentations a route may declare for explicit calls and deep links.
  public static let explicit: [Presentation] = [.push, .sheet, .fullScreenCover]
}

/// Why a session ended.
public enum SessionEndReason: String, Sendable, Hashable, CaseIterable {
  case deleted
  case expired
}

/// Why a coordinator was stopped.
public enum StopReason: String, Sendable, Hashable, CaseIterable {
  case pop
  case dismiss
  case replace
  case reset
  case teardown
  case sessionEnded
  /// A new version of the graph no longer allows it where it was.
  case migrated
  /// A redirect screen whose pending request could go ahead once the context allowed it.
  case resolved
  /// The context changed so that the coordinator's route is closed (a logout).
  case requirementLost

  /// Whether a leave guard holds this stop back: the user's own navigation does; a view that is
  /// gone, a session that ends, or a context that no longer lets the user in do not.
  var isBlockedByLeaveGuard: Bool {
    switch self {
    case .pop, .dismiss, .replace, .reset: true
    case .teardown, .sessionEnded, .resolved, .requirementLost, .migrated: false
    }
  }
}
