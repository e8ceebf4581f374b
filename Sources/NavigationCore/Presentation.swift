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
}
