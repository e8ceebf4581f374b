import NavJSON
package import NavStateEngine
package import NavigationCore

/// A session's tree in its archive, and a navigation state whole (the oldest state a history
/// keeps, which may be on an older graph version than the session now).
extension SessionArchive {
  static func appendCoordinators(_ navigation: NavigationState, to bytes: inout [UInt8]) {
    bytes.appendVarint(UInt64(navigation.coordinators.count))
    for coordinator in navigation.coordinators.values {
      bytes.appendVarint(UInt64(coordinator.id.number))
      bytes.appendBlob(coordinator.route)
      bytes.appendVarint(UInt64(coordinator.params.count))
      for (name, value) in coordinator.params {
        bytes.appendBlob(name)
        CompactEvent.appendParam(value, to: &bytes)
      }
      bytes.append(CompactEvent.code(of: coordinator.presentation))
      bytes.appendVarint(UInt64(coordinator.parent?.number ?? 0))
      bytes.appendVarint(UInt64(coordinator.children.count))
      for child in coordinator.children { bytes.appendVarint(UInt64(child.number)) }
      bytes.appendVarint(UInt64(coordinator.selectedTab.map { $0 + 1 } ?? 0))
    }
  }

  static func readCoordinators(_ reader: inout ByteReader) throws(Damage) -> [Coordinator] {
    func need<T>(_ value: T?, _ what: String) throws(Damage) -> T {
      guard let value else { throw Damage(reason: "cannot read its \(what)") }
      return value
    }
    let count = try need(reader.count(), "coordinators")
    var coordinators: [Coordinator] = []
    for _ in 0..<count {
      let id = try need(CompactEvent.coordinator(&reader), "coordinator id")
      let route = try need(reader.string(), "route")
      let paramCount = try need(reader.count(), "params")
      var params = Params(minimumCapacity: paramCount)
      for _ in 0..<paramCount {
        let name = try need(reader.string(), "param name")
        params[name] = try need(CompactEvent.readParam(&reader), "param value")
      }
      let presentation = try need(
        CompactEvent.element(of: CompactEvent.presentations, &reader), "presentation")
      let parent = try need(reader.natural(), "parent")
      let childCount = try need(reader.count(), "children")
      var children: [CoordinatorID] = []
      for _ in 0..<childCount {
        children.append(try need(CompactEvent.coordinator(&reader), "child"))
      }
      let tab = try need(reader.natural(), "selected tab")
      coordinators.append(
        Coordinator(
          id: id, route: route, params: params, presentation: presentation,
          parent: parent == 0 ? nil : CoordinatorID(parent),
          children: CoordinatorChildren(children),
          selectedTab: tab == 0 ? nil : tab - 1))
    }
    return coordinators
  }

  /// A navigation state whole: graph and version, counters, tree, context and guards.
  package static func appendState(_ state: NavigationState, to bytes: inout [UInt8]) {
    bytes.appendBlob(state.graph.name)
    bytes.appendVarint(UInt64(state.graphVersion))
    bytes.appendVarint(UInt64(state.version))
    bytes.appendVarint(UInt64(state.lastIssuedID))
    bytes.appendVarint(UInt64(state.lastSeq))
    bytes.appendVarint(UInt64(state.rootID?.number ?? 0))
    appendCoordinators(state, to: &bytes)
    appendGuarding(state, to: &bytes)
  }

  package static func readState(
    _ reader: inout ByteReader, graph: (String, Int) -> RouteGraph?, limits: NavigationLimits,
    withSharing: Bool = false
  ) throws(Damage) -> NavigationState {
    func need<T>(_ value: T?, _ what: String) throws(Damage) -> T {
      guard let value else { throw Damage(reason: "cannot read its \(what)") }
      return value
    }
    let name = try need(reader.string(), "kept state's graph")
    let graphVersion = try need(reader.natural(), "kept state's graph version")
    guard let graph = graph(name, graphVersion) else {
      throw Damage(reason: "its history's graph '\(name)' version \(graphVersion) is not loaded")
    }
    let version = try need(reader.natural(), "kept state's version")
    let lastIssuedID = try need(reader.natural(), "kept state's last id")
    let lastSeq = try need(reader.natural(), "kept state's last seq")
    let root = try need(reader.natural(), "kept state's root")
    let coordinators = try readCoordinators(&reader)
    let guarding = try readGuarding(&reader)
    let sharing = withSharing ? try readSharing(&reader) : Sharing()
    do {
      return try NavigationState(
        restoring: graph, limits: limits, coordinators: coordinators,
        rootID: root == 0 ? nil : CoordinatorID(root), version: version,
        lastIssuedID: lastIssuedID, lastSeq: lastSeq, context: guarding.context,
        pendingRequest: guarding.pending, leaveGuards: guarding.leaveGuards,
        shares: sharing.shares, forkedFrom: sharing.forkedFrom)
    } catch {
      throw Damage(reason: "its history's kept state is not one the operations make")
    }
  }
}
