/// The one place coordinators join and leave the tree.
extension NavigationState {
  /// Starts `route` under `parent`; a tab container starts its tabs too, the first one selected.
  @discardableResult
  /// - Parameter tab: a tab of `route` (a container) to start with these params instead of its
  ///   defaults, so that a path asking for it does not start it twice in one operation.
  mutating func start(
    _ route: Route, params: Params, as presentation: Presentation, under parent: CoordinatorID?,
    tab: (route: String, params: Params)? = nil, into pending: inout PendingEvents
  ) -> CoordinatorID {
    lastIssuedID += 1
    let id = CoordinatorID(lastIssuedID)
    coordinators[id] = Coordinator(
      id: id, route: route.name, params: params, presentation: presentation, parent: parent,
      children: [], selectedTab: route.tabs == nil ? nil : 0)
    if let parent {
      coordinators.modify(parent) { $0.children.append(id) }
    } else {
      rootID = id
    }
    pending.happened(
      .started(id, route: route.name, params: params, presentation: presentation, parent: parent))
    // Shown on the active coordinator (or as the new root), it is what is active now, or its
    // selected tab is; anywhere else, the active coordinator is found again when needed.
    let showsOverActive =
      presentation == .root
      || (presentation != .tab && pending.activeIsKnown && pending.knownActive == parent)
    for tabName in route.tabs ?? [] {
      guard let tabRoute = graph.route(named: tabName) else { continue }
      let tabParams = tab?.route == tabName ? tab?.params : nil
      start(
        tabRoute, params: tabParams ?? defaultParams(for: tabRoute), as: .tab, under: id,
        into: &pending)
    }
    if showsOverActive {
      pending.know(active: deepestVisible(from: id))
    } else if presentation != .tab {
      pending.forgetActive()
    }
    return id
  }

  /// Stops `id` and everything under it, the deepest first, and frees it from its parent.
  /// Every removal, whatever its cause, comes through here.
  mutating func stop(_ id: CoordinatorID, reason: StopReason, into pending: inout PendingEvents) {
    // Fields read in place: a copy of a coordinator retains each of its members.
    guard let route = coordinators.route(of: id) else { return }
    let parentID = coordinators.parent(of: id)
    if let parentID {
      coordinators.modify(parentID) { $0.children.removeAll { $0 == id } }
    }
    if rootID == id { rootID = nil }
    // Stopping the active coordinator (a pop, a dismiss) makes the deepest visible one under
    // its parent active; stopping anything else may change the visible path in ways only a
    // walk from the root tells.
    if pending.activeIsKnown, pending.knownActive == id {
      pending.know(active: parentID.map(deepestVisible(from:)))
    } else {
      pending.forgetActive()
    }
    let children = coordinators.children(of: id)
    if children.isEmpty {
      // A leaf, as a pop or a dismiss mostly stops: no walk.
      coordinators[id] = nil
      if hasLeaveGuards { releaseLeaveGuard(of: id, stoppedFor: reason, into: &pending) }
      pending.stopped(.stopped(id, route: route, reason: reason))
      return
    }
    // Post-order without recursion: a deep tree cannot exhaust the stack.
    var stack: [(id: CoordinatorID, childrenDone: Bool)] = [(id, false)]
    while let (current, childrenDone) = stack.popLast() {
      guard let route = coordinators.route(of: current) else { continue }
      if childrenDone {
        coordinators[current] = nil
        if hasLeaveGuards {
          releaseLeaveGuard(of: current, stoppedFor: reason, into: &pending)
        }
        pending.stopped(.stopped(current, route: route, reason: reason))
      } else {
        stack.append((current, true))
        for child in coordinators.children(of: current) { stack.append((child, false)) }
      }
    }
  }

  /// Closes the operation: one version bump and numbered events, or nothing when nothing happened.
  mutating func commit(_ pending: inout PendingEvents) -> [NavigationEvent] {
    pending.endOperation()
    guard !pending.ordered.isEmpty else { return [] }
    version += 1
    var events: [NavigationEvent] = []
    events.reserveCapacity(pending.ordered.count)
    for kind in pending.ordered {
      lastSeq += 1
      events.append(NavigationEvent(seq: lastSeq, version: version, kind: kind))
    }
    return events
  }

  func fitsLimit(adding: Int, removing: Int) -> Bool {
    coordinators.count - removing + adding <= limits.maxCoordinators
  }

  func checkLimit(adding: Int, removing: Int) throws(NavigationError) {
    let total = coordinators.count - removing + adding
    guard fitsLimit(adding: adding, removing: removing) else {
      throw NavigationError(
        .coordinatorLimit,
        "this would make \(total) coordinators; a session may hold \(limits.maxCoordinators)")
    }
  }

  /// Ends the session: every coordinator stops (reason `sessionEnded`), then `session.ended`.
  public mutating func end(reason: SessionEndReason) -> [NavigationEvent] {
    guard let root = rootID else { return [] }
    var pending = PendingEvents()
    stop(root, reason: .sessionEnded, into: &pending)
    // Nothing is left to redirect back to.
    if guarding != nil { pendingRequest = nil }
    pending.happened(.sessionEnded(reason: reason))
    return commit(&pending)
  }
}
