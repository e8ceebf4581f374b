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
      parent = try active()
    }
    let route = try resolveRoute(request.route)
    let params = try normalizedParams(request.params, for: route)
    if singleTop, parent.route == route.name, parent.params == params { return }
    try checkShowable(route, as: .push, from: parent.route)
    try checkLimit(adding: route.coordinatorCost, removing: 0)
    start(route, params: params, as: .push, under: parent.id, into: &pending)
  }

  mutating func pop(_ amount: PopAmount, result: JSONValue?, into pending: inout PendingEvents)
    throws(NavigationError)
  {
    let flow = activeFlow()
    let pushed = flow.count - 1
    let firstPopped: Int
    switch amount {
    case .count(let count):
      guard count >= 1 else {
        throw NavigationError(.invalidRequest, "'count' must be at least 1")
      }
      guard count <= pushed else {
        throw NavigationError(
          .nothingToPop, "cannot pop \(count): the active flow has \(pushed) pushed screen(s)")
      }
      firstPopped = flow.count - count
    case .to(let id):
      guard let position = flow.firstIndex(of: id) else {
        _ = try coordinator(id)
        throw NavigationError(.notInActiveFlow, "coordinator \(id) is not in the active flow")
      }
      guard position < flow.count - 1 else {
        throw NavigationError(.nothingToPop, "coordinator \(id) is already the top of its flow")
      }
      firstPopped = position + 1
    case .toRoot:
      guard pushed > 0 else {
        throw NavigationError(.nothingToPop, "the active flow has no pushed screen")
      }
      firstPopped = 1
    }
    stop(flow[firstPopped], reason: .pop, into: &pending)
    resume(with: result, into: &pending)
  }

  mutating func replace(_ request: RouteRequest, into pending: inout PendingEvents)
    throws(NavigationError)
  {
    let top = try active()
    guard top.presentation != .tab else {
      throw NavigationError(
        .cannotReplaceTab, "the active coordinator \(top.id) is a tab; select another tab instead")
    }
    let route = try resolveRoute(request.route)
    let params = try normalizedParams(request.params, for: route)
    if let parentID = top.parent, let parent = coordinators[parentID] {
      try checkShowable(route, as: top.presentation, from: parent.route)
    } else {
      guard graph.mayBeRoot(route) else {
        throw NavigationError(.notARootRoute, "route '\(route.name)' may not be a session's root")
      }
    }
    try checkLimit(adding: route.coordinatorCost, removing: subtreeSize(top.id))
    stop(top.id, reason: .replace, into: &pending)
    start(route, params: params, as: top.presentation, under: top.parent, into: &pending)
  }
}
