/// What a route asks of the session's context (`requires`) and where a session goes instead
/// when the context does not meet it (`redirect`), as a graph declares them.
///
/// Kept apart from ``Route`` (in ``RouteGraph/guards``, by route index) so that graphs without
/// guards copy and compare routes exactly as they did before guards existed.
public struct RouteGuard: Sendable, Hashable {
  /// One context key and the values that meet it.
  public struct Requirement: Sendable, Hashable {
    public var key: String
    /// Accepted values: the context value must be one of them, or, for an array of strings,
    /// share an element with them.
    public var accepted: [ContextValue]

    public init(key: String, accepted: [ContextValue]) {
      self.key = key
      self.accepted = accepted
    }

    public func isMet(by value: ContextValue?) -> Bool {
      guard let value else { return false }
      if case .strings(let texts) = value {
        return accepted.contains { candidate in
          if case .string(let text) = candidate { return texts.contains(text) }
          if case .strings(let others) = candidate { return others.contains(where: texts.contains) }
          return false
        }
      }
      return accepted.contains(value)
    }
  }

  /// Sorted by key.
  public var requires: [Requirement]
  public var redirect: String?

  public init(requires: [Requirement], redirect: String?) {
    self.requires = requires.sorted { $0.key < $1.key }
    self.redirect = redirect
  }

  /// The keys whose requirement `context` fails, sorted; empty when the route is open.
  public func missing(in context: SessionContext) -> [String] {
    requires.filter { !$0.isMet(by: context[$0.key]) }.map(\.key)
  }

  public func isOpen(in context: SessionContext) -> Bool {
    requires.allSatisfy { $0.isMet(by: context[$0.key]) }
  }
}

extension RouteGraph {
  /// The guard of the route called `name`, if it has one.
  public func routeGuard(of name: String) -> RouteGuard? {
    guard hasGuards, let index = index(of: name) else { return nil }
    return guards[index]
  }

  /// Whether the route called `name` is open in `context`: it has no `requires`, or they hold.
  public func isOpen(_ name: String, in context: SessionContext) -> Bool {
    guard hasGuards else { return true }
    return routeGuard(of: name)?.isOpen(in: context) ?? true
  }
}
