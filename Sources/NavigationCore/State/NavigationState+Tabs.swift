/// Tab selection and teardown of a torn-down presenter.
extension NavigationState {
  mutating func selectTab(
    _ selector: TabSelector, container: CoordinatorID?, into pending: inout PendingEvents
  ) throws(NavigationError) {
    let node: Coordinator
    if let container {
      node = try coordinator(container)
      guard node.selectedTab != nil else {
        throw NavigationError(.noTabContainer, "coordinator \(container) is not a tab container")
      }
    } else {
      guard let id = visiblePath.last(where: { coordinators[$0]?.selectedTab != nil }),
        let found = coordinators[id]
      else {
        throw NavigationError(.noTabContainer, "no tab container is on the visible path")
      }
      node = found
    }
    let tabs = tabChildren(of: node)
    let index: Int
    switch selector {
    case .index(let position):
      guard tabs.indices.contains(position) else {
        throw NavigationError(
          .noSuchTab, "tab \(position) is out of range: \(node.id) has \(tabs.count) tabs")
      }
      index = position
    case .route(let name):
      guard let position = tabs.firstIndex(where: { coordinators[$0]?.route == name }) else {
        throw NavigationError(.noSuchTab, "\(node.id) has no tab \(quoted(name))")
      }
      index = position
    }
    guard node.selectedTab != index, let tabRoute = coordinators[tabs[index]]?.route else { return }
    coordinators.modify(node.id) { $0.selectedTab = index }
    pending.forgetActive()
    pending.happened(.tabSelected(container: node.id, tab: index, route: tabRoute))
  }

  /// The client's presenter for `id` went away. Idempotent: gestures race and clients retry.
  mutating func teardown(_ id: CoordinatorID, into pending: inout PendingEvents)
    throws(NavigationError)
  {
    guard wasIssued(id) else {
      throw NavigationError(
        .unknownCoordinator, "no coordinator \(id) was ever started in this session")
    }
    guard let node = coordinators[id] else { return }
    guard node.parent != nil else {
      throw NavigationError(
        .cannotTearDownRoot, "the root cannot be torn down: delete the session instead")
    }
    guard node.presentation != .tab else {
      throw NavigationError(
        .cannotTearDownTab, "a single tab cannot be torn down: tear down its container")
    }
    stop(id, reason: .teardown, into: &pending)
  }
}
