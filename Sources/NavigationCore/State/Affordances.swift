/// What the server would accept now, for the active coordinator: the `allowed` member of every
/// state, from which thin clients draw their controls instead of copying the graph's rules.
public struct Affordances: Sendable, Equatable {
  /// Routes a `push` may show (with valid params).
  public var push: [String] = []
  /// Routes `present` may show as a sheet, and as a full-screen cover.
  public var sheet: [String] = []
  public var fullScreenCover: [String] = []
  /// Routes `replace` may put in the active coordinator's place.
  public var replace: [String] = []
  /// The tab routes of the nearest tab container on the visible path (`select-tab` by name).
  public var tabs: [String] = []
  /// `pop {}`: the active flow has a pushed screen.
  public var pop = false
  /// `back {}`: a pushed screen to pop or a modal to dismiss.
  public var back = false
  /// `dismiss {}`: the active coordinator is inside a modal.
  public var dismiss = false
  /// Coordinators whose presenter may be torn down (`DELETE .../coordinators/{cid}`): every live
  /// one but the root and single tabs.
  public var teardown: [CoordinatorID] = []
  /// Closed routes listed above, each with the route its redirect starts instead (docs/behaviour.md section 10).
  public var redirects: [String: String] = [:]
  /// The leave guard that holds back `pop`, `back` or `dismiss` (which are then false), if
  /// one does (docs/behaviour.md section 11).
  public var leaveGuard: LeaveGuard?

  public init() {}
}

extension NavigationState {
  /// Derived from the same predicates the operations check (`Route.allowsNext`, the declared
  /// presentations, the coordinator limit), so the two cannot disagree. The route-to-route part
  /// is worked out once per graph (``RouteGraph/successors``); what remains here depends on the
  /// tree alone.
  public var allowed: Affordances { allowed(active: activeID) }

  /// ``allowed`` for a caller that has found `activeID` already (the last of the visible path).
  public func allowed(active activeID: CoordinatorID?) -> Affordances {
    var allowed = Affordances()
    // The active coordinator's fields read in place: a copy of it costs a retain and a release
    // of each of its members.
    guard let activeID, let activeRoute = coordinators.route(of: activeID),
      let presentation = coordinators.presentation(of: activeID),
      let activeIndex = graph.index(of: activeRoute)
    else { return allowed }
    let parentID = coordinators.parent(of: activeID)
    let room = limits.maxCoordinators - coordinators.count
    let successors = graph.successors[activeIndex]
    allowed.push = successors.push.fitting(room: room)
    allowed.sheet = successors.sheet.fitting(room: room)
    allowed.fullScreenCover = successors.fullScreenCover.fitting(room: room)
    if presentation != .tab {
      // Replacing frees the active coordinator's whole subtree first.
      let replaceRoom = room + subtreeSize(activeID)
      if let parentID {
        if let parentRoute = coordinators.route(of: parentID),
          let parentIndex = graph.index(of: parentRoute),
          let choices = graph.successors[parentIndex].choices(as: presentation)
        {
          allowed.replace = choices.fitting(room: replaceRoom)
        }
      } else {
        allowed.replace = graph.rootChoices.fitting(room: replaceRoom)
      }
    }
    // One walk up from the active coordinator finds both the nearest modal and the nearest tab
    // container. The visible path runs from the root down to the active coordinator, so its
    // last tab container is the nearest one at or above it.
    var modal: CoordinatorID?
    var tabContainer: CoordinatorID?
    var current: CoordinatorID? = activeID
    while let candidate = current, modal == nil || tabContainer == nil {
      if modal == nil, coordinators.presentation(of: candidate)?.isModal == true {
        modal = candidate
      }
      if tabContainer == nil, coordinators.selectedTab(of: candidate) != nil {
        tabContainer = candidate
      }
      current = coordinators.parent(of: candidate)
    }
    if let tabContainer, let node = coordinators[tabContainer] {
      allowed.tabs = tabChildren(of: node).compactMap { coordinators[$0]?.route }
    }
    // The active flow has a pushed screen exactly when its top, the active coordinator, is one.
    allowed.pop = presentation == .push && parentID != nil
    allowed.back = presentation == .push || modal != nil
    allowed.dismiss = modal != nil
    allowed.teardown = coordinators.childIDs(notShownAs: .tab)
    if graph.hasGuards {
      allowGuarded(
        &allowed, active: activeID, route: activeRoute, presentation: presentation,
        parent: parentID, room: room)
    }
    if hasLeaveGuards {
      holdBack(&allowed, active: activeID, presentation: presentation, modal: modal)
    }
    return allowed
  }

  /// The route lists again with guards: an open route as before; a closed one only when its
  /// redirect can start in its place (named in `redirects`), with the redirect's cost.
  private func allowGuarded(
    _ allowed: inout Affordances, active: CoordinatorID, route activeRoute: String,
    presentation: Presentation, parent parentID: CoordinatorID?, room: Int
  ) {
    var redirects: [String: String] = [:]
    func fitting(
      _ choices: RouteGraph.Choices, room: Int, parentRoute: String?, keeping: Presentation?
    )
      -> [String]
    {
      var names: [String] = []
      for (name, cost) in zip(choices.names, choices.costs) {
        if graph.isOpen(name, in: context) {
          if cost <= room { names.append(name) }
        } else if let route = graph.route(named: name),
          let (redirect, _) = redirectPlacement(
            for: route, parentRoute: parentRoute, keeping: keeping),
          redirect.coordinatorCost <= room
        {
          names.append(name)
          redirects[name] = redirect.name
        }
      }
      return names
    }
    guard let activeIndex = graph.index(of: activeRoute) else { return }
    let successors = graph.successors[activeIndex]
    allowed.push = fitting(successors.push, room: room, parentRoute: activeRoute, keeping: nil)
    allowed.sheet = fitting(successors.sheet, room: room, parentRoute: activeRoute, keeping: nil)
    allowed.fullScreenCover = fitting(
      successors.fullScreenCover, room: room, parentRoute: activeRoute, keeping: nil)
    if presentation != .tab {
      let replaceRoom = room + subtreeSize(active)
      if let parentID {
        if let parentRoute = coordinators.route(of: parentID),
          let parentIndex = graph.index(of: parentRoute),
          let choices = graph.successors[parentIndex].choices(as: presentation)
        {
          allowed.replace = fitting(
            choices, room: replaceRoom, parentRoute: parentRoute, keeping: presentation)
        }
      } else {
        allowed.replace = fitting(
          graph.rootChoices, room: replaceRoom, parentRoute: nil, keeping: nil)
      }
    }
    allowed.redirects = redirects
  }

  /// Takes back what a leave guard refuses without `discard`, and names the guard.
  private func holdBack(
    _ allowed: inout Affordances, active: CoordinatorID, presentation: Presentation,
    modal: CoordinatorID?
  ) {
    // The active coordinator is a leaf: a pop, a back from a pushed screen and a replace stop
    // it alone; a dismiss, and a back from a modal flow, stop the modal's whole subtree.
    let topGuard = firstLeaveGuard(inSubtreeOf: active)
    let modalGuard = modal.flatMap(firstLeaveGuard(inSubtreeOf:))
    let backGuard = presentation == .push ? topGuard : modalGuard
    if topGuard != nil {
      allowed.pop = false
      allowed.replace = []
      allowed.redirects = allowed.redirects.filter {
        allowed.push.contains($0.key) || allowed.sheet.contains($0.key)
          || allowed.fullScreenCover.contains($0.key)
      }
    }
    if backGuard != nil { allowed.back = false }
    if modalGuard != nil { allowed.dismiss = false }
    allowed.leaveGuard = backGuard ?? modalGuard
  }
}
