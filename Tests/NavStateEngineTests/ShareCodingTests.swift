import NavJSON
import NavStateWire
import NavigationCore
import Testing

@testable import NavStateEngine

/// Shares in the engine's binary forms: the journal's commands, the event log's events and the
/// history's fork entry read back exactly, and refuse damage.
@Suite struct ShareCodingTests {
  private static let share = SessionShare(
    id: "b7Fq2xKc", mode: .drive, label: "iPad 😀", createdAt: 1_795_000_000_123,
    expiresAt: 1_797_592_000_123, credential: (0..<32).map { UInt8(255 - $0 * 3) })

  @Test("a share command reads back with every field, and its token digest byte for byte")
  func shareCommands() {
    for command: Command in [
      .createShare(Self.share), .revokeShare("b7Fq2xKc", reason: .revoked),
      .revokeShare("b7Fq2xKc", reason: .expired),
    ] {
      var bytes: [UInt8] = []
      CommandCoding.append(command, to: &bytes)
      var reader = ByteReader(bytes)
      let read = CommandCoding.read(&reader)
      #expect(read == command)
      #expect(reader.isAtEnd)
      if case .createShare(let share) = read {
        #expect(share.credential == Self.share.credential)
        #expect(share.createdAt == 1_795_000_000_123)
        #expect(share.expiresAt == 1_797_592_000_123)
      }
    }
    // The two reasons are told apart.
    var revoked: [UInt8] = []
    var expired: [UInt8] = []
    CommandCoding.append(.revokeShare("a", reason: .revoked), to: &revoked)
    CommandCoding.append(.revokeShare("a", reason: .expired), to: &expired)
    #expect(revoked != expired)
  }

  @Test("a share's mode or reason byte out of range is no command")
  func outOfRange() {
    var bytes: [UInt8] = []
    CommandCoding.append(.revokeShare("a", reason: .expired), to: &bytes)
    #expect(bytes.last == 1)
    bytes[bytes.count - 1] = 2
    var reader = ByteReader(bytes)
    #expect(CommandCoding.read(&reader) == nil)
    var share: [UInt8] = []
    CommandCoding.appendShare(Self.share, to: &share)
    // id "b7Fq2xKc": its length, its 8 bytes, then the mode.
    #expect(share[9] == 1)
    share[9] = 2
    var shareReader = ByteReader(share)
    #expect(CommandCoding.readShare(&shareReader) == nil)
  }

  @Test(
    "share events read back as they were and encode the same JSON",
    arguments: [
      NavigationEvent.Kind.shareCreated(id: "b7Fq2xKc", mode: .follow, label: "Support: Ana"),
      .shareCreated(id: "x", mode: .drive, label: "é \"☃\" 😀"),
      .shareRevoked(id: "b7Fq2xKc", reason: .revoked),
      .shareRevoked(id: "b7Fq2xKc", reason: .expired),
    ])
  func events(kind: NavigationEvent.Kind) throws {
    let event = NavigationEvent(seq: 70_000, version: 300, kind: kind)
    var bytes: [UInt8] = []
    CompactEvent.append(event, to: &bytes)
    var reader = ByteReader(bytes)
    let read = CompactEvent.read(from: &reader)
    #expect(read == event)
    #expect(reader.isAtEnd)
    #expect(read.map(StateJSON.encodeEvent) == StateJSON.encodeEvent(event))
    for length in 0..<bytes.count {
      var cut = ByteReader(Array(bytes.prefix(length)))
      #expect(CompactEvent.read(from: &cut) == nil, "cut at \(length) of \(bytes.count)")
    }
    // Its last byte is the mode (after the label) or the reason: out of range, no event.
    if case .shareRevoked = kind {
      var damaged = bytes
      damaged[damaged.count - 1] = 9
      var damagedReader = ByteReader(damaged)
      #expect(CompactEvent.read(from: &damagedReader) == nil)
    }
  }

  @Test("share events as JSON: the share, then its mode and label or the reason")
  func eventJSON() {
    let created = StateJSON.encodeEvent(
      NavigationEvent(
        seq: 4, version: 3, kind: .shareCreated(id: "b7", mode: .follow, label: "Ana \"A\"")))
    #expect(
      String(decoding: created, as: UTF8.self)
        == #"{"seq":4,"version":3,"type":"share.created","share":"b7","mode":"follow","label":"Ana \"A\""}"#
    )
    let revoked = StateJSON.encodeEvent(
      NavigationEvent(seq: 5, version: 4, kind: .shareRevoked(id: "b7", reason: .expired)))
    #expect(
      String(decoding: revoked, as: UTF8.self)
        == #"{"seq":5,"version":4,"type":"share.revoked","share":"b7","reason":"expired"}"#)
  }

  @Test("a fork entry reads back as written, among others")
  func forkEntry() {
    let entries: [SessionHistory.Entry] = [
      .init(
        version: 1, at: Timestamp(milliseconds: 1_795_000_000_123), by: .backend,
        change: .fork(session: "0f3c2a9e-5b7d-4c1e-8a6f-1234567890ab", version: 4_000)),
      .init(
        version: 2, at: Timestamp(milliseconds: 1_795_000_000_200), by: .client,
        change: .command(.createShare(Self.share))),
      .init(
        version: 3, at: Timestamp(milliseconds: 1_795_000_000_300), by: .server,
        change: .command(.revokeShare("b7Fq2xKc", reason: .expired))),
    ]
    var bytes: [UInt8] = []
    for entry in entries { SessionHistory.append(entry, to: &bytes) }
    var reader = ByteReader(bytes)
    var read: [SessionHistory.Entry] = []
    while let entry = SessionHistory.read(&reader) { read.append(entry) }
    #expect(read == entries)
    #expect(reader.isAtEnd)
    var single: [UInt8] = []
    SessionHistory.append(entries[0], to: &single)
    for length in 0..<single.count {
      var cut = ByteReader(Array(single.prefix(length)))
      #expect(SessionHistory.read(&cut) == nil, "cut at \(length)")
    }
  }

  /// A fork's state: home, detail 7 on the demo graph, from session "src" at version 5.
  private static func forked() throws -> NavigationState {
    let graph = try BuiltInGraphs.load()[0]
    return try NavigationState.fork(
      graph: graph,
      path: [
        PathEntry(route: "master", presentation: .root),
        PathEntry(route: "detail", params: ["id": 7], presentation: .push),
      ],
      context: ["k": .string("v")], origin: ForkOrigin(session: "src", version: 5)
    ).0
  }

  @Test("a fork's history starts at its version 1 with the fork, its state kept as its base")
  func forkHistory() throws {
    let state = try Self.forked()
    let at = Timestamp(milliseconds: 1_795_000_000_123)
    let history = SessionHistory(
      forkedAt: state, from: ForkOrigin(session: "src", version: 5), at: at, by: .backend)
    #expect(history.oldestStored == 1)
    #expect(history.newest == 1)
    #expect(history.newestAuthor == .backend)
    let expected = SessionHistory.Entry(
      version: 1, at: at, by: .backend, change: .fork(session: "src", version: 5))
    #expect(history.entries(after: 0, count: 10, limit: 100) == [expected])
    #expect(history.base?.version == 1)
    #expect(history.base?.visiblePathEntries == state.visiblePathEntries)
    #expect(history.base?.forkedFrom == ForkOrigin(session: "src", version: 5))

    // Read back from its bytes with its base (as a store keeps it); not without.
    let restored = try #require(SessionHistory(restoring: history.bytes, base: history.base))
    #expect(restored.entries(after: 0, count: 10, limit: 100) == [expected])
    #expect(restored.base?.visiblePathEntries == state.visiblePathEntries)
    #expect(SessionHistory(restoring: history.bytes, base: nil) == nil)
  }

  @Test("versions after a fork replay from its kept state")
  func forkReplays() throws {
    var state = try Self.forked()
    var history = SessionHistory(
      forkedAt: state, from: ForkOrigin(session: "src", version: 5),
      at: Timestamp(milliseconds: 1_000), by: .client)
    var paths: [Int: [PathEntry]] = [1: state.visiblePathEntries]
    for (number, command) in [
      Command.push(RouteRequest(route: "detail", params: ["id": 8])), .pop(), .pop(),
    ].enumerated() {
      _ = try state.apply(command)
      paths[state.version] = state.visiblePathEntries
      history.append(
        .init(
          version: state.version, at: Timestamp(milliseconds: 2_000 + Int64(number)), by: .client,
          change: .command(command)), state: state, limit: 100)
    }
    #expect(state.version == 4)
    for version in 1...4 {
      let replayed = history.state(
        at: version, graphs: { _, _ in nil }, graphPath: { _, _, _ in [] },
        limits: NavigationLimits(), graphName: state.graph.name, limit: 100)
      #expect(replayed?.version == version)
      #expect(replayed?.visiblePathEntries == paths[version], "version \(version)")
      #expect(replayed?.forkedFrom == ForkOrigin(session: "src", version: 5))
    }
    // The fork entry is no change to replay onto another state.
    var other = state
    #expect(
      !SessionHistory.replay(
        .fork(session: "src", version: 5), on: &other, graphPath: { _, _, _ in [] }))
  }
}
