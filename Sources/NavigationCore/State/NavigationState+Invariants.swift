import NavJSON

/// The shape rules of docs/behaviour.md section 2, checked from scratch. Tests call this after every operation.
extension NavigationState {
  public func invariantViolations() -> [String] {
    var problems: [String] = []
    guard let root = rootID else {
      if !coordinators.isEmpty { problems.append("an ended session still holds coordinators") }
      return problems
    }
    guard let rootNode = coordinators[root] else { return ["the root \(root) is not live"] }
    if rootNode.parent != nil { problems.append("the root \(root) has a parent") }
    if rootNode.presentation != .root {
      problems.append("the root \(root) is not presented as root")
    }
    if let route = graph.route(named: rootNode.route), !graph.mayBeRoot(route) {
      problems.append("the root shows '\(rootNode.route)', which may not be a root")
    }

    var reached: Set<CoordinatorID> = []
    var stack = [root]
    while let id = stack.popLast() {
      guard reached.insert(id).inserted else {
        problems.append("\(id) is reachable twice")
        continue
      }
      guard let node = coordinators[id] else {
        problems.append("\(id) is listed as a child but is not live")
        continue
      }
      problems += violations(of: node)
      stack += node.children
    }
    for id in coordinators.keys where !reached.contains(id) {
      problems.append("\(id) is live but not reachable from the root")
    }
    if coordinators.count > limits.maxCoordinators {
      problems.append(
        "\(coordinators.count) coordinators exceed the limit \(limits.maxCoordinators)")
    }
    if let highest = coordinators.keys.max(), highest.number > lastIssuedID {
      problems.append("\(highest) is above the last issued id c\(lastIssuedID)")
    }
    return problems
  }

  private func violations(of node: Coordinator) -> [String] {
    var problems: [String] = []
    let id = node.id
    guard let route = graph.route(named: node.route) else {
      return ["\(id) shows unknown route '\(node.route)'"]
    }
    do {
      let normalized = try normalizedParams(
        .init(node.params.map { .init(key: $0.key, value: $0.value.json) }), for: route)
      if normalized != node.params { problems.append("\(id) has params that are not normalized") }
    } catch {
      problems.append("\(id) has invalid params: \(error.detail)")
    }
    for childID in node.children {
      guard let child = coordinators[childID] else { continue }
      if child.parent != id {
        problems.append("\(childID) is listed under \(id) but names another parent")
      }
      switch child.presentation {
      case .root:
        problems.append("\(childID) is a root below \(id)")
      case .tab:
        if route.tabs?.contains(child.route) != true {
          problems.append("tab \(childID) '\(child.route)' is not a tab of '\(route.name)'")
        }
      case .push, .sheet, .fullScreenCover:
        if !route.allowsNext(child.route) {
          problems.append("\(childID) '\(child.route)' is not allowed from '\(route.name)'")
        }
        if let childRoute = graph.route(named: child.route),
          !childRoute.presentations.contains(child.presentation)
        {
          problems.append(
            "\(childID) '\(child.route)' may not be shown as \(child.presentation.rawValue)")
        }
      }
    }
    let kinds = node.children.compactMap { coordinators[$0]?.presentation }
    if kinds.filter({ $0 == .push }).count > 1 {
      problems.append("\(id) has more than one push child")
    }
    if kinds.filter(\.isModal).count > 1 { problems.append("\(id) has more than one modal child") }
    let tabRoutes = tabChildren(of: node).compactMap { coordinators[$0]?.route }
    if let tabs = route.tabs {
      if tabRoutes != tabs { problems.append("\(id) has tabs \(tabRoutes), expected \(tabs)") }
      if node.selectedTab.map({ !tabs.indices.contains($0) }) ?? true {
        problems.append("\(id) has no valid selected tab")
      }
    } else {
      if !tabRoutes.isEmpty {
        problems.append("\(id) has tab children but '\(route.name)' has no tabs")
      }
      if node.selectedTab != nil { problems.append("\(id) has a selected tab but no tabs") }
    }
    return problems
  }
}
