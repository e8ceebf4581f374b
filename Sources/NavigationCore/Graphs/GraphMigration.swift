/// How the routes of a graph's previous version map to this one (the graph's `migrate` field):
///
///     "migrate": {"renamed": {"item": "product"}, "removed": {"promo": null, "legacy": "home"}}
///
/// A route renamed keeps its coordinators (same ids) under the new name. A route removed with
/// `null` has its coordinators stopped with their subtrees; removed with a route name, its
/// coordinators are shown as that route instead, keeping their ids (see
/// `NavigationState.migrated(through:isOpen:)`). A route of the old version that is neither
/// declared in the new one nor named here counts as removed with `null`, so that a graph file
/// that simply drops a screen still migrates every session.
public struct GraphMigration: Sendable, Equatable {
  /// Old route name to new route name.
  public var renamed: [String: String]
  /// Old route name to the route shown in its place, or nil: its coordinators are stopped.
  public var removed: [String: String?]

  public init(renamed: [String: String] = [:], removed: [String: String?] = [:]) {
    self.renamed = renamed
    self.removed = removed
  }

  /// A version that declares no `migrate`.
  public static let none = GraphMigration()

  public var isEmpty: Bool { renamed.isEmpty && removed.isEmpty }

  /// What becomes of the coordinators of the previous version's route `name`.
  public enum Fate: Sendable, Equatable {
    /// They stay, shown as the route of this name (the same name unless renamed or replaced).
    case shownAs(String)
    /// They are stopped with their subtrees.
    case stopped
  }

  /// The fate of `name` under this migration into `graph` (the version that declares it).
  public func fate(of name: String, in graph: RouteGraph) -> Fate {
    // Most versions rename and remove nothing: no hashing then (a dry run asks this of every
    // coordinator of every session).
    if !renamed.isEmpty, let renamedTo = renamed[name] { return .shownAs(renamedTo) }
    if !removed.isEmpty, let replacement = removed[name] {
      return replacement.map(Fate.shownAs) ?? .stopped
    }
    return graph.index(of: name) == nil ? .stopped : .shownAs(name)
  }

  /// The fate of `name` along several versions, each applying its own migration in turn: the
  /// route names of the last of `graphs`, or stopped.
  public static func fate(of name: String, through graphs: [RouteGraph]) -> Fate {
    var current = name
    for graph in graphs {
      guard case .shownAs(let next) = graph.migration.fate(of: current, in: graph) else {
        return .stopped
      }
      current = next
    }
    return .shownAs(current)
  }
}
