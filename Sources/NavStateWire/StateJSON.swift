public import NavJSON
public import NavigationCore

/// The session times the API shows beside the navigation state.
public struct SessionTimes: Sendable {
  public var createdAt: Timestamp
  public var updatedAt: Timestamp
  public var expiresAt: Timestamp

  public init(createdAt: Timestamp, updatedAt: Timestamp, expiresAt: Timestamp) {
    self.createdAt = createdAt
    self.updatedAt = updatedAt
    self.expiresAt = expiresAt
  }
}

/// The JSON shapes of docs/behaviour.md section 6.5, written straight into a `JSONWriter`.
public enum StateJSON {
  /// `{id, graph, version, createdAt, updatedAt, expiresAt, shares, active, root, path, context,
  /// forkedFrom?, pending?, allowed}`
  /// `shares` defaults to the state's own shares, as its owner sees them, with no watcher.
  public static func writeState(
    _ state: NavigationState, id: String, times: SessionTimes, shares: SharesView? = nil,
    into writer: inout JSONWriter
  ) {
    writeState(
      head: encodeHead(id: id, state: state, times: times), expiresAt: times.expiresAt,
      shares: shares
        ?? (state.hasShares
          ? SharesView(shares: state.shares, now: Timestamp.now().milliseconds) : nil),
      tail: encodeTail(of: state).bytes, into: &writer)
  }

  /// The state with its head and tail already encoded (see ``encodeHead(id:state:times:)`` and
  /// ``encodeTail(of:)``): only `expiresAt`, which every read moves, is written here.
  package static func writeState(
    head: [UInt8], expiresAt: Timestamp, shares: SharesView?, tail: [UInt8],
    into writer: inout JSONWriter
  ) {
    writer.beginObject()
    writer.members(head)
    writer.key("expiresAt")
    expiresAt.withRFC3339 { writer.plainString($0) }
    // Beside `expiresAt`, outside the encoding kept per version: `watching` moves without one.
    // Nil: the session has none (most), written without touching an array.
    if let shares {
      ShareJSON.writeSharesMember(shares, into: &writer)
    } else {
      writer.key("shares")
      writer.beginArray()
      writer.endArray()
    }
    writer.members(tail)
    writer.endObject()
  }

  /// `"id":…,"graph":…,"version":…,"createdAt":…,"updatedAt":…`: the members before
  /// `expiresAt`, which change only with the version.
  package static func encodeHead(id: String, state: NavigationState, times: SessionTimes) -> [UInt8]
  {
    encodeHead(
      fixed: encodeFixedHead(
        id: id, graph: state.graph.name, graphVersion: state.graphVersion,
        createdAt: times.createdAt),
      version: state.version, updatedAt: times.updatedAt)
  }

  /// What a session's head changes only with a migration: `"id":…,"graph":…,"graphVersion":…`
  /// and the text of `createdAt`.
  package struct FixedHead {
    package var idAndGraph: [UInt8]
    package var createdAt: [UInt8]

    package var footprint: Int { idAndGraph.capacity + createdAt.capacity }
  }

  package static func encodeFixedHead(
    id: String, graph: String, graphVersion: Int, createdAt: Timestamp
  ) -> FixedHead {
    var writer = JSONWriter(capacity: 64 + id.utf8.count + graph.utf8.count)
    writer.key("id")
    writer.string(id)
    writer.key("graph")
    writer.string(graph)
    writer.key("graphVersion")
    writer.int(graphVersion)
    let idAndGraph = writer.bytes
    return FixedHead(idAndGraph: idAndGraph, createdAt: createdAt.withRFC3339 { Array($0) })
  }

  /// The head from its fixed parts and what a version changes.
  package static func encodeHead(fixed: FixedHead, version: Int, updatedAt: Timestamp) -> [UInt8] {
    // Members only, no braces: the writer places the commas between them all the same. Sized to
    // fit, so that the writer never grows.
    var writer = JSONWriter(
      capacity: fixed.idAndGraph.count + fixed.createdAt.count + 100)
    writer.members(fixed.idAndGraph)
    writer.key("version")
    writer.int(version)
    writer.key("createdAt")
    fixed.createdAt.withUnsafeBufferPointer { writer.plainString($0) }
    writer.key("updatedAt")
    updatedAt.withRFC3339 { writer.plainString($0) }
    return writer.bytes
  }

  /// `"active":…,"root":…,"path":…,"allowed":…`: the members that depend on the version alone,
  /// so that a session encodes them once per version (the times change on every read).
  ///
  /// The identities of coordinators that `earlier` holds are copied from it (see
  /// ``EncodedTail``), and the path's from the tree just written, so that only coordinators new
  /// since `earlier` are encoded.
  package static func encodeTail(of state: NavigationState, reusing earlier: EncodedTail? = nil)
    -> EncodedTail
  {
    let earlierBytes = earlier?.bytes ?? []
    let earlierIdentities = earlier?.identities ?? []
    // Members only, no braces (see encodeHead).
    var writer = JSONWriter(capacity: Swift.max(1024, earlierBytes.count + 256))
    var identities: [EncodedTail.Span] = []
    identities.reserveCapacity(state.coordinators.count)
    // The active coordinator is the last of the visible path; found once for all three uses.
    let path = state.visiblePath
    writer.key("active")
    if let active = path.last { writeID(active, into: &writer) } else { writer.null() }
    writer.key("root")
    if let root = state.rootID {
      earlierBytes.withUnsafeBufferPointer { earlierBytes in
        earlierIdentities.withUnsafeBufferPointer { earlierIdentities in
          writeTree(
            root, of: state, copying: (earlierBytes, earlierIdentities), recording: &identities,
            into: &writer)
        }
      }
    } else {
      writer.null()
    }
    // In tree order, which is id order unless a coordinator started under an older sibling.
    identities.sort { $0.id < $1.id }
    writer.key("path")
    writer.beginArray()
    identities.withUnsafeBufferPointer { identities in
      for id in path {
        writer.beginObject()
        if let span = EncodedTail.span(of: id, in: identities) {
          writer.repeatMembers(at: span.start, count: span.count)
        } else if let node = state[id] {
          writeIdentity(node, into: &writer)
        }
        writeLeaveGuard(of: id, in: state, into: &writer)
        writer.endObject()
      }
    }
    writer.endArray()
    writer.key("context")
    writeContext(state.context, into: &writer)
    if let origin = state.forkedFrom {
      writer.key("forkedFrom")
      writer.beginObject()
      writer.key("session")
      writer.string(origin.session)
      writer.key("version")
      writer.int(origin.version)
      writer.endObject()
    }
    if let pending = state.pendingRequest {
      writer.key("pending")
      writePending(pending, into: &writer)
    }
    writer.key("allowed")
    writeAffordances(state.allowed(active: path.last), into: &writer)
    // Kept with the session until the next version: `bytes` is exactly the size written.
    return EncodedTail(bytes: writer.bytes, identities: identities)
  }

  /// `{push, sheet, fullScreenCover, replace, tabs, pop, back, dismiss, teardown}`
  package static func writeAffordances(_ allowed: Affordances, into writer: inout JSONWriter) {
    func writeRoutes(_ name: StaticString, _ routes: [String]) {
      writer.key(name)
      writer.beginArray()
      // Route names are validated when a graph loads: letters, digits and `_`.
      for route in routes { writer.plainString(route) }
      writer.endArray()
    }
    writer.beginObject()
    writeRoutes("push", allowed.push)
    writeRoutes("sheet", allowed.sheet)
    writeRoutes("fullScreenCover", allowed.fullScreenCover)
    writeRoutes("replace", allowed.replace)
    writeRoutes("tabs", allowed.tabs)
    writer.key("pop")
    writer.bool(allowed.pop)
    writer.key("back")
    writer.bool(allowed.back)
    writer.key("dismiss")
    writer.bool(allowed.dismiss)
    writer.key("teardown")
    writer.beginArray()
    for id in allowed.teardown { writeID(id, into: &writer) }
    writer.endArray()
    if !allowed.redirects.isEmpty {
      writer.key("redirects")
      writer.beginObject()
      for route in allowed.redirects.keys.sorted() {
        writer.key(plain: route)
        writer.plainString(allowed.redirects[route] ?? "")
      }
      writer.endObject()
    }
    if let leaveGuard = allowed.leaveGuard {
      writer.key("leaveGuard")
      writer.beginObject()
      writer.key("coordinator")
      writeID(leaveGuard.coordinator, into: &writer)
      writer.key("reason")
      writer.string(leaveGuard.reason)
      writer.endObject()
    }
    writer.endObject()
  }

  /// `"leaveGuard":{"reason":…}` after a coordinator's identity, when it has one. Not part of
  /// the identity, which the next version's encoding copies: a guard comes and goes on a
  /// coordinator that stays.
  private static func writeLeaveGuard(
    of id: CoordinatorID, in state: NavigationState, into writer: inout JSONWriter
  ) {
    guard let reason = state.leaveGuard(of: id) else { return }
    writer.key("leaveGuard")
    writer.beginObject()
    writer.key("reason")
    writer.string(reason)
    writer.endObject()
  }

  /// The context as the backend set it: keys in order, so equal contexts encode equally.
  package static func writeContext(_ context: SessionContext, into writer: inout JSONWriter) {
    guard !context.isEmpty else {
      writer.beginObject()
      writer.endObject()
      return
    }
    writer.value(context.json)
  }

  /// `{op, route, url?, coordinator}`
  private static func writePending(_ pending: PendingRequest, into writer: inout JSONWriter) {
    writer.beginObject()
    writer.key("op")
    writer.plainString(pending.op.rawValue)
    writer.key("route")
    writer.plainString(pending.route)
    if let url = pending.url {
      writer.key("url")
      writer.string(url)
    }
    writer.key("coordinator")
    writeID(pending.coordinator, into: &writer)
    writer.endObject()
  }

  /// `"c12"`, without building the string.
  package static func writeID(_ id: CoordinatorID, into writer: inout JSONWriter) {
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 21) { buffer in
      var remaining = id.number
      var start = 21
      repeat {
        start -= 1
        buffer[start] = UInt8(ascii: "0") + UInt8(remaining % 10)
        remaining /= 10
      } while remaining > 0 && start > 1
      start -= 1
      buffer[start] = UInt8(ascii: "c")
      writer.plainString(UnsafeBufferPointer(rebasing: buffer[start...]))
    }
  }

  private static func writeIdentity(_ node: Coordinator, into writer: inout JSONWriter) {
    writer.key("id")
    writeID(node.id, into: &writer)
    writer.key("route")
    writer.plainString(node.route)
    writer.key("params")
    writeParams(node.params, into: &writer)
    writer.key("presentation")
    writer.plainString(node.presentation.jsonName)
  }

  /// The nested tree; iterative so that depth costs no stack. Each identity is copied from
  /// `earlier` when it holds it, and where it lies is recorded in `identities`.
  private static func writeTree(
    _ root: CoordinatorID, of state: NavigationState,
    copying earlier: (
      bytes: UnsafeBufferPointer<UInt8>, identities: UnsafeBufferPointer<EncodedTail.Span>
    ),
    recording identities: inout [EncodedTail.Span], into writer: inout JSONWriter
  ) {
    enum Step {
      case open(CoordinatorID)
      case close
    }
    var steps: [Step] = [.open(root)]
    // Each coordinator opens and closes once.
    steps.reserveCapacity(2 * state.coordinators.count)
    while let step = steps.popLast() {
      switch step {
      case .close:
        writer.endArray()
        writer.endObject()
      case .open(let id):
        let copied = EncodedTail.span(of: id, in: earlier.identities)
        let node = copied == nil ? state[id] : nil
        guard copied != nil || node != nil else { continue }
        writer.beginObject()
        let start = writer.byteCount
        if let copied {
          writer.members(
            UnsafeBufferPointer(rebasing: earlier.bytes[copied.start..<copied.start + copied.count])
          )
        } else if let node {
          writeIdentity(node, into: &writer)
        }
        identities.append(
          EncodedTail.Span(id: id.number, start: start, count: writer.byteCount - start))
        writeLeaveGuard(of: id, in: state, into: &writer)
        if let selected = state.coordinators.selectedTab(of: id) {
          writer.key("selectedTab")
          writer.int(selected)
        }
        writer.key("children")
        writer.beginArray()
        steps.append(.close)
        for child in state.coordinators.children(of: id).reversed() { steps.append(.open(child)) }
      }
    }
  }

  /// Params in name order, so equal params always encode to equal bytes.
  public static func writeParams(_ params: Params, into writer: inout JSONWriter) {
    writer.beginObject()
    // In name order, as `Params` keeps them.
    for (name, value) in params {
      // Param names are validated when a graph loads: letters, digits and `_`.
      writer.key(plain: name)
      switch value {
      case .string(let text): writer.string(text)
      case .int(let number): writer.int(number)
      case .number(let number): writer.double(number)
      case .bool(let flag): writer.bool(flag)
      }
    }
    writer.endObject()
  }

  /// `{seq, version, type, coordinator?, ...}`
  public static func writeEvent(_ event: NavigationEvent, into writer: inout JSONWriter) {
    writer.beginObject()
    writer.key("seq")
    writer.int(event.seq)
    writer.key("version")
    writer.int(event.version)
    writer.key("type")
    writer.plainString(event.kind.staticTypeName)
    switch event.kind {
    case .started(let id, let route, let params, let presentation, let parent):
      writer.key("coordinator")
      writeID(id, into: &writer)
      writer.key("route")
      writer.plainString(route)
      writer.key("params")
      writeParams(params, into: &writer)
      writer.key("presentation")
      writer.plainString(presentation.jsonName)
      writer.key("parent")
      if let parent { writeID(parent, into: &writer) } else { writer.null() }
    case .stopped(let id, let route, let reason):
      writer.key("coordinator")
      writeID(id, into: &writer)
      writer.key("route")
      writer.plainString(route)
      writer.key("reason")
      writer.plainString(reason.jsonName)
    case .resumed(let id, let result):
      writer.key("coordinator")
      writeID(id, into: &writer)
      writer.key("result")
      writer.value(result)
    case .tabSelected(let container, let tab, let route):
      writer.key("coordinator")
      writeID(container, into: &writer)
      writer.key("tab")
      writer.int(tab)
      writer.key("route")
      writer.plainString(route)
    case .sessionEnded(let reason):
      writer.key("reason")
      writer.plainString(reason.jsonName)
    case .sessionMigrated(let from, let to):
      writer.key("from")
      writer.int(from)
      writer.key("to")
      writer.int(to)
    case .sessionRestored(let from):
      writer.key("from")
      writer.int(from)
    // Issue 25 (guards), written as docs/behaviour.md sections 9 to 11 name their fields.
    case .contextChanged(let context):
      writer.key("context")
      writer.value(context.json)
    case .navigationRedirected(let route, let redirect, let coordinator):
      writer.key("coordinator")
      writeID(coordinator, into: &writer)
      writer.key("route")
      writer.string(route)
      writer.key("redirect")
      writer.string(redirect)
    case .pendingApplied(let route):
      writer.key("route")
      writer.string(route)
    case .pendingDropped(let route, let reason, let code):
      writer.key("route")
      writer.string(route)
      writer.key("reason")
      writer.string(reason.rawValue)
      if let code {
        writer.key("code")
        writer.string(code.rawValue)
      }
    case .leaveGuardChanged(let coordinator, let reason):
      writer.key("coordinator")
      writeID(coordinator, into: &writer)
      writer.key("reason")
      if let reason { writer.string(reason) } else { writer.null() }
    case .shareCreated(let id, let mode, let label):
      writer.key("share")
      writer.string(id)
      writer.key("mode")
      writer.string(mode.rawValue)
      writer.key("label")
      writer.string(label)
    case .shareRevoked(let id, let reason):
      writer.key("share")
      writer.string(id)
      writer.key("reason")
      writer.string(reason.rawValue)
    }
    writer.endObject()
  }

  public static func encodeEvent(_ event: NavigationEvent) -> [UInt8] {
    var writer = JSONWriter(capacity: 256)
    writeEvent(event, into: &writer)
    // Kept in the session's log: its exact size, not the writer's.
    return writer.bytes
  }
}
