import NavJSON

/// Present, dismiss and back: modals over flows.
extension NavigationState {
  mutating func present(
    _ request: RouteRequest, style: ModalStyle, into pending: inout PendingEvents
  )
    throws(NavigationError)
  {
    let parent = try active(&pending)
    let route = try resolveRoute(request.route)
    let params = try normalizedParams(request.params, for: route)
    try checkShowable(route, as: style.presentation, from: parent.route)
    if graph.hasGuards,
      let (redirect, presentation) = try redirect(
        for: route, parentRoute: parent.route, keeping: nil)
    {
      try checkLimit(adding: redirect.coordinatorCost, removing: 0)
      startRedirect(
        redirect, as: presentation, under: parent.id,
        for: PendingRequest(
          op: .present, route: route.name,
          action: .start(
            route: route.name, params: params, presentation: style.presentation,
            parent: parent.id)),
        into: &pending)
      return
    }
    try checkLimit(adding: route.coordinatorCost, removing: 0)
    start(route, params: params, as: style.presentation, under: parent.id, into: &pending)
  }

  mutating func dismiss(
    _ target: DismissTarget, result: JSONValue?, into pending: inout PendingEvents
  ) throws(NavigationError) {
    switch target {
    case .current:
      guard let modal = enclosingModal(of: try active(&pending).id) else {
        throw NavigationError(.nothingToDismiss, "no modal is shown")
      }
      stop(modal, reason: .dismiss, into: &pending)
    case .coordinator(let id):
      let node = try coordinator(id)
      guard node.presentation.isModal else {
        throw NavigationError(
          .notAModal, "coordinator \(id) is shown as \(node.presentation.rawValue), not as a modal")
      }
      stop(id, reason: .dismiss, into: &pending)
    case .all:
      let modals = outermostModals()
      guard !modals.isEmpty else { throw NavigationError(.nothingToDismiss, "no modal is shown") }
      for modal in modals.reversed() { stop(modal, reason: .dismiss, into: &pending) }
    }
    resume(with: result, into: &pending)
  }

  mutating func back(result: JSONValue?, into pending: inout PendingEvents) throws(NavigationError)
  {
    let top = try active(&pending)
    if top.presentation == .push {
      stop(top.id, reason: .pop, into: &pending)
    } else if let modal = enclosingModal(of: top.id) {
      stop(modal, reason: .dismiss, into: &pending)
    } else {
      throw NavigationError(
        .nothingToGoBackTo, "the active flow has no pushed screen and no modal is shown")
    }
    resume(with: result, into: &pending)
  }

  /// Modals that no other modal encloses, in tree order.
  func outermostModals() -> [CoordinatorID] {
    guard let root = rootID else { return [] }
    var found: [CoordinatorID] = []
    var stack = [root]
    while let id = stack.popLast() {
      guard let node = coordinators[id] else { continue }
      if node.presentation.isModal {
        found.append(id)
      } else {
        stack += node.children.reversed()
      }
    }
    return found
  }
}
