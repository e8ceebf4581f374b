/// What migrating one session would do, for a dry run (see
/// `NavigationState.migrationSummary(through:isOpen:)`).
public struct MigrationSummary: Sendable, Equatable {
  /// Ordered by how much changes: a session that restarts has also migrated.
  public enum Outcome: Int, Sendable, Comparable {
    /// Every coordinator stays as it is; only the graph version moves.
    case unchanged
    /// Something is renamed, refitted, stopped or started, and the root stays.
    case migrated
    /// The root could not stay: the tree restarted at the graph's root.
    case restarted

    public static func < (lhs: Outcome, rhs: Outcome) -> Bool { lhs.rawValue < rhs.rawValue }
  }

  public var outcome: Outcome
  /// Coordinators stopped, by the route name they had when stopped.
  public var stopped: [String: Int]

  public init(outcome: Outcome, stopped: [String: Int] = [:]) {
    self.outcome = outcome
    self.stopped = stopped
  }
}

/// Summaries of many sessions added up: the body of a dry run's answer,
/// `{sessions, unchanged, migrated, stopped: {route: count}, restarted}`.
public struct MigrationReport: Sendable, Equatable {
  public var sessions = 0
  public var unchanged = 0
  /// Every session that is not unchanged, those that restarted included.
  public var migrated = 0
  public var restarted = 0
  public var stopped: [String: Int] = [:]

  public init() {}

  public mutating func add(_ summary: MigrationSummary) {
    sessions += 1
    switch summary.outcome {
    case .unchanged: unchanged += 1
    case .migrated: migrated += 1
    case .restarted:
      migrated += 1
      restarted += 1
    }
    for (route, count) in summary.stopped { stopped[route, default: 0] += count }
  }
}
