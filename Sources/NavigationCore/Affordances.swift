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
  /// Derived from the same predicates the operations check (`Route.allowsNext`, the declared
  /// presentations, the coordinator limit), so the two cannot disagree. The route-to-route part
  /// is worked out once per graph (``RouteGraph/successors``); what remains here depends on the
  /// tree alone.
  public var allowed: Affordances {
    var allowed = Affordances()
    guard let activeID, let active = coordinators[activeID],
      let activeIndex = graph.index(of: active.route)
    else { return allowed }
    let room = limits.maxCoordinators - coordinators.count
    let successors = graph.successors[activeIndex]
    allowed.push = successors.push.fitting(room: room)
    allowed.sheet = successors.sheet.fitting(room: room)
    allowed.fullScreenCover = successors.fullScreenCover.fitting(room: room)
    if active.presentation != .tab {
      // Replacing frees the active coordinator's whole subtree first.
      let replaceRoom = room + subtreeSize(activeID)
      if let parentID = active.parent {
        if let parent = coordinators[parentID], let parentIndex = graph.index(of: parent.route),
          let choices = graph.successors[parentIndex].choices(as: active.presentation)
        {
          allowed.replace = choices.fitting(room: replaceRoom)
        }
      } else {
        allowed.replace = graph.rootChoices.fitting(room: replaceRoom)
      }
    }
    // The visible path runs from the root down to the active coordinator, so its last tab
    // container is the nearest one at or above the active coordinator.
    if let container = nearestTabContainer(atOrAbove: activeID), let node = coordinators[container]
    {
      allowed.tabs = tabChildren(of: node).compactMap { coordinators[$0]?.route }
    }
    let modal = enclosingModal(of: activeID)
    // The active flow has a pushed screen exactly when its top, the active coordinator, is one.
    allowed.pop = active.presentation == .push && active.parent != nil
    allowed.back = active.presentation == .push || modal != nil
    allowed.dismiss = modal != nil
    allowed.teardown = coordinators.ids { $0.parent != nil && $0.presentation != .tab }
    return allowed
  }
}

extension NavigationState {
  /// The nearest coordinator at or above `id` that holds tabs.
  func nearestTabContainer(atOrAbove id: CoordinatorID) -> CoordinatorID? {
    var current: CoordinatorID? = id
    while let candidate = current {
      if coordinators.selectedTab(of: candidate) != nil { return candidate }
      current = coordinators.parent(of: candidate)
    }
    return nil
  }
}
