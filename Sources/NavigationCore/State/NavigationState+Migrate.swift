/// Moving a live session to a newer version of its graph (docs/behaviour.md section 12), as one operation: one
/// version bump, `coordinator.stopped` (reason `migrated`) for what went, `coordinator.started`
/// for what had to be added, then `session.migrated {from, to}`.
///
/// The rules, applied from the root down, so that a parent is settled before its children:
/// - a coordinator's route is looked up through the version's `migrate` (see `GraphMigration`):
///   renamed, it keeps its id under the new name; removed with `null` (or simply no longer
///   declared), it is stopped with its subtree; removed with a replacement, it is shown as the
///   replacement and keeps its id too: the screen changes in place, as with a rename, and its
///   children stay when the replacement allows them. No stopped and started pair is made for it;
///   clients learn of it from the state (the API sends a `reset` on open streams);
/// - its params are fitted (`fittedParams`): a required param still missing stops it;
/// - a child that its parent's `next` excludes, or shown in a presentation its route no longer
///   permits, or whose route is closed (`isOpen`), is stopped with its subtree;
/// - a tab container's tabs become its route's `tabs`, in order: tabs that stay keep their ids,
///   tabs no longer listed are stopped, new ones are started with their defaults; the selected
///   tab stays selected when it stays, else the first is;
/// - a root that cannot stay (its route gone, no longer allowed as a root, a required param
///   missing, closed) or a tree that no longer fits the coordinator limit restarts the tree at
///   the graph's root, with its defaults.
///
/// Stopping goes through `stop`, the lifecycle's one path: children before parents.
///
/// Note for the layers above: within a session a coordinator's route and params otherwise never
/// change, and `CoordinatorTable.shape` relies on that; after a migration a cached encoding of
/// the tree must be dropped, not compared by shape.
extension NavigationState {
  /// The version of the graph this state is under.
  public var graphVersion: Int { graph.version }

  /// This state moved to `graph`, the version right after its own, with the events of the move.
  /// `isOpen` says whether a route's requirements hold in the session's context (docs/behaviour.md section 10); a
  /// closed route is stopped like any other the new version forbids.
  public func migrated(to graph: RouteGraph, isOpen: (Route) -> Bool = { _ in true })
    throws(NavigationError) -> (NavigationState, [NavigationEvent])
  {
    try migrated(through: [graph], isOpen: isOpen)
  }

  /// This state moved along `graphs`: every version after its own up to the newest, in order,
  /// as one operation. Names move through each version's `migrate` in turn; what may stay is
  /// judged by the newest version's rules alone (see `migrateTree`). Throws, changing nothing, when `graphs`
  /// is not such a list, when the session has ended, or when the tree must restart and the
  /// graph's root route cannot start on its own (a required param without a default).
  public func migrated(through graphs: [RouteGraph], isOpen: (Route) -> Bool = { _ in true })
    throws(NavigationError) -> (NavigationState, [NavigationEvent])
  {
    let (state, events, _) = try migratedAndSummarized(through: graphs, isOpen: isOpen)
    return (state, events)
  }

  /// `migrated(through:isOpen:)`, and what `migrationSummary(through:isOpen:)` would have said of
  /// it, read off the migration itself: migrating every live session reports what it did as a
  /// dry run does, without working each session out twice.
  public func migratedAndSummarized(
    through graphs: [RouteGraph], isOpen: (Route) -> Bool = { _ in true }
  ) throws(NavigationError) -> (NavigationState, [NavigationEvent], MigrationSummary) {
    var next = self
    var pending = PendingEvents()
    let outcome = try next.migrate(through: graphs, isOpen: isOpen, into: &pending)
    let events = next.commit(&pending)
    let summary = MigrationSummary(
      outcome: outcome, stopped: Self.stoppedRoutes(events.lazy.map(\.kind)))
    return (next, events, summary)
  }

  /// Coordinators stopped, by route name.
  private static func stoppedRoutes(_ kinds: some Sequence<NavigationEvent.Kind>) -> [String: Int] {
    var stopped: [String: Int] = [:]
    for kind in kinds {
      if case .stopped(_, let route, _) = kind { stopped[route, default: 0] += 1 }
    }
    return stopped
  }

  /// What `migrated(through:isOpen:)` would do, without its state or events: for dry runs over
  /// every live session. A session that stays as it is (the common case) is found by a read of
  /// its tree, with no copy; the others are migrated on a copy and their stops counted.
  public func migrationSummary(
    through graphs: [RouteGraph], isOpen: (Route) -> Bool = { _ in true }
  ) throws(NavigationError) -> MigrationSummary {
    try checkMigrationPath(graphs)
    if staysAsItIs(through: graphs, isOpen: isOpen) {
      return MigrationSummary(outcome: .unchanged)
    }
    // Known to change: straight to the settling, which is all a dry run needs (no version
    // bump, no session.migrated, no numbered events).
    var scratch = self
    var pending = PendingEvents()
    let outcome = try scratch.migrateTree(through: graphs, isOpen: isOpen, into: &pending)
    pending.endOperation()
    return MigrationSummary(outcome: outcome, stopped: Self.stoppedRoutes(pending.ordered))
  }

  mutating func migrate(
    through graphs: [RouteGraph], isOpen: (Route) -> Bool, into pending: inout PendingEvents
  ) throws(NavigationError) -> MigrationSummary.Outcome {
    try checkMigrationPath(graphs)
    let from = graph.version
    var outcome = MigrationSummary.Outcome.unchanged
    if let last = graphs.last, staysAsItIs(through: graphs, isOpen: isOpen) {
      graph = last
    } else {
      outcome = try migrateTree(through: graphs, isOpen: isOpen, into: &pending)
    }
    if guarding != nil { carryPending(through: graphs, into: &pending) }
    pending.happened(.sessionMigrated(from: from, to: graph.version))
    return outcome
  }

  func checkMigrationPath(_ graphs: [RouteGraph]) throws(NavigationError) {
    guard !isEnded else { throw NavigationError(.sessionEnded, "the session has ended") }
    guard !graphs.isEmpty else {
      throw NavigationError(.invalidRequest, "a migration needs a version to migrate to")
    }
    var version = graph.version
    for next in graphs {
      guard next.name == graph.name, next.version > version else {
        throw NavigationError(
          .invalidRequest,
          "graph '\(next.name)' version \(next.version) does not follow '\(graph.name)' version \(version)"
        )
      }
      version = next.version
    }
  }

  /// Settles the tree under the last of `graphs`. The versions between only say how names
  /// move (their `migrate`, applied in turn); the rules are the last version's alone, so that
  /// nothing is started by one version to be stopped by the next within one operation.
  /// The state's graph becomes the last first: the starts look routes up in it. A tree that,
  /// settled, no longer fits the coordinator limit (new tabs) restarts too.
  private mutating func migrateTree(
    through graphs: [RouteGraph], isOpen: (Route) -> Bool, into pending: inout PendingEvents
  ) throws(NavigationError) -> MigrationSummary.Outcome {
    guard let next = graphs.last else { return .unchanged }
    // Kept to start over from when the tree must restart: a restart stops the tree as it was,
    // under its old route names, rather than what a partial settling left.
    let unsettled = self
    let unsettledPending = pending
    graph = next
    guard let root = rootID else { return .unchanged }
    if let place = place(root, through: graphs, isOpen: isOpen), next.mayBeRoot(place.route) {
      var work = [(id: root, place: place)]
      var rootStays = true
      while let (id, place) = work.popLast() {
        guard let children = settle(id, as: place, through: graphs, isOpen: isOpen, into: &pending)
        else {
          // Only a container missing a tab that cannot start (a closed one) gets here: it goes,
          // with its subtree. A tab cannot go alone, its container's tabs would be incomplete,
          // so that case restarts the tree: coarse, but only guards on nested tabs reach it.
          if id == root || coordinators.presentation(of: id) == .tab {
            rootStays = false
            break
          }
          stop(id, reason: .migrated, into: &pending)
          continue
        }
        work += children
      }
      if rootStays, fitsLimit(adding: 0, removing: 0) { return .migrated }
    }
    self = unsettled
    pending = unsettledPending
    graph = next
    try restart(through: graphs, into: &pending)
    return .restarted
  }

  /// Gives the live coordinator `id` its place in the new version (not yet given, so that a stop
  /// of it still names its old route), stops the children that cannot stay, starts missing tabs.
  /// Returns the children that stay, to be settled next; nil, changing nothing, when `id` itself
  /// cannot stay because one of its route's tabs is missing and closed.
  private mutating func settle(
    _ id: CoordinatorID, as place: MigrationPlace, through graphs: [RouteGraph],
    isOpen: (Route) -> Bool, into pending: inout PendingEvents
  ) -> [(id: CoordinatorID, place: MigrationPlace)]? {
    guard let node = coordinators[id] else { return [] }
    let wanted = place.route.tabs ?? []
    var staying: [(id: CoordinatorID, place: MigrationPlace)] = []
    var leaving: [CoordinatorID] = []
    var tabByName: [String: CoordinatorID] = [:]
    var oldTabs: [CoordinatorID] = []
    for child in node.children {
      guard let presentation = coordinators.presentation(of: child) else { continue }
      let childPlace = self.place(child, through: graphs, isOpen: isOpen)
      if presentation == .tab {
        oldTabs.append(child)
        if let childPlace, wanted.contains(childPlace.route.name),
          tabByName[childPlace.route.name] == nil
        {
          tabByName[childPlace.route.name] = child
          staying.append((child, childPlace))
          continue
        }
      } else if let childPlace, place.route.mayShow(childPlace.route, as: presentation) {
        staying.append((child, childPlace))
        continue
      }
      leaving.append(child)
    }
    var missing: [Route] = []
    for name in wanted where tabByName[name] == nil {
      guard let route = graph.route(named: name), isOpen(route) else { return nil }
      missing.append(route)
    }

    coordinators.modify(id) { node in
      node = Coordinator(
        id: node.id, route: place.route.name, params: place.params,
        presentation: node.presentation, parent: node.parent, children: node.children,
        selectedTab: node.selectedTab)
    }
    for child in leaving { stop(child, reason: .migrated, into: &pending) }
    for route in missing {
      tabByName[route.name] = start(
        route, params: defaultParams(for: route), as: .tab, under: id, into: &pending)
    }
    let tabs = wanted.compactMap { tabByName[$0] }
    if tabs != oldTabs { arrangeTabs(of: id, as: tabs, oldTabs: oldTabs) }
    return staying
  }

  /// Puts the tab children first in their route's order, the others after in the order they
  /// came, and keeps the selected tab selected when it stayed.
  private mutating func arrangeTabs(
    of id: CoordinatorID, as tabs: [CoordinatorID], oldTabs: [CoordinatorID]
  ) {
    let selected = coordinators.selectedTab(of: id).flatMap { oldTabs[safe: $0] }
    let others = coordinators.children(of: id).filter { coordinators.presentation(of: $0) != .tab }
    coordinators.modify(id) { node in
      node.children = CoordinatorChildren(tabs + others)
      node.selectedTab = tabs.isEmpty ? nil : selected.flatMap { tabs.firstIndex(of: $0) } ?? 0
    }
  }

  /// Stops the whole tree and starts it again at the first open route that may be a root: the
  /// old root's route under its new name, or its redirect, else the graph's root or its
  /// redirect (see `restartRoute`), so that a restart never shows a screen the context closes.
  private mutating func restart(through graphs: [RouteGraph], into pending: inout PendingEvents)
    throws(NavigationError)
  {
    var oldRootRoute = graph.rootRoute
    if let root = rootID, let name = coordinators.route(of: root),
      case .shownAs(let renamed) = GraphMigration.fate(of: name, through: graphs)
    {
      oldRootRoute = renamed
    }
    if let root = rootID { stop(root, reason: .migrated, into: &pending) }
    let route =
      graph.hasGuards ? restartRoute(after: oldRootRoute) : try resolveRoute(graph.rootRoute)
    guard let params = fittedParams([:], for: route) else {
      throw NavigationError(
        .invalidParams,
        "the session's root cannot stay in version \(graph.version) of graph '\(graph.name)', and its root route '\(route.name)' needs params to start"
      )
    }
    try checkLimit(adding: route.coordinatorCost, removing: 0)
    start(route, params: params, as: .root, under: nil, into: &pending)
  }
}

/// Where a coordinator of the previous version goes in the new one: its route there and its
/// fitted params.
struct MigrationPlace {
  var route: Route
  var params: Params
}

extension NavigationState {
  /// The place of the live coordinator `id` in this state's graph (already the last of
  /// `graphs`), or nil when it cannot stay whatever its parent.
  fileprivate func place(_ id: CoordinatorID, through graphs: [RouteGraph], isOpen: (Route) -> Bool)
    -> MigrationPlace?
  {
    guard let node = coordinators[id],
      case .shownAs(let name) = GraphMigration.fate(of: node.route, through: graphs),
      let route = graph.route(named: name), isOpen(route),
      let params = fittedParams(node.params, for: route)
    else { return nil }
    return MigrationPlace(route: route, params: params)
  }
}

extension NavigationState {
  /// Carries the pending request into the new version: dropped (`cancelled`) when its redirect
  /// screen was stopped, as when the user leaves it; its routes renamed as the coordinators'
  /// are; dropped (`invalid`, `unknown_route`) when one of them was removed. Whether it still
  /// applies is judged when it is applied (see `resolvePending`).
  mutating func carryPending(through graphs: [RouteGraph], into pending: inout PendingEvents) {
    guard var request = pendingRequest else { return }
    guard coordinators.route(of: request.coordinator) != nil else {
      dropPendingIfLeft(into: &pending)
      return
    }
    func renamed(_ name: String) -> String? {
      guard case .shownAs(let next) = GraphMigration.fate(of: name, through: graphs) else {
        return nil
      }
      return next
    }
    var carried: String?
    switch request.action {
    case .start(let name, let params, let presentation, let parent):
      carried = renamed(name)
      if let carried {
        request.action = .start(
          route: carried, params: params, presentation: presentation, parent: parent)
      }
    case .path(var entries):
      carried = renamed(request.route)
      for index in entries.indices where carried != nil {
        guard let name = renamed(entries[index].route) else {
          carried = nil
          break
        }
        entries[index].route = name
      }
      request.action = .path(entries)
    }
    guard let carried else {
      pendingRequest = nil
      pending.happened(
        .pendingDropped(route: request.route, reason: .invalid, code: .unknownRoute))
      return
    }
    request.route = carried
    if request != pendingRequest { pendingRequest = request }
  }
}
