import NavJSON

/// Push, pop and replace: the chain of pushes of a flow.
extension NavigationState {
  mutating func push(
    _ request: RouteRequest, target: CoordinatorID?, singleTop: Bool,
    into pending: inout PendingEvents
  ) throws(NavigationError) {
    let parent: Coordinator
    if let target {
      parent = try coordinator(target)
      guard pushChild(of: parent) == nil, modalChild(of: parent) == nil else {
        throw NavigationError(
          .targetNotFree, "coordinator \(target) already shows a pushed or modal child")
      }
    } else {
      parent = try active(&pending)
    }
    let route = try resolveRoute(request.route)
    let params = try normalizedParams(request.params, for: route)
    if singleTop, parent.route == route.name, parent.params == params { return }
    try checkShowable(route, as: .push, from: parent.route)
    if graph.hasGuards,
      let (redirect, presentation) = try redirect(
        for: route, parentRoute: parent.route, keeping: nil)
    {
      try checkLimit(adding: redirect.coordinatorCost, removing: 0)
      startRedirect(
        redirect, as: presentation, under: parent.id,
        for: PendingRequest(
          op: .push, route: route.name,
          action: .start(route: route.name, params: params, presentation: .push, parent: parent.id)),
        into: &pending)
      return
    }
    try checkLimit(adding: route.coordinatorCost, removing: 0)
    start(route, params: params, as: .push, under: parent.id, into: &pending)
  }

  mutating func pop(_ amount: PopAmount, result: JSONValue?, into pending: inout PendingEvents)
    throws(NavigationError)
  {
    // Walked up from the top only as far as the pop reaches: a pop of one costs the same at any
    // depth (the active flow is the active coordinator and its chain of pushes below a head).
    let top = try active(&pending).id
    var firstPopped: CoordinatorID
    switch amount {
    case .count(let count):
      guard count >= 1 else {
        throw NavigationError(.invalidRequest, "'count' must be at least 1")
      }
      var current = top
      firstPopped = top
      for _ in 0..<count {
        guard coordinators.presentation(of: current) == .push,
          let parent = coordinators.parent(of: current)
        else {
          throw NavigationError(
            .nothingToPop,
            "cannot pop \(count): the active flow has \(pushedCount(above: top)) pushed screen(s)")
        }
        firstPopped = current
        current = parent
      }
    case .to(let id):
      guard id != top else {
        if coordinators[id] == nil { _ = try coordinator(id) }
        throw NavigationError(.nothingToPop, "coordinator \(id) is already the top of its flow")
      }
      var current = top
      firstPopped = top
      while current != id {
        guard coordinators.presentation(of: current) == .push,
          let parent = coordinators.parent(of: current)
        else {
          _ = try coordinator(id)
          throw NavigationError(.notInActiveFlow, "coordinator \(id) is not in the active flow")
        }
        firstPopped = current
        current = parent
      }
    case .toRoot:
      guard coordinators.presentation(of: top) == .push else {
        throw NavigationError(.nothingToPop, "the active flow has no pushed screen")
      }
      var current = top
      firstPopped = top
      while coordinators.presentation(of: current) == .push,
        let parent = coordinators.parent(of: current)
      {
        firstPopped = current
        current = parent
      }
    }
    stop(firstPopped, reason: .pop, into: &pending)
    resume(with: result, into: &pending)
  }

  /// How many pushed screens the flow whose top is `top` holds.
  private func pushedCount(above top: CoordinatorID) -> Int {
    var count = 0
    var current = top
    while coordinators.presentation(of: current) == .push,
      let parent = coordinators.parent(of: current)
    {
      count += 1
      current = parent
    }
    return count
  }

  mutating func replace(_ request: RouteRequest, into pending: inout PendingEvents)
    throws(NavigationError)
  {
    let top = try active(&pending)
    guard top.presentation != .tab else {
      throw NavigationError(
        .cannotReplaceTab, "the active coordinator \(top.id) is a tab; select another tab instead")
    }
    let route = try resolveRoute(request.route)
    let params = try normalizedParams(request.params, for: route)
    var parentRoute: String?
    if let parentID = top.parent, let parent = coordinators[parentID] {
      try checkShowable(route, as: top.presentation, from: parent.route)
      parentRoute = parent.route
    } else {
      guard graph.mayBeRoot(route) else {
        throw NavigationError(.notARootRoute, "route '\(route.name)' may not be a session's root")
      }
    }
    // A closed route's redirect takes the replaced coordinator's place, shown as it was.
    if graph.hasGuards,
      let (redirect, presentation) = try redirect(
        for: route, parentRoute: parentRoute, keeping: top.parent == nil ? nil : top.presentation)
    {
      try checkLimit(adding: redirect.coordinatorCost, removing: subtreeSize(top.id))
      stop(top.id, reason: .replace, into: &pending)
      startRedirect(
        redirect, as: presentation, under: top.parent,
        for: PendingRequest(
          op: .replace, route: route.name,
          action: .start(
            route: route.name, params: params, presentation: top.presentation, parent: top.parent)),
        into: &pending)
      return
    }
    try checkLimit(adding: route.coordinatorCost, removing: subtreeSize(top.id))
    stop(top.id, reason: .replace, into: &pending)
    start(route, params: params, as: top.presentation, under: top.parent, into: &pending)
  }
}
