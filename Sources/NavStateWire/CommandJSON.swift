public import NavJSON
public import NavigationCore

/// A command as a batch element (`{"op": "push", "route": ..., ...}`), every default filled in:
/// what ``CommandDecoder/batchOp(_:)`` reads back as the same command. History entries and
/// recordings show operations this way. The context and leave-guard commands, which are no
/// batch element, are `{"op": "context"}` and `{"op": "leaveGuard", "coordinator", "reason"}`;
/// shares are `{"op": "share", "share", "mode", "label"}` and `{"op": "revokeShare", "share",
/// "reason"}` (never their tokens).
public enum CommandJSON {
  /// Writes `command`; `redact` says which of a route's params to show as `"[redacted]"`.
  public static func writeOp(
    _ command: Command, redact: (_ route: String, _ param: String) -> Bool = { _, _ in false },
    into writer: inout JSONWriter
  ) {
    writer.beginObject()
    writeMembers(command, discard: false, redact: redact, into: &writer)
    writer.endObject()
  }

  private static func writeMembers(
    _ command: Command, discard: Bool, redact: (String, String) -> Bool,
    into writer: inout JSONWriter
  ) {
    func op(_ name: String) {
      writer.key("op")
      writer.string(name)
    }
    func route(_ request: RouteRequest) {
      writer.key("route")
      writer.string(request.route)
      writer.key("params")
      writeParams(request.params, route: request.route, redact: redact, into: &writer)
    }
    func result(_ value: JSONValue?) {
      guard let value else { return }
      writer.key("result")
      writer.value(value)
    }
    switch command {
    case .push(let request, let target, let singleTop):
      op("push")
      route(request)
      if let target {
        writer.key("target")
        writer.string(target.description)
      }
      writer.key("singleTop")
      writer.bool(singleTop)
    case .pop(let amount, let value):
      op("pop")
      switch amount {
      case .count(let count):
        writer.key("count")
        writer.int(count)
      case .to(let id):
        writer.key("to")
        writer.string(id.description)
      case .toRoot:
        writer.key("toRoot")
        writer.bool(true)
      }
      result(value)
    case .present(let request, let style):
      op("present")
      route(request)
      writer.key("style")
      writer.string(style.rawValue)
    case .dismiss(let target, let value):
      op("dismiss")
      switch target {
      case .current: break
      case .coordinator(let id):
        writer.key("coordinator")
        writer.string(id.description)
      case .all:
        writer.key("all")
        writer.bool(true)
      }
      result(value)
    case .back(let value):
      op("back")
      result(value)
    case .replace(let request):
      op("replace")
      route(request)
    case .selectTab(let selector, let container):
      op("selectTab")
      writer.key("tab")
      switch selector {
      case .index(let index): writer.int(index)
      case .route(let name): writer.string(name)
      }
      if let container {
        writer.key("container")
        writer.string(container.description)
      }
    case .setPath(let entries):
      op("state")
      writer.key("path")
      writer.beginArray()
      for entry in entries {
        writer.beginObject()
        writer.key("route")
        writer.string(entry.route)
        writer.key("params")
        writeParams(entry.params, route: entry.route, redact: redact, into: &writer)
        writer.key("presentation")
        writer.string(entry.presentation.rawValue)
        writer.endObject()
      }
      writer.endArray()
    case .restore(let version, _):
      op("restore")
      writer.key("version")
      writer.int(version)
    case .deepLink(let url):
      op("deeplink")
      writer.key("url")
      writer.string(url)
    case .teardown(let id):
      op("teardown")
      writer.key("coordinator")
      writer.string(id.description)
    case .batch(let commands):
      op("batch")
      writer.key("ops")
      writer.beginArray()
      for element in commands {
        writer.beginObject()
        writeMembers(element, discard: false, redact: redact, into: &writer)
        writer.endObject()
      }
      writer.endArray()
    case .setContext:
      op("context")
    case .setLeaveGuard(let id, let reason):
      op("leaveGuard")
      writer.key("coordinator")
      writer.string(id.description)
      writer.key("reason")
      if let reason { writer.string(reason) } else { writer.null() }
    case .createShare(let share):
      op("share")
      writer.key("share")
      writer.string(share.id)
      writer.key("mode")
      writer.string(share.mode.rawValue)
      writer.key("label")
      writer.string(share.label)
    case .revokeShare(let id, let reason):
      op("revokeShare")
      writer.key("share")
      writer.string(id)
      writer.key("reason")
      writer.string(reason.rawValue)
    case .discarding(let inner):
      writeMembers(inner, discard: true, redact: redact, into: &writer)
      return
    }
    if discard {
      writer.key("discard")
      writer.bool(true)
    }
  }

  private static func writeParams(
    _ params: JSONObject, route: String, redact: (String, String) -> Bool,
    into writer: inout JSONWriter
  ) {
    writer.beginObject()
    for member in params.members {
      writer.key(named: member.key)
      if redact(route, member.key) {
        writer.string("[redacted]")
      } else {
        writer.value(member.value)
      }
    }
    writer.endObject()
  }
}
