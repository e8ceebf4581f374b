public import NavigationCore
import Synchronization

/// Every version of every graph the server has loaded. New sessions start on a graph's newest
/// version; a session on an older one moves to the newest at its next call (see
/// ``SessionStore/migrateIfBehind(_:_:)``). A version stays while anything may use it: sessions
/// hold their graph, and the catalog keeps every version, so a journal can be replayed through
/// the versions it was written under.
public final class GraphCatalog: Sendable {
  /// One version and the JSON it was read from (kept to be saved with a data directory).
  public struct Version: Sendable {
    public var graph: RouteGraph
    public var source: [UInt8]
    /// What sessions on this version started and were redirected from.
    public let counts: RouteCounts

    public init(graph: RouteGraph, source: [UInt8]) {
      self.graph = graph
      self.source = source
      self.counts = RouteCounts(graph: graph)
    }
  }

  /// Versions by graph name, oldest first.
  private let versions: Mutex<[String: [Version]]>
  /// Grows with every version loaded: a session that saw this generation needs no look at the
  /// catalog (one atomic read per call, instead of a lock).
  private let loads = Atomic<Int>(0)

  public init(_ graphs: [Version]) {
    var byName: [String: [Version]] = [:]
    for version in graphs { byName[version.graph.name, default: []].append(version) }
    for name in byName.keys { byName[name]?.sort { $0.graph.version < $1.graph.version } }
    versions = Mutex(byName)
  }

  /// Changes whenever a version is loaded.
  public var generation: Int { loads.load(ordering: .acquiring) }

  /// The newest version of the graph called `name`.
  public func newest(_ name: String) -> RouteGraph? {
    versions.withLock { $0[name]?.last?.graph }
  }

  /// The newest version of every graph, by name.
  public var newestGraphs: [RouteGraph] {
    versions.withLock { all in all.keys.sorted().compactMap { all[$0]?.last?.graph } }
  }

  /// Every version of every graph, oldest first within each name.
  public var allVersions: [Version] {
    versions.withLock { all in all.keys.sorted().flatMap { all[$0] ?? [] } }
  }

  /// The counts of `graph`'s version (a session holds them, see ``RouteCounts``).
  public func counts(for graph: RouteGraph) -> RouteCounts? {
    versions.withLock { $0[graph.name]?.first { $0.graph === graph }?.counts }
  }

  /// Version `version` of the graph called `name`.
  public func graph(_ name: String, version: Int) -> RouteGraph? {
    versions.withLock { $0[name]?.first { $0.graph.version == version }?.graph }
  }

  /// The versions of `graph`'s name after `graph`'s own, oldest first (none: it is the newest).
  public func versions(after graph: RouteGraph) -> [RouteGraph] {
    versions.withLock { all in
      (all[graph.name] ?? []).lazy.map(\.graph).filter { $0.version > graph.version }
    }
  }

  /// The versions of `name` from after `version` up to `target`, oldest first.
  public func versions(of name: String, after version: Int, upTo target: Int) -> [RouteGraph] {
    versions.withLock { all in
      (all[name] ?? []).map(\.graph).filter { $0.version > version && $0.version <= target }
    }
  }

  /// Adds a version newer than every loaded one of its name (or a graph new by name).
  public func add(_ version: Version) throws(EngineRefusal) {
    try versions.withLock { (all) throws(EngineRefusal) in
      let newest = all[version.graph.name]?.last?.graph.version ?? 0
      guard version.graph.version > newest else {
        throw EngineRefusal.graphVersionExists(name: version.graph.name, newest: newest)
      }
      all[version.graph.name, default: []].append(version)
    }
    loads.wrappingAdd(1, ordering: .releasing)
  }

  /// Adds a version read back from a data directory, in its place among the others; one
  /// already there is left alone.
  package func restore(_ version: Version) {
    versions.withLock { all in
      var list = all[version.graph.name] ?? []
      guard !list.contains(where: { $0.graph.version == version.graph.version }) else { return }
      list.append(version)
      list.sort { $0.graph.version < $1.graph.version }
      all[version.graph.name] = list
    }
    loads.wrappingAdd(1, ordering: .releasing)
  }
}
