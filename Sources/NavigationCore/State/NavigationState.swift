import NavJSON

/// One session's navigation: a tree of coordinators over a route graph.
///
/// A value: copying is cheap (the graph is shared, the tree is copy-on-write), and an operation
/// either applies whole or leaves the value untouched.
public struct NavigationState: Sendable {
  /// Set only by a migration to a newer version of the graph.
  public internal(set) var graph: RouteGraph
  public let limits: NavigationLimits
  public internal(set) var coordinators: CoordinatorTable
  public internal(set) var version: Int
  /// The highest id handed out so far; ids are never reused.
  public internal(set) var lastIssuedID: Int
  /// The sequence number of the latest event.
  public internal(set) var lastSeq: Int
  /// The context, the pending request and the leave guards, behind one reference that is nil
  /// while all three are empty: most sessions never have any, and a state is copied on every
  /// batch and path, so they cost such a session one word and no retain.
  var guarding: Guarding?
  /// Nil only once the session has ended. Stored last, so that what follows a state can use
  /// the padding after its tag byte.
  public internal(set) var rootID: CoordinatorID?

  /// Starts a session at `root` (default: the graph's root route). Its start events are
  /// version 1, seq 1...
  public static func start(
    graph: RouteGraph, root: RouteRequest? = nil, context: SessionContext = SessionContext(),
    limits: NavigationLimits = .init()
  ) throws(NavigationError) -> (NavigationState, [NavigationEvent]) {
    var state = NavigationState(
      graph: graph, limits: limits, coordinators: [:], version: 0, lastIssuedID: 0, lastSeq: 0,
      rootID: nil)
    if !context.isEmpty { state.context = context }
    let request = root ?? RouteRequest(route: graph.rootRoute)
    let route = try state.resolveRoute(request.route)
    guard graph.mayBeRoot(route) else {
      throw NavigationError(
        .notARootRoute, "route '\(route.name)' may not be a session's root (it is not marked root)")
    }
    let params = try state.normalizedParams(request.params, for: route)
    var pending = PendingEvents()
    if graph.hasGuards,
      let (redirect, _) = try state.redirect(for: route, parentRoute: nil, keeping: nil)
    {
      try state.checkLimit(adding: redirect.coordinatorCost, removing: 0)
      state.startRedirect(
        redirect, as: .root, under: nil,
        for: PendingRequest(
          op: .create, route: route.name,
          action: .start(route: route.name, params: params, presentation: .root, parent: nil)),
        into: &pending)
      // Committed first: a tuple would take the state before its events are numbered.
      let events = state.commit(&pending)
      return (state, events)
    }
    try state.checkLimit(adding: route.coordinatorCost, removing: 0)
    state.start(route, params: params, as: .root, under: nil, into: &pending)
    let events = state.commit(&pending)
    return (state, events)
  }

  public var isEnded: Bool { rootID == nil }

  public subscript(id: CoordinatorID) -> Coordinator? { coordinators[id] }

  public var liveCount: Int { coordinators.count }

  /// Whether the id was handed out in this session, live or not.
  public func wasIssued(_ id: CoordinatorID) -> Bool { id.number >= 1 && id.number <= lastIssuedID }

  /// Root, then at each step the modal child, else the push child, else the selected tab.
  public var visiblePath: [CoordinatorID] {
    guard var current = rootID else { return [] }
    var path: [CoordinatorID] = []
    // Room for the deepest path at once, rather than growing 1, 2, 4.
    path.reserveCapacity(coordinators.count)
    path.append(current)
    while let next = visibleChild(of: current) {
      path.append(next)
      current = next
    }
    return path
  }

  /// The last coordinator of the visible path.
  public var activeID: CoordinatorID? {
    guard var current = rootID else { return nil }
    while let next = visibleChild(of: current) { current = next }
    return current
  }

  /// The first modal child, else the first pushed child, else the selected tab.
  public func visibleChild(of id: CoordinatorID) -> CoordinatorID? {
    coordinators.visibleChild(of: id)
  }

  func child(of node: Coordinator, where matches: (Presentation) -> Bool) -> CoordinatorID? {
    for id in node.children {
      if let presentation = coordinators.presentation(of: id), matches(presentation) { return id }
    }
    return nil
  }

  func pushChild(of node: Coordinator) -> CoordinatorID? {
    child(of: node) { $0 == .push }
  }

  func modalChild(of node: Coordinator) -> CoordinatorID? {
    child(of: node) { $0.isModal }
  }

  func tabChildren(of node: Coordinator) -> [CoordinatorID] {
    node.children.filter { coordinators.presentation(of: $0) == .tab }
  }

  /// The active flow from its head (a root, modal or tab) down its chain of pushes to the active
  /// coordinator, which is always the flow's top.
  func activeFlow() -> [CoordinatorID] {
    guard var current = activeID else { return [] }
    var chain: [CoordinatorID] = []
    chain.reserveCapacity(coordinators.count)
    chain.append(current)
    while coordinators.presentation(of: current) == .push,
      let parent = coordinators.parent(of: current)
    {
      chain.append(parent)
      current = parent
    }
    chain.reverse()  // in place: `reversed()` would build a second array
    return chain
  }

  /// The nearest modal at or above `id`.
  func enclosingModal(of id: CoordinatorID) -> CoordinatorID? {
    var current: CoordinatorID? = id
    while let candidate = current, let presentation = coordinators.presentation(of: candidate) {
      if presentation.isModal { return candidate }
      current = coordinators.parent(of: candidate)
    }
    return nil
  }

  /// How many coordinators the subtree at `id` holds.
  func subtreeSize(_ id: CoordinatorID) -> Int {
    // A leaf (what a push or a present leaves active) needs no walk.
    if coordinators.children(of: id).isEmpty { return 1 }
    var count = 0
    var stack = [id]
    while let next = stack.popLast() {
      count += 1
      stack += coordinators.children(of: next)
    }
    return count
  }
}

extension NavigationState {
  /// Stands for the context, pending request and leave guards together: the same object while
  /// none of them changes (every change makes a new one), nil while all are empty. An encoder
  /// that keeps it can tell whether what it wrote from them still holds.
  public var guardingIdentity: AnyObject? { guarding }

  /// What the app's backend says about the user; route guards read it (docs/behaviour.md section 9).
  public internal(set) var context: SessionContext {
    get { guarding?.parts.context ?? SessionContext() }
    set { changeGuarding { $0.context = newValue } }
  }

  /// The request a redirect is holding until the context opens its route (docs/behaviour.md section 10).
  public internal(set) var pendingRequest: PendingRequest? {
    get { guarding?.parts.pendingRequest }
    set { changeGuarding { $0.pendingRequest = newValue } }
  }

  /// Live coordinators with a leave guard, by increasing id (docs/behaviour.md section 11). Kept here rather than
  /// in each ``Coordinator``: few coordinators have one, and every coordinator of every session
  /// would otherwise carry the room for it.
  public internal(set) var leaveGuards: [LeaveGuard] {
    get { guarding?.parts.leaveGuards ?? [] }
    set { changeGuarding { $0.leaveGuards = newValue } }
  }

  /// The session's shares, oldest first, expired ones included until the server revokes them
  /// (docs/shares.md).
  public internal(set) var shares: [SessionShare] {
    get { guarding?.parts.shares ?? [] }
    set { changeGuarding { $0.shares = newValue } }
  }

  /// Whether the session has any share (asked on every read: no array is touched for none).
  public var hasShares: Bool { guarding.map { !$0.parts.shares.isEmpty } ?? false }

  /// The session and version this session was forked from; nil for one that was created.
  public internal(set) var forkedFrom: ForkOrigin? {
    get { guarding?.parts.forkedFrom }
    set { changeGuarding { $0.forkedFrom = newValue } }
  }

  /// Whether any coordinator has a leave guard: checked wherever coordinators stop.
  var hasLeaveGuards: Bool { guarding.map { !$0.parts.leaveGuards.isEmpty } ?? false }

  private mutating func changeGuarding(_ change: (inout GuardingParts) -> Void) {
    var parts = guarding?.parts ?? GuardingParts()
    change(&parts)
    guarding = Guarding(parts)
  }
}

/// What few sessions hold beside their tree: context, pending request, leave guards, shares and
/// where a fork came from.
struct GuardingParts: Sendable {
  var context = SessionContext()
  var pendingRequest: PendingRequest?
  var leaveGuards: [LeaveGuard] = []
  var shares: [SessionShare] = []
  var forkedFrom: ForkOrigin?

  var isEmpty: Bool {
    context.isEmpty && pendingRequest == nil && leaveGuards.isEmpty && shares.isEmpty
      && forkedFrom == nil
  }
}

/// See ``NavigationState/guarding``. Immutable: a change makes a new one.
final class Guarding: Sendable {
  let parts: GuardingParts

  /// Nil when every part is empty.
  init?(_ parts: GuardingParts) {
    guard !parts.isEmpty else { return nil }
    self.parts = parts
  }
}

extension Array {
  subscript(safe index: Int) -> Element? {
    indices.contains(index) ? self[index] : nil
  }
}

extension NavigationState {
  /// The visible path as `PUT .../state` takes it: what a restore asks for.
  public var visiblePathEntries: [PathEntry] {
    visiblePath.compactMap { id in
      coordinators[id].map { node in
        PathEntry(
          route: node.route,
          params: JSONObject(node.params.map { JSONObject.Member(key: $0.0, value: $0.1.json) }),
          presentation: node.presentation)
      }
    }
  }
}
