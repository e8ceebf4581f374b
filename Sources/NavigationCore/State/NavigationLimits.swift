/// Per-session limits, fixed when the session is created.
public struct NavigationLimits: Sendable, Equatable {
  public var maxCoordinators: Int

  public init(maxCoordinators: Int = 256) {
    self.maxCoordinators = maxCoordinators
  }
}
