import NavStateWire
import NavigationCore
import Synchronization
import Testing

@testable import NavStateEngine

/// What `POST .../shares` may ask for: a label of 1 to 64 Unicode scalars and a lifetime within
/// the mode's bounds, its default when none is given.
@Suite struct ShareRequestTests {
  private static func refusal(
    _ mode: ShareMode = .follow, label: String = "Support: Ana", ttl: Int? = nil
  ) -> NavigationError? {
    do {
      let request = try ShareRequest(mode: mode, label: label, ttlSeconds: ttl, wantsCode: false)
      Issue.record("accepted \(request)")
      return nil
    } catch {
      return error
    }
  }

  @Test("a label is 1 to 64 Unicode scalars, whatever their bytes")
  func labels() throws {
    for label in [
      "A", String(repeating: "x", count: 64), String(repeating: "😀", count: 64),
      String(repeating: "é", count: 64), "Support: Ana",
    ] {
      let request = try ShareRequest(mode: .drive, label: label, ttlSeconds: nil, wantsCode: true)
      #expect(request.label == label)
      #expect(request.wantsCode)
    }
    for label in [
      "", String(repeating: "x", count: 65), String(repeating: "😀", count: 65),
      // 33 characters, but 66 scalars (e and a combining acute accent).
      String(repeating: "e\u{301}", count: 33),
    ] {
      let error = Self.refusal(label: label)
      #expect(error?.code == .invalidRequest, "\(label.unicodeScalars.count) scalars")
      #expect(error?.detail.contains("label") == true)
    }
    // 32 such characters are 64 scalars: accepted.
    let combining = String(repeating: "e\u{301}", count: 32)
    #expect(combining.count == 32 && combining.unicodeScalars.count == 64)
    #expect(
      try ShareRequest(mode: .follow, label: combining, ttlSeconds: nil, wantsCode: false).label
        == combining)
  }

  @Test("without ttlSeconds a follow share lasts 900 s and a drive share 86 400 s")
  func defaults() throws {
    let follow = try ShareRequest(mode: .follow, label: "a", ttlSeconds: nil, wantsCode: false)
    #expect(follow.ttlSeconds == 900)
    #expect(follow.mode == .follow)
    #expect(!follow.wantsCode)
    let drive = try ShareRequest(mode: .drive, label: "a", ttlSeconds: nil, wantsCode: false)
    #expect(drive.ttlSeconds == 86_400)
    #expect(drive.mode == .drive)
  }

  @Test(
    "ttlSeconds is 1 to 3 600 for follow and 1 to 2 592 000 for drive",
    arguments: [(ShareMode.follow, 3_600), (.drive, 2_592_000)])
  func bounds(mode: ShareMode, most: Int) throws {
    for ttl in [1, 60, most] {
      #expect(
        try ShareRequest(mode: mode, label: "a", ttlSeconds: ttl, wantsCode: false).ttlSeconds
          == ttl)
    }
    for ttl in [0, -1, most + 1, Int.max, Int.min] {
      let error = Self.refusal(mode, ttl: ttl)
      #expect(error?.code == .invalidRequest, "\(mode) \(ttl)")
      #expect(error?.detail.contains("ttlSeconds") == true)
    }
  }

  @Test("a follow share's longest life is refused for no drive share and is no follow default")
  func modesDiffer() throws {
    #expect(Self.refusal(.follow, ttl: 86_400)?.code == .invalidRequest)
    #expect(
      try ShareRequest(mode: .drive, label: "a", ttlSeconds: 86_400, wantsCode: false).ttlSeconds
        == 86_400)
  }
}

/// Presence messages: at most one a second per session, only after a change, and nothing held
/// for a session that went quiet.
@Suite struct PresenceBoardTests {
  private static let t0: Int64 = 1_795_000_000_000

  private func records(_ count: Int) throws -> [SessionRecord] {
    let store = SessionStore(
      graphs: try BuiltInGraphs.load(), defaultGraph: "demo", configuration: StoreConfiguration())
    return try (0..<count).map { _ in
      try store.createSession(graph: nil, root: nil, client: "test").record
    }
  }

  private func keys(_ records: [SessionRecord]) -> Set<SessionID> { Set(records.map(\.key)) }

  @Test("a change is due at once the first time; nothing is due without one")
  func first() throws {
    let board = PresenceBoard()
    let sessions = try records(2)
    #expect(board.takeDue(now: Self.t0).isEmpty)
    board.changed(sessions[0])
    let due = board.takeDue(now: Self.t0)
    #expect(due.count == 1)
    #expect(due.first?.record === sessions[0])
    #expect(due.first?.forced == false)
    // Told: nothing more is owed.
    #expect(board.takeDue(now: Self.t0).isEmpty)
    #expect(board.takeDue(now: Self.t0 + 5_000).isEmpty)
  }

  @Test("changes within the second after a message go out once, a second after it")
  func atMostOnceASecond() throws {
    let board = PresenceBoard()
    let session = try records(1)[0]
    board.changed(session)
    #expect(board.takeDue(now: Self.t0).count == 1)
    board.changed(session)
    board.changed(session)
    #expect(board.takeDue(now: Self.t0 + 1).isEmpty)
    board.changed(session)
    #expect(board.takeDue(now: Self.t0 + 999).isEmpty)
    let due = board.takeDue(now: Self.t0 + 1_000)
    #expect(due.count == 1, "three changes, one message")
    #expect(due.first?.record === session)
    #expect(board.takeDue(now: Self.t0 + 1_000).isEmpty)
    // And the next change waits a second from that message.
    board.changed(session)
    #expect(board.takeDue(now: Self.t0 + 1_999).isEmpty)
    #expect(board.takeDue(now: Self.t0 + 2_000).count == 1)
  }

  @Test("each session has its own second")
  func perSession() throws {
    let board = PresenceBoard()
    let sessions = try records(3)
    board.changed(sessions[0])
    #expect(keys(board.takeDue(now: Self.t0).map(\.record)) == [sessions[0].key])
    board.changed(sessions[0])
    board.changed(sessions[1])
    board.changed(sessions[2])
    #expect(
      keys(board.takeDue(now: Self.t0 + 500).map(\.record)) == [sessions[1].key, sessions[2].key])
    #expect(keys(board.takeDue(now: Self.t0 + 1_000).map(\.record)) == [sessions[0].key])
  }

  @Test("a session told and quiet is forgotten: the board keeps no record of it")
  func forgotten() throws {
    let board = PresenceBoard()
    weak var released: SessionRecord?
    do {
      // A record of its own, outside any store, so that the board would be its last holder.
      let record = SessionRecord(
        key: SessionID(high: 5, low: 6), token: SecureRandom.token(),
        createdAt: Timestamp(milliseconds: Self.t0), client: "test",
        data: try records(1)[0].data.withLock { $0 })
      released = record
      board.changed(record)
      board.changed(record)
    }
    // Owed a message: held until it is sent.
    #expect(released != nil)
    #expect(board.takeDue(now: Self.t0).count == 1)
    #expect(released == nil, "told, the board holds the record no longer")
  }

  @Test("an entry quiet for a second goes; one told less than a second ago stays")
  func quietEntriesGo() throws {
    let board = PresenceBoard()
    let session = try records(1)[0]
    board.changed(session)
    #expect(board.takeDue(now: Self.t0).count == 1)
    // Less than a second later the entry stays, holding the time of the message.
    #expect(board.takeDue(now: Self.t0 + 500).isEmpty)
    board.changed(session)
    #expect(board.takeDue(now: Self.t0 + 600).isEmpty)
    #expect(board.takeDue(now: Self.t0 + 1_000).count == 1)
    // A second after that message, owed nothing, the entry goes. What tells a forgotten entry
    // from one kept: a `now` before the second is over (a clock set back) finds no time of a
    // last message to wait for.
    #expect(board.takeDue(now: Self.t0 + 2_000).isEmpty)
    board.changed(session)
    #expect(board.takeDue(now: Self.t0 + 1_500).count == 1)
  }
}

/// Shares through the store, where the rules need the time.
@Suite struct ShareStoreTests {
  @Test("a caller revoking a share that expired, before the server did, is share_not_found")
  func revokeExpired() throws {
    let store = SessionStore(
      graphs: try BuiltInGraphs.load(), defaultGraph: "demo", configuration: StoreConfiguration())
    let record = try store.createSession(graph: nil, root: nil, client: "test").record
    // Made 10 s ago for 1 s: expired 9 s ago; no share duty ran since.
    let issued = try store.createShare(
      ShareRequest(mode: .follow, label: "Support", ttlSeconds: 1, wantsCode: false), on: record,
      by: .sessionHolder, precondition: nil,
      now: Timestamp(milliseconds: Timestamp.now().milliseconds - 10_000))
    #expect(record.data.withLock { $0.navigation.shares.count } == 1)
    do {
      let applied = try store.revokeShare(
        issued.share.id, of: record, by: .sessionHolder, precondition: nil, idempotency: nil)
      Issue.record(
        """
        revoked at version \(applied.version): docs/shares.md has an expired share's id \
        404 share_not_found, and its end is reason expired
        """)
    } catch {
      guard case .navigation(let refusal) = error else {
        Issue.record("refused with \(error)")
        return
      }
      #expect(refusal.code == .shareNotFound)
    }
  }
}
