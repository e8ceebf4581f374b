/// A route graph that cannot be loaded: names the file, the route and the problem.
public struct GraphError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The file (or built-in resource) the graph came from.
  public var source: String
  /// The route the problem is in, when it is in one.
  public var route: String?
  public var problem: String

  public init(source: String, route: String? = nil, problem: String) {
    self.source = source
    self.route = route
    self.problem = problem
  }

  public var description: String {
    if let route { return "\(source): route '\(route)': \(problem)" }
    return "\(source): \(problem)"
  }
}
