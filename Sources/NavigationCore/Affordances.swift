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
    return allowed
  }
}
