import NavJSON

/// What a session's context, pending request and leave guards hold in memory, estimated from
/// their sizes without encoding anything: the memory budget counts every byte a client can make
/// the server keep (a context of 4 KiB, 200-scalar leave-guard reasons on many coordinators).
///
/// Each string counts its UTF-8 bytes plus a heap block (strings over 15 bytes live on the heap);
/// each member, guard and path entry counts its own slot.
extension NavigationState {
  /// Zero for a session with none of the three, which costs nothing to ask.
  public var guardingFootprint: Int {
    guard let guarding else { return 0 }
    let parts = guarding.parts
    var bytes = GuardingCost.block + parts.context.footprint
    for leaveGuard in parts.leaveGuards {
      bytes += GuardingCost.slot + GuardingCost.text(leaveGuard.reason)
    }
    if let request = parts.pendingRequest { bytes += request.footprint }
    // A share: its slot, id, label and digest; a fork's origin: the source's id.
    for share in parts.shares {
      bytes +=
        GuardingCost.slot + 32 + GuardingCost.block + GuardingCost.text(share.id)
        + GuardingCost.text(share.label)
    }
    if let origin = parts.forkedFrom {
      bytes += GuardingCost.slot + GuardingCost.text(origin.session)
    }
    return bytes
  }
}

enum GuardingCost {
  /// A heap block's header and the allocator's rounding.
  static let block = 48
  /// An element of an array of structs holding a string and a value.
  static let slot = 40

  static func text(_ string: String) -> Int {
    let count = string.utf8.count
    return count > 15 ? count + block : 0
  }
}

extension SessionContext {
  var footprint: Int {
    var bytes = members.isEmpty ? 0 : GuardingCost.block
    for member in members {
      bytes += GuardingCost.slot + GuardingCost.text(member.key)
      if case .string(let text) = member.value { bytes += GuardingCost.text(text) }
      if case .strings(let texts) = member.value {
        bytes += GuardingCost.block
        for text in texts { bytes += 16 + GuardingCost.text(text) }
      }
    }
    return bytes
  }
}

extension PendingRequest {
  var footprint: Int {
    var bytes =
      2 * GuardingCost.block + GuardingCost.text(route) + (url.map(GuardingCost.text) ?? 0)
    switch action {
    case .start(let name, let params, _, _):
      bytes += GuardingCost.text(name) + params.count * GuardingCost.slot + params.textBytes
    case .path(let entries):
      for entry in entries {
        bytes += GuardingCost.slot + GuardingCost.text(entry.route)
        bytes += JSONValue.object(entry.params).encoded.count
      }
    }
    return bytes
  }
}
