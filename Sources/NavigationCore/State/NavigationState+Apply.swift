import NavJSON

extension NavigationState {
  /// Applies `command` whole, bumping `version` once, and returns its events; or throws and
  /// changes nothing. A command that would change nothing (a `singleTop` push of what is on top,
  /// selecting the selected tab, tearing down a stopped coordinator) returns no events and keeps
  /// the version.
  public mutating func apply(_ command: Command) throws(NavigationError) -> [NavigationEvent] {
    if case .discarding = command {
      return try apply(Self.unwrapDiscard(command).0, discard: true)
    }
    return try apply(command, discard: false)
  }

  private mutating func apply(_ command: Command, discard: Bool) throws(NavigationError)
    -> [NavigationEvent]
  {
    guard !isEnded else { throw NavigationError(.sessionEnded, "the session has ended") }
    var pending = PendingEvents()
    if case .batch(let ops) = command {
      // A batch runs on a copy so that a refusal halfway leaves the live state as it was.
      var scratch = self
      for (index, op) in ops.enumerated() {
        do throws(NavigationError) {
          if case .discarding = op {
            let inner = Self.unwrapDiscard(op).0
            if case .batch = inner {
              throw NavigationError(.invalidRequest, "a batch may not contain a batch")
            }
            try scratch.perform(inner, discard: true, into: &pending)
          } else {
            if case .batch = op {
              throw NavigationError(.invalidRequest, "a batch may not contain a batch")
            }
            try scratch.perform(op, discard: discard, into: &pending)
          }
        } catch {
          var refusal = error
          refusal.opIndex = index
          throw refusal
        }
        pending.endOperation()
      }
      self = scratch
    } else if !hasLeaveGuards {
      // Nothing can hold the operation back once it has begun changing the state.
      try perform(command, discard: true, into: &pending)
    } else {
      // A leave guard is only met while stopping, after changes: they are made on a copy.
      var scratch = self
      try scratch.perform(command, discard: discard, into: &pending)
      self = scratch
    }
    return commit(&pending)
  }

  /// The command inside any `discarding` wrappers, and whether there was one.
  static func unwrapDiscard(_ command: Command) -> (Command, discard: Bool) {
    var command = command
    var discard = false
    while case .discarding(let inner) = command {
      command = inner
      discard = true
    }
    return (command, discard)
  }

  /// The same as `apply`, as a function from one state to the next.
  public func applying(_ command: Command) throws(NavigationError) -> (
    NavigationState, [NavigationEvent]
  ) {
    var next = self
    let events = try next.apply(command)
    return (next, events)
  }

  /// Runs one command. Each operation checks everything before it changes anything.
  mutating func perform(_ command: Command, discard: Bool, into pending: inout PendingEvents)
    throws(NavigationError)
  {
    pending.leaveBlock = nil
    try perform(command, into: &pending)
    if !discard, let block = pending.leaveBlock { throw Self.leaveBlocked(block) }
    if guarding != nil { dropPendingIfLeft(into: &pending) }
  }

  private mutating func perform(_ command: Command, into pending: inout PendingEvents)
    throws(NavigationError)
  {
    switch command {
    case .push(let request, let target, let singleTop):
      try push(request, target: target, singleTop: singleTop, into: &pending)
    case .pop(let amount, let result):
      try pop(amount, result: result, into: &pending)
    case .present(let request, let style):
      try present(request, style: style, into: &pending)
    case .dismiss(let target, let result):
      try dismiss(target, result: result, into: &pending)
    case .back(let result):
      try back(result: result, into: &pending)
    case .replace(let request):
      try replace(request, into: &pending)
    case .selectTab(let selector, let container):
      try selectTab(selector, container: container, into: &pending)
    case .setPath(let entries):
      try reconcile(entries, op: .state, into: &pending)
    case .restore(let version, let entries):
      let changed = pending.isEmpty
      try reconcile(entries, op: .state, into: &pending)
      if changed, !pending.isEmpty { pending.happened(.sessionRestored(from: version)) }
    case .deepLink(let url):
      try reconcile(
        try DeepLinkParser(graph: graph).entries(for: url), op: .deeplink, url: url,
        into: &pending)
    case .teardown(let id):
      try teardown(id, into: &pending)
    case .setContext(let context):
      try setContext(context, into: &pending)
    case .setLeaveGuard(let id, let reason):
      try setLeaveGuard(id, reason: reason, into: &pending)
    case .createShare(let share):
      try createShare(share, into: &pending)
    case .revokeShare(let id, let reason):
      try revokeShare(id, reason: reason, into: &pending)
    case .discarding(let inner):
      // Reached only nested below a batch op's own wrapper, which `apply` has taken off.
      try perform(inner, into: &pending)
    case .batch:
      throw NavigationError(.invalidRequest, "a batch may not contain a batch")
    }
  }

  /// The active coordinator, from what the operation knows of it when it can (see
  /// ``PendingEvents``), else found from the root.
  func activeID(_ pending: inout PendingEvents) -> CoordinatorID? {
    if pending.activeIsKnown { return pending.knownActive }
    let id = activeID
    pending.know(active: id)
    return id
  }

  func active(_ pending: inout PendingEvents) throws(NavigationError) -> Coordinator {
    guard let id = activeID(&pending), let node = coordinators[id] else {
      throw NavigationError(.sessionEnded, "the session has ended")
    }
    return node
  }

  /// The last coordinator of the visible path below `id` (itself when nothing shows over it).
  func deepestVisible(from id: CoordinatorID) -> CoordinatorID {
    var current = id
    while let next = visibleChild(of: current) { current = next }
    return current
  }

  /// Hands `result` to the coordinator that is active now, as a screen hands a value back.
  mutating func resume(with result: JSONValue?, into pending: inout PendingEvents) {
    guard let result, result != .null, let id = activeID(&pending) else { return }
    pending.happened(.resumed(id, result: result))
  }
}
