import NavJSON
import NavStateEngine
import NavigationCore

/// A session's context, pending request and leave guards (docs/behaviour.md sections 9 to 11) in its archive:
/// after its idempotency keys, and only when it has any of them, so that archives without them
/// read as before.
extension SessionArchive {
  static func appendGuarding(_ state: NavigationState, to bytes: inout [UInt8]) {
    bytes.appendJSON(state.context.json)
    if let pending = state.pendingRequest {
      bytes.append(1)
      bytes.appendBlob(pending.op.rawValue)
      bytes.appendBlob(pending.route)
      if let url = pending.url {
        bytes.append(1)
        bytes.appendBlob(url)
      } else {
        bytes.append(0)
      }
      bytes.appendVarint(UInt64(pending.coordinator.number))
      switch pending.action {
      case .start(let route, let params, let presentation, let parent):
        bytes.append(0)
        bytes.appendBlob(route)
        bytes.appendVarint(UInt64(params.count))
        for (name, value) in params {
          bytes.appendBlob(name)
          CompactEvent.appendParam(value, to: &bytes)
        }
        bytes.append(CompactEvent.code(of: presentation))
        bytes.appendVarint(UInt64(parent?.number ?? 0))
      case .path(let entries):
        bytes.append(1)
        CommandCoding.append(.setPath(entries), to: &bytes)
      }
    } else {
      bytes.append(0)
    }
    bytes.appendVarint(UInt64(state.leaveGuards.count))
    for leaveGuard in state.leaveGuards {
      bytes.appendVarint(UInt64(leaveGuard.coordinator.number))
      bytes.appendBlob(leaveGuard.reason)
    }
  }

  struct Guarding {
    var context = SessionContext()
    var pending: PendingRequest?
    var leaveGuards: [LeaveGuard] = []
  }

  static func readGuarding(_ reader: inout ByteReader) throws(Damage) -> Guarding {
    func need<T>(_ value: T?, _ what: String) throws(Damage) -> T {
      guard let value else { throw Damage(reason: "cannot read its \(what)") }
      return value
    }
    var guarding = Guarding()
    do {
      guarding.context = try SessionContext(json: try need(reader.json(), "context"))
    } catch let error as Damage {
      throw error
    } catch {
      throw Damage(reason: "its context is not one: \(error)")
    }
    if try need(reader.byte(), "pending request") == 1 {
      let op = try need(
        reader.string().flatMap(PendingRequest.Op.init(rawValue:)), "pending request")
      let route = try need(reader.string(), "pending request")
      let url =
        try need(reader.byte(), "pending request") == 1
        ? try need(reader.string(), "pending request") : nil
      let coordinator = try need(CompactEvent.coordinator(&reader), "pending request")
      let action: PendingRequest.Action
      switch try need(reader.byte(), "pending request") {
      case 0:
        let target = try need(reader.string(), "pending request")
        let count = try need(reader.count(), "pending request")
        var params = Params(minimumCapacity: count)
        for _ in 0..<count {
          let name = try need(reader.string(), "pending request")
          params[name] = try need(CompactEvent.readParam(&reader), "pending request")
        }
        let presentation = try need(
          CompactEvent.element(of: CompactEvent.presentations, &reader), "pending request")
        let parent = try need(reader.natural(), "pending request")
        action = .start(
          route: target, params: params, presentation: presentation,
          parent: parent == 0 ? nil : CoordinatorID(parent))
      default:
        guard case .setPath(let entries) = try need(CommandCoding.read(&reader), "pending path")
        else { throw Damage(reason: "its pending request holds no path") }
        action = .path(entries)
      }
      guarding.pending = PendingRequest(
        op: op, route: route, url: url, coordinator: coordinator, action: action)
    }
    let count = try need(reader.count(), "leave guards")
    for _ in 0..<count {
      let id = try need(CompactEvent.coordinator(&reader), "leave guard")
      let reason = try need(reader.string(), "leave guard")
      guarding.leaveGuards.append(LeaveGuard(coordinator: id, reason: reason))
    }
    return guarding
  }
}
