extension NavigationState {
  /// A state as it was saved, for a server that restarts on its data directory: its tree, its
  /// counters and its version as they were. Refused, with every rule it breaks, unless it is a
  /// state the operations could have made (docs/behaviour.md section 2), so that damaged or
  /// foreign data never becomes a live session.
  public init(
    restoring graph: RouteGraph, limits: NavigationLimits, coordinators: [Coordinator],
    rootID: CoordinatorID?, version: Int, lastIssuedID: Int, lastSeq: Int,
    context: SessionContext = SessionContext(), pendingRequest: PendingRequest? = nil,
    leaveGuards: [LeaveGuard] = [], shares: [SessionShare] = [], forkedFrom: ForkOrigin? = nil
  ) throws(NavigationError) {
    var table: CoordinatorTable = [:]
    var previous = 0
    for coordinator in coordinators {
      guard coordinator.id.number > previous else {
        throw NavigationError(.invalidRequest, "coordinator ids are not in increasing order")
      }
      previous = coordinator.id.number
      table[coordinator.id] = coordinator
    }
    self.init(
      graph: graph, limits: limits, coordinators: table, version: version,
      lastIssuedID: lastIssuedID, lastSeq: lastSeq, rootID: rootID)
    guarding = Guarding(
      GuardingParts(
        context: context, pendingRequest: pendingRequest,
        leaveGuards: leaveGuards.sorted { $0.coordinator < $1.coordinator }, shares: shares,
        forkedFrom: forkedFrom))
    guard version >= 1, lastSeq >= 1 else {
      throw NavigationError(.invalidRequest, "version and sequence numbers start at 1")
    }
    var problems = invariantViolations()
    if let pendingRequest, self.coordinators[pendingRequest.coordinator] == nil {
      problems.append("the pending request's redirect \(pendingRequest.coordinator) is not live")
    }
    for leaveGuard in leaveGuards where self.coordinators[leaveGuard.coordinator] == nil {
      problems.append("a leave guard is on \(leaveGuard.coordinator), which is not live")
    }
    guard problems.isEmpty else {
      throw NavigationError(.invalidRequest, problems.joined(separator: "; "))
    }
  }
}
