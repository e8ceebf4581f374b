import NavJSON
package import NavigationCore

/// Commands in the journal's binary form: the core's own `Command`, not the request that asked
/// for it, so that what is on disk does not depend on the HTTP API's schema (format 2 of the
/// journal; format 1 kept each request's JSON body and read it back through the API's decoder).
///
/// Each command is a tag byte and its fields; params and results as compact JSON values
/// (`appendJSON`), which keep a number's text; coordinator ids as their numbers, 0 for none.
package enum CommandCoding {
  private enum Tag: UInt8 {
    case push = 1
    case pop
    case present
    case dismiss
    case back
    case replace
    case selectTab
    case setPath
    case deepLink
    case teardown
    case batch
    // Issue 25 (guards).
    case setContext
    case setLeaveGuard
    case discarding
    // Issue 34 (history).
    case restore
    // Issue 37 (shares).
    case createShare
    case revokeShare
  }

  package static func append(_ command: Command, to bytes: inout [UInt8]) {
    switch command {
    case .push(let request, let target, let singleTop):
      bytes.append(Tag.push.rawValue)
      appendRoute(request, to: &bytes)
      bytes.appendVarint(UInt64(target?.number ?? 0))
      bytes.append(singleTop ? 1 : 0)
    case .pop(let amount, let result):
      bytes.append(Tag.pop.rawValue)
      switch amount {
      case .count(let count):
        bytes.append(0)
        bytes.appendVarint(UInt64(max(0, count)))
      case .to(let id):
        bytes.append(1)
        bytes.appendVarint(UInt64(id.number))
      case .toRoot:
        bytes.append(2)
      }
      appendResult(result, to: &bytes)
    case .present(let request, let style):
      bytes.append(Tag.present.rawValue)
      appendRoute(request, to: &bytes)
      bytes.append(style == .sheet ? 0 : 1)
    case .dismiss(let target, let result):
      bytes.append(Tag.dismiss.rawValue)
      switch target {
      case .current: bytes.append(0)
      case .coordinator(let id):
        bytes.append(1)
        bytes.appendVarint(UInt64(id.number))
      case .all: bytes.append(2)
      }
      appendResult(result, to: &bytes)
    case .back(let result):
      bytes.append(Tag.back.rawValue)
      appendResult(result, to: &bytes)
    case .replace(let request):
      bytes.append(Tag.replace.rawValue)
      appendRoute(request, to: &bytes)
    case .selectTab(let selector, let container):
      bytes.append(Tag.selectTab.rawValue)
      switch selector {
      case .index(let index):
        bytes.append(0)
        bytes.appendVarint(UInt64(max(0, index)))
      case .route(let route):
        bytes.append(1)
        bytes.appendBlob(route)
      }
      bytes.appendVarint(UInt64(container?.number ?? 0))
    case .setPath(let entries):
      bytes.append(Tag.setPath.rawValue)
      appendPath(entries, to: &bytes)
    case .restore(let version, let entries):
      bytes.append(Tag.restore.rawValue)
      bytes.appendVarint(UInt64(version))
      appendPath(entries, to: &bytes)
    case .deepLink(let url):
      bytes.append(Tag.deepLink.rawValue)
      bytes.appendBlob(url)
    case .teardown(let id):
      bytes.append(Tag.teardown.rawValue)
      bytes.appendVarint(UInt64(id.number))
    case .batch(let commands):
      bytes.append(Tag.batch.rawValue)
      bytes.appendVarint(UInt64(commands.count))
      for command in commands { append(command, to: &bytes) }
    case .setContext(let context):
      bytes.append(Tag.setContext.rawValue)
      bytes.appendJSON(context.json)
    case .setLeaveGuard(let id, let reason):
      bytes.append(Tag.setLeaveGuard.rawValue)
      bytes.appendVarint(UInt64(id.number))
      if let reason {
        bytes.append(1)
        bytes.appendBlob(reason)
      } else {
        bytes.append(0)
      }
    case .discarding(let command):
      bytes.append(Tag.discarding.rawValue)
      append(command, to: &bytes)
    case .createShare(let share):
      bytes.append(Tag.createShare.rawValue)
      appendShare(share, to: &bytes)
    case .revokeShare(let id, let reason):
      bytes.append(Tag.revokeShare.rawValue)
      bytes.appendBlob(id)
      bytes.append(reason == .revoked ? 0 : 1)
    }
  }

  /// A share as the journal and archives keep it: its token's digest, never the token.
  package static func appendShare(_ share: SessionShare, to bytes: inout [UInt8]) {
    bytes.appendBlob(share.id)
    bytes.append(share.mode == .follow ? 0 : 1)
    bytes.appendBlob(share.label)
    bytes.appendVarint(Int(share.createdAt))
    bytes.appendVarint(Int(share.expiresAt))
    bytes.append(contentsOf: share.credential)
  }

  package static func readShare(_ reader: inout ByteReader) -> SessionShare? {
    guard let id = reader.string(), let mode = reader.byte(), mode <= 1,
      let label = reader.string(), let createdAt = reader.signed(),
      let expiresAt = reader.signed()
    else { return nil }
    var credential: [UInt8] = []
    credential.reserveCapacity(32)
    for _ in 0..<32 {
      guard let byte = reader.byte() else { return nil }
      credential.append(byte)
    }
    return SessionShare(
      id: id, mode: mode == 0 ? .follow : .drive, label: label, createdAt: Int64(createdAt),
      expiresAt: Int64(expiresAt), credential: credential)
  }

  /// The command at the reader, or nil when the bytes are not one (`depth` bounds nesting).
  package static func read(_ reader: inout ByteReader, depth: Int = 4) -> Command? {
    guard depth > 0, let tag = reader.byte().flatMap(Tag.init(rawValue:)) else { return nil }
    switch tag {
    case .push:
      guard let request = readRoute(&reader), let target = readID(&reader),
        let singleTop = reader.byte(), singleTop <= 1
      else { return nil }
      return .push(request, target: target, singleTop: singleTop == 1)
    case .pop:
      let amount: PopAmount
      switch reader.byte() {
      case 0:
        guard let count = reader.natural() else { return nil }
        amount = .count(count)
      case 1:
        guard let id = readID(&reader), let id else { return nil }
        amount = .to(id)
      case 2: amount = .toRoot
      default: return nil
      }
      guard let result = readResult(&reader) else { return nil }
      return .pop(amount, result: result)
    case .present:
      guard let request = readRoute(&reader), let style = reader.byte(), style <= 1 else {
        return nil
      }
      return .present(request, style: style == 0 ? .sheet : .fullScreenCover)
    case .dismiss:
      let target: DismissTarget
      switch reader.byte() {
      case 0: target = .current
      case 1:
        guard let id = readID(&reader), let id else { return nil }
        target = .coordinator(id)
      case 2: target = .all
      default: return nil
      }
      guard let result = readResult(&reader) else { return nil }
      return .dismiss(target, result: result)
    case .back:
      guard let result = readResult(&reader) else { return nil }
      return .back(result: result)
    case .replace:
      return readRoute(&reader).map(Command.replace)
    case .selectTab:
      let selector: TabSelector
      switch reader.byte() {
      case 0:
        guard let index = reader.natural() else { return nil }
        selector = .index(index)
      case 1:
        guard let route = reader.string() else { return nil }
        selector = .route(route)
      default: return nil
      }
      guard let container = readID(&reader) else { return nil }
      return .selectTab(selector, container: container)
    case .setPath:
      return readPath(&reader).map(Command.setPath)
    case .restore:
      guard let version = reader.natural(), let entries = readPath(&reader) else { return nil }
      return .restore(version: version, path: entries)
    case .deepLink:
      return reader.string().map(Command.deepLink)
    case .teardown:
      guard let id = readID(&reader), let id else { return nil }
      return .teardown(id)
    case .batch:
      guard let count = reader.count() else { return nil }
      var commands: [Command] = []
      for _ in 0..<count {
        guard let command = read(&reader, depth: depth - 1) else { return nil }
        commands.append(command)
      }
      return .batch(commands)
    case .setContext:
      guard let json = reader.json(), let context = try? SessionContext(json: json) else {
        return nil
      }
      return .setContext(context)
    case .setLeaveGuard:
      guard let id = readID(&reader), let id, let flag = reader.byte(), flag <= 1 else {
        return nil
      }
      if flag == 0 { return .setLeaveGuard(id, reason: nil) }
      return reader.string().map { .setLeaveGuard(id, reason: $0) }
    case .discarding:
      return read(&reader, depth: depth - 1).map(Command.discarding)
    case .createShare:
      return readShare(&reader).map(Command.createShare)
    case .revokeShare:
      guard let id = reader.string(), let reason = reader.byte(), reason <= 1 else { return nil }
      return .revokeShare(id, reason: reason == 0 ? .revoked : .expired)
    }
  }

  private static func appendPath(_ entries: [PathEntry], to bytes: inout [UInt8]) {
    bytes.appendVarint(UInt64(entries.count))
    for entry in entries {
      bytes.appendBlob(entry.route)
      bytes.appendJSON(.object(entry.params))
      bytes.append(CompactEvent.code(of: entry.presentation))
    }
  }

  private static func readPath(_ reader: inout ByteReader) -> [PathEntry]? {
    guard let count = reader.count() else { return nil }
    var entries: [PathEntry] = []
    for _ in 0..<count {
      guard let route = reader.string(), case .object(let params)? = reader.json(),
        let presentation = CompactEvent.element(of: CompactEvent.presentations, &reader)
      else { return nil }
      entries.append(PathEntry(route: route, params: params, presentation: presentation))
    }
    return entries
  }

  private static func appendRoute(_ request: RouteRequest, to bytes: inout [UInt8]) {
    bytes.appendBlob(request.route)
    bytes.appendJSON(.object(request.params))
  }

  private static func readRoute(_ reader: inout ByteReader) -> RouteRequest? {
    guard let route = reader.string(), case .object(let params)? = reader.json() else {
      return nil
    }
    return RouteRequest(route: route, params: params)
  }

  private static func appendResult(_ result: JSONValue?, to bytes: inout [UInt8]) {
    guard let result else {
      bytes.append(0)
      return
    }
    bytes.append(1)
    bytes.appendJSON(result)
  }

  /// The result: `.some(nil)` for none, nil when the bytes are not one.
  private static func readResult(_ reader: inout ByteReader) -> JSONValue?? {
    switch reader.byte() {
    case 0: return .some(nil)
    case 1: return reader.json().map { .some($0) }
    default: return nil
    }
  }

  /// A coordinator id: `.some(nil)` for none (0), nil when the bytes are not one.
  private static func readID(_ reader: inout ByteReader) -> CoordinatorID?? {
    guard let number = reader.natural() else { return nil }
    return .some(number == 0 ? nil : CoordinatorID(number))
  }
}
