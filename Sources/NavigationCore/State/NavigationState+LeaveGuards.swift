/// Leave guards (docs/behaviour.md section 11): a coordinator with unsaved changes holds back the user's own
/// navigation away from it until a request says `discard`.
extension NavigationState {
  /// The reason of `id`'s leave guard, or nil when it has none.
  public func leaveGuard(of id: CoordinatorID) -> String? {
    guard let guards = guarding?.parts.leaveGuards else { return nil }
    return guards.first { $0.coordinator == id }?.reason
  }

  mutating func setLeaveGuard(
    _ id: CoordinatorID, reason: String?, into pending: inout PendingEvents
  ) throws(NavigationError) {
    _ = try coordinator(id)
    if let reason {
      guard !reason.isEmpty, reason.unicodeScalars.count <= LeaveGuard.maxReasonLength else {
        throw NavigationError(
          .invalidRequest,
          "a leave guard's reason takes 1 to \(LeaveGuard.maxReasonLength) Unicode scalars")
      }
    }
    guard leaveGuard(of: id) != reason else { return }
    leaveGuards.removeAll { $0.coordinator == id }
    if let reason {
      let position = leaveGuards.firstIndex { $0.coordinator > id } ?? leaveGuards.endIndex
      leaveGuards.insert(LeaveGuard(coordinator: id, reason: reason), at: position)
    }
    pending.happened(.leaveGuardChanged(id, reason: reason))
  }

  /// Called by `stop` for every coordinator it frees, when some coordinator has a guard: the
  /// guard goes with its coordinator, and the first one a guarded kind of stop meets is what
  /// refuses the operation (unless it says `discard`).
  mutating func releaseLeaveGuard(
    of id: CoordinatorID, stoppedFor reason: StopReason, into pending: inout PendingEvents
  ) {
    guard let position = leaveGuards.firstIndex(where: { $0.coordinator == id }) else { return }
    if reason.isBlockedByLeaveGuard, pending.leaveBlock == nil {
      pending.leaveBlock = (id, leaveGuards[position].reason)
    }
    leaveGuards.remove(at: position)
  }

  /// The guard that stopping `id` with its subtree would meet first, in the order `stop`
  /// frees coordinators (the deepest first), or nil. For `allowed`, which must agree with it.
  func firstLeaveGuard(inSubtreeOf id: CoordinatorID) -> LeaveGuard? {
    guard !leaveGuards.isEmpty else { return nil }
    var stack: [(id: CoordinatorID, childrenDone: Bool)] = [(id, false)]
    while let (current, childrenDone) = stack.popLast() {
      if childrenDone {
        if let reason = leaveGuard(of: current) {
          return LeaveGuard(coordinator: current, reason: reason)
        }
      } else {
        stack.append((current, true))
        for child in coordinators.children(of: current) { stack.append((child, false)) }
      }
    }
    return nil
  }
}
