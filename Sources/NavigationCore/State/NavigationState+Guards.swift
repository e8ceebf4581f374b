import NavJSON

/// Route guards and redirects (docs/behaviour.md section 10): which routes the context opens, what a redirect
/// starts in a closed route's place, and what a context change stops and lets through.
extension NavigationState {
  /// Where a closed route's redirect starts in its place, or nil when there is none that can:
  /// as the root when `parentRoute` is nil (the redirect must be allowed to be one), else as
  /// `keeping` (a replace keeps the place's presentation) or the redirect's own presentation,
  /// which `parentRoute` must allow. The redirect must be open itself.
  func redirectPlacement(for route: Route, parentRoute: String?, keeping: Presentation?)
    -> (route: Route, presentation: Presentation)?
  {
    guard let name = graph.routeGuard(of: route.name)?.redirect,
      let target = graph.route(named: name), graph.isOpen(name, in: context)
    else { return nil }
    guard let parentRoute else {
      return graph.mayBeRoot(target) ? (target, .root) : nil
    }
    let presentation = keeping ?? target.presentation
    guard isShowable(target, as: presentation, from: parentRoute) else { return nil }
    return (target, presentation)
  }

  /// Nil when `route` is open; else the redirect to start in its place (see
  /// `redirectPlacement`), or `requirement_not_met` when it has none that can start there.
  /// Callers check `graph.hasGuards` first, so a graph without guards never comes here.
  func redirect(for route: Route, parentRoute: String?, keeping: Presentation?)
    throws(NavigationError) -> (route: Route, presentation: Presentation)?
  {
    guard let routeGuard = graph.routeGuard(of: route.name) else { return nil }
    let missing = routeGuard.missing(in: context)
    guard !missing.isEmpty else { return nil }
    if let placement = redirectPlacement(for: route, parentRoute: parentRoute, keeping: keeping) {
      return placement
    }
    let why =
      routeGuard.redirect.map { " and its redirect '\($0)' cannot be shown there" } ?? ""
    throw NavigationError(
      .requirementNotMet,
      "route '\(route.name)' requires \(missing.joined(separator: ", ")) in the context\(why)",
      details: .requirementNotMet(route: route.name, missing: missing))
  }

  /// Starts `redirect` in a closed route's place and makes `request` the session's pending
  /// one, replacing any older one. The caller has checked the limit.
  mutating func startRedirect(
    _ redirect: Route, as presentation: Presentation, under parent: CoordinatorID?,
    for request: PendingRequest, into pending: inout PendingEvents
  ) {
    let id = start(
      redirect, params: defaultParams(for: redirect), as: presentation, under: parent,
      into: &pending)
    var request = request
    request.coordinator = id
    recordPending(request, redirect: redirect.name, into: &pending)
  }

  mutating func recordPending(
    _ request: PendingRequest, redirect: String, into pending: inout PendingEvents
  ) {
    if let older = pendingRequest {
      pending.happened(.pendingDropped(route: older.route, reason: .replaced, code: nil))
    }
    pendingRequest = request
    pending.happened(
      .navigationRedirected(
        route: request.route, redirect: redirect, coordinator: request.coordinator))
  }

  /// After every operation: a pending request whose redirect screen has gone is dropped, as
  /// the user left it (a pop, a dismiss, a teardown, a reset, a lost requirement).
  mutating func dropPendingIfLeft(into pending: inout PendingEvents) {
    guard let request = pendingRequest, coordinators.route(of: request.coordinator) == nil else {
      return
    }
    pendingRequest = nil
    pending.happened(.pendingDropped(route: request.route, reason: .cancelled, code: nil))
  }

  /// Replaces the context, then, in the same change: stops what it closed, and applies the
  /// pending request if it opened its route. The same context again changes nothing.
  mutating func setContext(_ newContext: SessionContext, into pending: inout PendingEvents)
    throws(NavigationError)
  {
    try newContext.checkSize()
    guard newContext != context else { return }
    context = newContext
    pending.happened(.contextChanged(newContext))
    guard graph.hasGuards else { return }
    loseRequirements(into: &pending)
    resolvePending(into: &pending)
  }

  /// Stops every coordinator whose route is closed now, with its subtree (reason
  /// `requirementLost`; leave guards do not hold it back: the user is out). A closed root
  /// restarts the tree at its redirect, else at the graph's root.
  mutating func loseRequirements(into pending: inout PendingEvents) {
    guard let root = rootID, let rootRoute = coordinators.route(of: root) else { return }
    if !graph.isOpen(rootRoute, in: context) {
      stop(root, reason: .requirementLost, into: &pending)
      let restart = restartRoute(after: rootRoute)
      start(restart, params: defaultParams(for: restart), as: .root, under: nil, into: &pending)
      return
    }
    // Outermost first: a closed coordinator's subtree goes with it. Tabs are never closed
    // (the graph loader refuses `requires` on them), so no container loses a single tab.
    var closed: [CoordinatorID] = []
    var stack = [root]
    while let id = stack.popLast() {
      guard let route = coordinators.route(of: id) else { continue }
      if !graph.isOpen(route, in: context) {
        closed.append(id)
        continue
      }
      stack += coordinators.children(of: id)
    }
    for id in closed { stop(id, reason: .requirementLost, into: &pending) }
  }

  /// The first open route that may be a root and starts without params of its own: along the
  /// closed root's redirects, then the graph's root and its redirects, then any route in the
  /// graph's order; the graph's root when none is.
  func restartRoute(after closedRoot: String) -> Route {
    var candidates: [String] = []
    for start in [closedRoot, graph.rootRoute] {
      var next: String? = start
      // Redirects never loop (checked at load), so each chain ends.
      while let name = next, !candidates.contains(name) {
        candidates.append(name)
        next = graph.routeGuard(of: name)?.redirect
      }
    }
    func canStart(_ route: Route) -> Bool {
      graph.mayBeRoot(route) && graph.isOpen(route.name, in: context)
        && (try? normalizedParams(.init(), for: route)) != nil
    }
    for name in candidates {
      if let route = graph.route(named: name), canStart(route) { return route }
    }
    // No chain leads to an open root: any open route that may be one, before a closed screen.
    if let route = graph.routes.first(where: canStart) { return route }
    return graph.route(named: graph.rootRoute) ?? graph.routes[0]
  }

  /// When the pending request's route is open and its redirect screen still shown: stops the
  /// redirect (reason `resolved`) and applies the request, or drops it (`invalid`, with the
  /// code it is refused with now) when it no longer applies.
  mutating func resolvePending(into pending: inout PendingEvents) {
    guard let request = pendingRequest, coordinators.route(of: request.coordinator) != nil,
      graph.isOpen(request.route, in: context)
    else { return }
    pendingRequest = nil
    // Tried on a copy with the redirect stopped: a request that no longer applies leaves the
    // redirect stopped only when it is not the root (a login the session was created at), so
    // that the session always keeps a root.
    var scratch = self
    var scratchPending = pending
    scratch.stop(request.coordinator, reason: .resolved, into: &scratchPending)
    scratchPending.leaveBlock = nil
    scratchPending.happened(.pendingApplied(route: request.route))
    do throws(NavigationError) {
      try scratch.apply(request, into: &scratchPending)
      if let block = scratchPending.leaveBlock { throw Self.leaveBlocked(block) }
      self = scratch
      pending = scratchPending
    } catch {
      if request.coordinator != rootID {
        stop(request.coordinator, reason: .resolved, into: &pending)
      }
      pending.happened(.pendingDropped(route: request.route, reason: .invalid, code: error.code))
    }
  }

  private mutating func apply(_ request: PendingRequest, into pending: inout PendingEvents)
    throws(NavigationError)
  {
    switch request.action {
    case .path(let entries):
      try reconcile(entries, op: request.op, url: request.url, into: &pending)
    case .start(let name, let raw, let presentation, let parentID):
      let route = try resolveRoute(name)
      // Checked again: the graph may have changed the route's params since it was asked for.
      guard let params = fittedParams(raw, for: route) else {
        throw NavigationError(
          .invalidParams,
          "route '\(route.name)' now requires params the pending request does not give")
      }
      guard let parentID else {
        guard rootID == nil else {
          throw NavigationError(.invalidRequest, "the session has a root again")
        }
        try checkLimit(adding: route.coordinatorCost, removing: 0)
        start(route, params: params, as: .root, under: nil, into: &pending)
        return
      }
      let parent = try coordinator(parentID)
      let occupant = presentation == .push ? pushChild(of: parent) : modalChild(of: parent)
      guard occupant == nil else {
        throw NavigationError(
          .targetNotFree, "coordinator \(parentID) already shows a \(presentation.rawValue) child")
      }
      try checkShowable(route, as: presentation, from: parent.route)
      if let (redirect, redirectPresentation) = try self.redirect(
        for: route, parentRoute: parent.route, keeping: nil)
      {
        try checkLimit(adding: redirect.coordinatorCost, removing: 0)
        startRedirect(
          redirect, as: redirectPresentation, under: parentID, for: request, into: &pending)
        return
      }
      try checkLimit(adding: route.coordinatorCost, removing: 0)
      start(route, params: params, as: presentation, under: parentID, into: &pending)
    }
  }

  static func leaveBlocked(_ block: (coordinator: CoordinatorID, reason: String))
    -> NavigationError
  {
    NavigationError(
      .leaveBlocked,
      "coordinator \(block.coordinator) has a leave guard (\(quoted(block.reason))); send discard: true to leave anyway",
      details: .leaveBlocked(coordinator: block.coordinator, reason: block.reason))
  }
}
