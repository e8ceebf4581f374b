import NavJSON
package import NavigationCore

/// A navigation event in a few dozen bytes (its JSON takes 130 or more): how a session's log
/// keeps its events. A client that catches up gets them encoded again, by the same encoder, so
/// the bytes it reads are the ones the live stream sent.
package enum CompactEvent {
  private enum Tag: UInt8 {
    case started = 1
    case stopped, resumed, tabSelected, sessionEnded, sessionMigrated
    case contextChanged, navigationRedirected, pendingApplied, pendingDropped, leaveGuardChanged
    case sessionRestored
    case shareCreated, shareRevoked
  }

  /// In code order (see `code(of:)`).
  package static let presentations: [Presentation] = [.root, .push, .sheet, .fullScreenCover, .tab]
  private static let stopReasons: [StopReason] = [
    .pop, .dismiss, .replace, .reset, .teardown, .sessionEnded, .migrated, .resolved,
    .requirementLost,
  ]
  private static let endReasons: [SessionEndReason] = [.deleted, .expired]

  package static func append(_ event: NavigationEvent, to bytes: inout [UInt8]) {
    bytes.appendVarint(UInt64(event.seq))
    bytes.appendVarint(UInt64(event.version))
    switch event.kind {
    case .started(let id, let route, let params, let presentation, let parent):
      bytes.append(Tag.started.rawValue)
      bytes.appendVarint(UInt64(id.number))
      bytes.appendBlob(route)
      bytes.appendVarint(UInt64(params.count))
      for (name, value) in params {
        bytes.appendBlob(name)
        appendParam(value, to: &bytes)
      }
      bytes.append(code(of: presentation))
      bytes.appendVarint(UInt64(parent?.number ?? 0))
    case .stopped(let id, let route, let reason):
      bytes.append(Tag.stopped.rawValue)
      bytes.appendVarint(UInt64(id.number))
      bytes.appendBlob(route)
      bytes.append(code(of: reason))
    case .resumed(let id, let result):
      bytes.append(Tag.resumed.rawValue)
      bytes.appendVarint(UInt64(id.number))
      bytes.appendJSON(result)
    case .tabSelected(let container, let tab, let route):
      bytes.append(Tag.tabSelected.rawValue)
      bytes.appendVarint(UInt64(container.number))
      bytes.appendVarint(tab)
      bytes.appendBlob(route)
    case .sessionEnded(let reason):
      bytes.append(Tag.sessionEnded.rawValue)
      bytes.append(reason == .deleted ? 0 : 1)
    case .sessionMigrated(let from, let to):
      bytes.append(Tag.sessionMigrated.rawValue)
      bytes.appendVarint(UInt64(from))
      bytes.appendVarint(UInt64(to))
    case .sessionRestored(let from):
      bytes.append(Tag.sessionRestored.rawValue)
      bytes.appendVarint(UInt64(from))
    case .contextChanged(let context):
      bytes.append(Tag.contextChanged.rawValue)
      bytes.appendJSON(context.json)
    case .navigationRedirected(let route, let redirect, let coordinator):
      bytes.append(Tag.navigationRedirected.rawValue)
      bytes.appendVarint(UInt64(coordinator.number))
      bytes.appendBlob(route)
      bytes.appendBlob(redirect)
    case .pendingApplied(let route):
      bytes.append(Tag.pendingApplied.rawValue)
      bytes.appendBlob(route)
    case .pendingDropped(let route, let reason, let code):
      bytes.append(Tag.pendingDropped.rawValue)
      bytes.appendBlob(route)
      bytes.append(UInt8(PendingDropReason.allCases.firstIndex(of: reason) ?? 0))
      // 0 for none, else 1 + the code's position among all codes.
      bytes.append(
        UInt8(code.flatMap { NavigationError.Code.allCases.firstIndex(of: $0) }.map { $0 + 1 } ?? 0)
      )
    case .leaveGuardChanged(let coordinator, let reason):
      bytes.append(Tag.leaveGuardChanged.rawValue)
      bytes.appendVarint(UInt64(coordinator.number))
      if let reason {
        bytes.append(1)
        bytes.appendBlob(reason)
      } else {
        bytes.append(0)
      }
    case .shareCreated(let id, let mode, let label):
      bytes.append(Tag.shareCreated.rawValue)
      bytes.appendBlob(id)
      bytes.append(mode == .follow ? 0 : 1)
      bytes.appendBlob(label)
    case .shareRevoked(let id, let reason):
      bytes.append(Tag.shareRevoked.rawValue)
      bytes.appendBlob(id)
      bytes.append(reason == .revoked ? 0 : 1)
    }
  }

  /// The event at the reader's offset, or nil if the bytes there are not one.
  package static func read(from reader: inout ByteReader) -> NavigationEvent? {
    guard let seq = reader.varint(), let version = reader.varint(), seq <= Int.max,
      version <= Int.max, let tag = reader.byte().flatMap(Tag.init(rawValue:))
    else { return nil }
    let kind: NavigationEvent.Kind
    switch tag {
    case .started:
      guard let id = coordinator(&reader), let route = reader.string(),
        let count = reader.count()
      else { return nil }
      var params = Params(minimumCapacity: count)
      for _ in 0..<count {
        guard let name = reader.string(), let value = readParam(&reader) else { return nil }
        params[name] = value
      }
      guard let presentation = element(of: presentations, &reader),
        let parent = reader.varint(), parent <= Int.max
      else { return nil }
      kind = .started(
        id, route: route, params: params, presentation: presentation,
        parent: parent == 0 ? nil : CoordinatorID(Int(parent)))
    case .stopped:
      guard let id = coordinator(&reader), let route = reader.string(),
        let reason = element(of: stopReasons, &reader)
      else { return nil }
      kind = .stopped(id, route: route, reason: reason)
    case .resumed:
      guard let id = coordinator(&reader), let result = reader.json() else { return nil }
      kind = .resumed(id, result: result)
    case .tabSelected:
      guard let container = coordinator(&reader), let tab = reader.signed(),
        let route = reader.string()
      else { return nil }
      kind = .tabSelected(container: container, tab: tab, route: route)
    case .sessionEnded:
      guard let reason = element(of: endReasons, &reader) else { return nil }
      kind = .sessionEnded(reason: reason)
    case .sessionMigrated:
      guard let from = reader.varint(), let to = reader.varint(), from <= Int.max, to <= Int.max
      else { return nil }
      kind = .sessionMigrated(from: Int(from), to: Int(to))
    case .sessionRestored:
      guard let from = reader.varint(), from <= Int.max else { return nil }
      kind = .sessionRestored(from: Int(from))
    case .contextChanged:
      guard let json = reader.json(), let context = try? SessionContext(json: json) else {
        return nil
      }
      kind = .contextChanged(context)
    case .navigationRedirected:
      guard let coordinator = coordinator(&reader), let route = reader.string(),
        let redirect = reader.string()
      else { return nil }
      kind = .navigationRedirected(route: route, redirect: redirect, coordinator: coordinator)
    case .pendingApplied:
      guard let route = reader.string() else { return nil }
      kind = .pendingApplied(route: route)
    case .pendingDropped:
      let codes = NavigationError.Code.allCases
      guard let route = reader.string(),
        let reason = element(of: PendingDropReason.allCases, &reader),
        let code = reader.byte(), Int(code) <= codes.count
      else { return nil }
      kind = .pendingDropped(
        route: route, reason: reason,
        code: code == 0 ? nil : codes[codes.index(codes.startIndex, offsetBy: Int(code) - 1)])
    case .leaveGuardChanged:
      guard let coordinator = coordinator(&reader), let flag = reader.byte(), flag <= 1 else {
        return nil
      }
      if flag == 0 {
        kind = .leaveGuardChanged(coordinator, reason: nil)
      } else {
        guard let reason = reader.string() else { return nil }
        kind = .leaveGuardChanged(coordinator, reason: reason)
      }
    case .shareCreated:
      guard let id = reader.string(), let mode = reader.byte(), mode <= 1,
        let label = reader.string()
      else { return nil }
      kind = .shareCreated(id: id, mode: mode == 0 ? .follow : .drive, label: label)
    case .shareRevoked:
      guard let id = reader.string(), let reason = reader.byte(), reason <= 1 else { return nil }
      kind = .shareRevoked(id: id, reason: reason == 0 ? .revoked : .expired)
    }
    return NavigationEvent(seq: Int(seq), version: Int(version), kind: kind)
  }

  // Codes by switch, not by searching the tables: this runs for every event.

  package static func code(of presentation: Presentation) -> UInt8 {
    switch presentation {
    case .root: 0
    case .push: 1
    case .sheet: 2
    case .fullScreenCover: 3
    case .tab: 4
    }
  }

  private static func code(of reason: StopReason) -> UInt8 {
    switch reason {
    case .pop: 0
    case .dismiss: 1
    case .replace: 2
    case .reset: 3
    case .teardown: 4
    case .sessionEnded: 5
    case .migrated: 6
    case .resolved: 7
    case .requirementLost: 8
    }
  }

  package static func appendParam(_ value: ParamValue, to bytes: inout [UInt8]) {
    switch value {
    case .string(let text):
      bytes.append(0)
      bytes.appendBlob(text)
    case .int(let number):
      bytes.append(1)
      bytes.appendVarint(number)
    case .number(let number):
      bytes.append(2)
      bytes.appendVarint(number.bitPattern)
    case .bool(let flag):
      bytes.append(flag ? 4 : 3)
    }
  }

  package static func readParam(_ reader: inout ByteReader) -> ParamValue? {
    switch reader.byte() {
    case 0: reader.string().map(ParamValue.string)
    case 1: reader.signed().map(ParamValue.int)
    case 2: reader.varint().map { .number(Double(bitPattern: $0)) }
    case 3: .bool(false)
    case 4: .bool(true)
    default: nil
    }
  }

  package static func coordinator(_ reader: inout ByteReader) -> CoordinatorID? {
    guard let number = reader.varint(), number >= 1, number <= Int.max else { return nil }
    return CoordinatorID(Int(number))
  }

  package static func element<T>(of table: [T], _ reader: inout ByteReader) -> T? {
    guard let index = reader.byte(), Int(index) < table.count else { return nil }
    return table[Int(index)]
  }
}
