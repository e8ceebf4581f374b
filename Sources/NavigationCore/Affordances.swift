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

  public init() {}
}

extension NavigationState {
  /// Derived from the same predicates the operations check, so the two cannot disagree. Every
  /// state answer computes it once per version, so what does not depend on the route is
  /// looked up once, outside the loop over the graph's routes.
  public var allowed: Affordances {
    var allowed = Affordances()
    guard let activeID, let active = coordinators[activeID],
      let activeRoute = graph.route(named: active.route)
    else { return allowed }
    let parentRoute = active.parent.flatMap { coordinators[$0] }.flatMap {
      graph.route(named: $0.route)
    }
    let replacedSize = active.presentation == .tab ? nil : subtreeSize(activeID)
    for route in graph.routes {
      if fitsLimit(adding: route.coordinatorCost, removing: 0) {
        if isShowable(route, as: .push, from: activeRoute) { allowed.push.append(route.name) }
        if isShowable(route, as: .sheet, from: activeRoute) { allowed.sheet.append(route.name) }
        if isShowable(route, as: .fullScreenCover, from: activeRoute) {
          allowed.fullScreenCover.append(route.name)
        }
      }
      if let replacedSize,
        mayReplace(active, of: replacedSize, under: parentRoute, with: route)
      {
        allowed.replace.append(route.name)
      }
    }
    if let container = visiblePath.last(where: { coordinators[$0]?.selectedTab != nil }),
      let node = coordinators[container]
    {
      allowed.tabs = tabChildren(of: node).compactMap { coordinators[$0]?.route }
    }
    let modal = enclosingModal(of: activeID)
    allowed.pop = activeFlow().count > 1
    allowed.back = active.presentation == .push || modal != nil
    allowed.dismiss = modal != nil
    allowed.teardown = coordinators.values
      .filter { $0.parent != nil && $0.presentation != .tab }
      .map(\.id)
      .sorted { $0.number < $1.number }
    return allowed
  }

  /// The rule of `replace` (not for a tab), as a question: `active`, whose subtree holds
  /// `size` coordinators, under a parent showing `parentRoute` (nil: it is the root).
  func mayReplace(_ active: Coordinator, of size: Int, under parentRoute: Route?, with route: Route)
    -> Bool
  {
    guard fitsLimit(adding: route.coordinatorCost, removing: size) else { return false }
    guard let parentRoute else { return graph.mayBeRoot(route) }
    return isShowable(route, as: active.presentation, from: parentRoute)
  }
}
