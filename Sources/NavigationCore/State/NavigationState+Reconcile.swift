/// Making the visible path equal a list the client gives (PUT state, deep links).
extension NavigationState {
  struct ResolvedEntry {
    var route: Route
    var params: Params
    var presentation: Presentation
  }

  /// Keeps the longest common prefix of the visible path (same route, params and presentation:
  /// same ids), stops the rest, starts the new entries. All stops come before all starts.
  ///
  /// A path that crosses a closed route (docs/behaviour.md section 10) keeps its open prefix, shows the closed
  /// entry's redirect in its place, and becomes the pending request, whole.
  mutating func reconcile(
    _ entries: [PathEntry], op: PendingRequest.Op, url: String? = nil,
    into pending: inout PendingEvents
  ) throws(NavigationError) {
    var resolved = try resolve(entries)
    var redirected: (position: Int, route: String, redirect: String)?
    if graph.hasGuards,
      let position = resolved.firstIndex(where: { !graph.isOpen($0.route.name, in: context) })
    {
      let closed = resolved[position].route
      let parentRoute = position == 0 ? nil : resolved[position - 1].route.name
      if let (redirect, presentation) = try redirect(
        for: closed, parentRoute: parentRoute, keeping: nil)
      {
        resolved.removeSubrange(position...)
        resolved.append(
          ResolvedEntry(
            route: redirect, params: defaultParams(for: redirect), presentation: presentation))
        redirected = (position, closed.name, redirect.name)
      }
    }
    // The limit can only be judged once the work is done, so the work is done on a copy.
    var scratch = self
    var scratchPending = pending
    scratch.reconcile(resolved, into: &scratchPending)
    // Tabs are selected and reordered in place along the way: the active coordinator is found
    // again from the root.
    scratchPending.forgetActive()
    try scratch.checkLimit(adding: 0, removing: 0)
    if let redirected, let id = scratch.visiblePath[safe: redirected.position] {
      scratch.recordPending(
        PendingRequest(
          op: op, route: redirected.route, url: url, coordinator: id, action: .path(entries)),
        redirect: redirected.redirect, into: &scratchPending)
    }
    self = scratch
    pending = scratchPending
  }

  func resolve(_ entries: [PathEntry]) throws(NavigationError) -> [ResolvedEntry] {
    guard !entries.isEmpty else { throw NavigationError(.invalidPath, "the path is empty") }
    var resolved: [ResolvedEntry] = []
    resolved.reserveCapacity(entries.count)
    for (position, entry) in entries.enumerated() {
      let route = try resolveRoute(entry.route)
      let params = try normalizedParams(entry.params, for: route)
      guard let previous = resolved.last else {
        guard entry.presentation == .root else {
          throw NavigationError(.invalidPath, "entry 0 must be presented as root")
        }
        guard graph.mayBeRoot(route) else {
          throw NavigationError(.notARootRoute, "route '\(route.name)' may not be a session's root")
        }
        resolved.append(ResolvedEntry(route: route, params: params, presentation: .root))
        continue
      }
      switch entry.presentation {
      case .root:
        throw NavigationError(.invalidPath, "entry \(position): only entry 0 may be the root")
      case .tab:
        guard previous.route.tabs?.contains(route.name) == true else {
          throw NavigationError(
            .invalidPath,
            "entry \(position): '\(route.name)' is not a tab of '\(previous.route.name)'")
        }
      case .push, .sheet, .fullScreenCover:
        try checkShowable(route, as: entry.presentation, from: previous.route.name)
      }
      resolved.append(ResolvedEntry(route: route, params: params, presentation: entry.presentation))
    }
    return resolved
  }

  private func shows(_ id: CoordinatorID, _ entry: ResolvedEntry) -> Bool {
    guard let node = coordinators[id] else { return false }
    return node.route == entry.route.name && node.params == entry.params
      && node.presentation == entry.presentation
  }

  private mutating func reconcile(_ entries: [ResolvedEntry], into pending: inout PendingEvents) {
    guard let first = entries.first else { return }
    // The tab asked for right after `position`, to start a new container with it in place.
    func tab(after position: Int) -> (route: String, params: Params)? {
      guard position + 1 < entries.count, entries[position + 1].presentation == .tab else {
        return nil
      }
      return (entries[position + 1].route.name, entries[position + 1].params)
    }
    var cursor: CoordinatorID
    if let root = rootID, shows(root, first) {
      cursor = root
    } else {
      if let root = rootID { stop(root, reason: .reset, into: &pending) }
      cursor = start(
        first.route, params: first.params, as: .root, under: nil, tab: tab(after: 0),
        into: &pending)
    }
    for (position, entry) in entries.enumerated().dropFirst() {
      guard let node = coordinators[cursor] else { return }
      if entry.presentation == .tab {
        let tabs = tabChildren(of: node)
        guard let index = tabs.firstIndex(where: { coordinators[$0]?.route == entry.route.name })
        else { return }
        // A pushed or modal child of the container hides its tabs.
        clearPushAndModal(of: cursor, into: &pending)
        var tab = tabs[index]
        if coordinators[tab]?.params != entry.params {
          // Asked for with other params than it has: the tab starts afresh with them, in its
          // place among its container's tabs.
          stop(tab, reason: .reset, into: &pending)
          tab = start(entry.route, params: entry.params, as: .tab, under: cursor, into: &pending)
          coordinators.modify(cursor) { $0.children.removeAll { $0 == tab } }
          coordinators[cursor]?.children.insert(tab, at: index)
        }
        if node.selectedTab != index {
          coordinators.modify(cursor) { $0.selectedTab = index }
          pending.happened(.tabSelected(container: cursor, tab: index, route: entry.route.name))
        }
        cursor = tab
        continue
      }
      if let visible = visibleChild(of: cursor), coordinators[visible]?.presentation != .tab {
        if shows(visible, entry) {
          cursor = visible
          continue
        }
        stop(visible, reason: .reset, into: &pending)
      }
      // Free the slot the new entry takes: a coordinator has one push and one modal child.
      if let current = coordinators[cursor] {
        let occupant =
          entry.presentation == .push ? pushChild(of: current) : modalChild(of: current)
        if let occupant { stop(occupant, reason: .reset, into: &pending) }
      }
      cursor = start(
        entry.route, params: entry.params, as: entry.presentation, under: cursor,
        tab: tab(after: position), into: &pending)
    }
    // Nothing may show past the last entry; a tab container at the end shows its selected tab.
    while true {
      clearPushAndModal(of: cursor, into: &pending)
      guard let node = coordinators[cursor], let selected = node.selectedTab,
        let tab = tabChildren(of: node)[safe: selected]
      else { break }
      cursor = tab
    }
  }

  private mutating func clearPushAndModal(of id: CoordinatorID, into pending: inout PendingEvents) {
    guard let node = coordinators[id] else { return }
    if let modal = modalChild(of: node) { stop(modal, reason: .reset, into: &pending) }
    if let push = pushChild(of: node) { stop(push, reason: .reset, into: &pending) }
  }
}
