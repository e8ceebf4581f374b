import NavJSON
import Testing

@testable import NavigationCore

/// A share as the server makes one: `id`, created at `createdAt` (ms) and lasting `lasting` ms,
/// its token's digest 32 bytes of `digest`.
private func share(
  _ id: String, _ mode: ShareMode = .follow, label: String = "Support: Ana",
  at createdAt: Int64 = 1_000, lasting: Int64 = 900_000, digest: UInt8 = 7
) -> SessionShare {
  SessionShare(
    id: id, mode: mode, label: label, createdAt: createdAt, expiresAt: createdAt + lasting,
    credential: Array(repeating: digest, count: 32))
}

/// A session on the demo graph holding `count` shares `s1`... created at `at`, each lasting
/// `lasting` ms.
private func shared(_ count: Int, at: Int64 = 1_000, lasting: Int64 = 900_000) throws -> Session {
  var session = try Session()
  for number in stride(from: 1, through: count, by: 1) {
    try session.apply(.createShare(share("s\(number)", at: at, lasting: lasting)))
  }
  #expect(session.state.shares.count == count)
  return session
}

@Suite("Shares of a session")
struct SessionShareTests {
  @Test("creating a share is one change: the version once, one share.created event")
  func create() throws {
    var session = try Session()
    try session.apply(.push(detail(1)))
    let before = session.state
    let made = share("b7Fq2xKc", .drive, label: "iPad")
    // `apply` checks that the version went up by one and every event carries it.
    let events = try session.apply(.createShare(made))
    #expect(events.map(\.kind) == [.shareCreated(id: "b7Fq2xKc", mode: .drive, label: "iPad")])
    #expect(session.state.version == before.version + 1)
    #expect(events.first?.version == session.state.version)
    #expect(events.first?.seq == before.lastSeq + 1)
    #expect(session.state.shares == [made])
    // The tree is untouched.
    #expect(session.state.coordinators == before.coordinators)
    #expect(session.state.visiblePath == before.visiblePath)
    #expect(events.first?.kind.staticTypeName.description == "share.created")
  }

  @Test("shares are kept oldest first; an id the session already has is refused")
  func order() throws {
    var session = try shared(3)
    #expect(session.state.shares.map(\.id) == ["s1", "s2", "s3"])
    session.refuse(.createShare(share("s2", .drive, label: "again")), .invalidRequest)
    #expect(session.state.shares.map(\.id) == ["s1", "s2", "s3"])
    #expect(session.state.shares[1].mode == .follow)
  }

  @Test("at most 16 live shares: a 17th is too_many_shares and changes nothing")
  func atMostSixteen() throws {
    #expect(SessionShare.maxLive == 16)
    var session = try shared(SessionShare.maxLive)
    let shares = session.state.shares
    let refusal = session.refuse(.createShare(share("s17", at: 2_000)), .tooManyShares)
    #expect(refusal?.kind == .conflict)
    #expect(session.state.shares == shares)
    // In a batch too, at the op that makes the 17th, and nothing of the batch stays.
    var batched = try shared(SessionShare.maxLive - 1)
    let before = batched.state.shares
    batched.refuse(
      .batch([.createShare(share("a", at: 2_000)), .createShare(share("b", at: 2_000))]),
      .tooManyShares, opIndex: 1)
    #expect(batched.state.shares == before)
    // Revoking one makes room again.
    try session.apply(.revokeShare("s4", reason: .revoked))
    try session.apply(.createShare(share("s17", at: 2_000)))
    #expect(session.state.shares.count == SessionShare.maxLive)
    #expect(session.state.shares.last?.id == "s17")
  }

  @Test("shares expired at the new share's creation do not count as live")
  func expiredDoNotCount() throws {
    // 16 shares created at 1 000 ms that expire at 5 000 ms.
    var session = try shared(SessionShare.maxLive, at: 1_000, lasting: 4_000)
    // A millisecond before they expire, they all still count.
    session.refuse(.createShare(share("early", at: 4_999)), .tooManyShares)
    // At their expiresAt they are expired (not yet revoked by the server): a 17th goes in.
    try session.apply(.createShare(share("late", at: 5_000)))
    #expect(session.state.shares.count == SessionShare.maxLive + 1)
    // 16 live again (the new one and 15 more): the next is refused.
    for number in 1...15 { try session.apply(.createShare(share("n\(number)", at: 5_000))) }
    session.refuse(.createShare(share("n16", at: 5_000)), .tooManyShares)
    // One expired among 15 live leaves room for exactly one.
    var mixed = try shared(SessionShare.maxLive - 1, at: 1_000, lasting: 900_000)
    try mixed.apply(.createShare(share("short", at: 1_000, lasting: 10)))
    try mixed.apply(.createShare(share("next", at: 2_000)))
    mixed.refuse(.createShare(share("over", at: 2_000)), .tooManyShares)
  }

  @Test(
    "revoking emits share.revoked with its reason and removes the share",
    arguments: ShareEndReason.allCases)
  func revoke(reason: ShareEndReason) throws {
    var session = try shared(3)
    let before = session.state
    let events = try session.apply(.revokeShare("s2", reason: reason))
    #expect(events.map(\.kind) == [.shareRevoked(id: "s2", reason: reason)])
    #expect(events.first?.kind.staticTypeName.description == "share.revoked")
    #expect(session.state.version == before.version + 1)
    #expect(session.state.shares.map(\.id) == ["s1", "s3"])
    #expect(session.state.coordinators == before.coordinators)
  }

  @Test("revoking an id the session has no share with is share_not_found")
  func revokeUnknown() throws {
    var never = try Session()
    let refusal = never.refuse(.revokeShare("nope", reason: .revoked), .shareNotFound)
    #expect(refusal?.kind == .notFound)
    var session = try shared(2)
    session.refuse(.revokeShare("s9", reason: .revoked), .shareNotFound)
    try session.apply(.revokeShare("s1", reason: .revoked))
    // Already revoked: not found, and the other share stays.
    session.refuse(.revokeShare("s1", reason: .expired), .shareNotFound)
    #expect(session.state.shares.map(\.id) == ["s2"])
  }

  @Test("a credential finds only a live share with that digest")
  func findByCredential() throws {
    var session = try Session()
    let digestA = Array(repeating: UInt8(1), count: 32)
    let digestB = Array(repeating: UInt8(2), count: 32)
    #expect(session.state.share(credential: digestA, at: 0) == nil)
    let shareA = share("a", at: 1_000, lasting: 9_000, digest: 1)  // expires at 10 000
    let shareB = share("b", .drive, at: 1_000, lasting: 4_000, digest: 2)  // at 5 000
    try session.apply(.createShare(shareA))
    try session.apply(.createShare(shareB))
    #expect(session.state.share(credential: digestA, at: 9_999) == shareA)
    #expect(session.state.share(credential: digestA, at: 10_000) == nil)
    #expect(session.state.share(credential: digestB, at: 4_999) == shareB)
    #expect(session.state.share(credential: digestB, at: 5_000) == nil)
    // A digest differing in its last byte is another token.
    var almost = digestA
    almost[31] = 0
    #expect(session.state.share(credential: almost, at: 2_000) == nil)
    #expect(session.state.share(credential: [], at: 2_000) == nil)
    try session.apply(.revokeShare("a", reason: .revoked))
    #expect(session.state.share(credential: digestA, at: 2_000) == nil)
    #expect(session.state.share(credential: digestB, at: 2_000) == shareB)
  }

  @Test("expiredShares names the shares expired by a time, oldest first, live ones not")
  func expired() throws {
    var session = try Session()
    #expect(session.state.expiredShares(at: .max).isEmpty)
    try session.apply(.createShare(share("x", at: 0, lasting: 7_000)))
    try session.apply(.createShare(share("y", at: 0, lasting: 3_000)))
    try session.apply(.createShare(share("z", at: 0, lasting: 5_000)))
    #expect(session.state.expiredShares(at: 2_999).isEmpty)
    #expect(session.state.expiredShares(at: 3_000).map(\.id) == ["y"])
    #expect(session.state.expiredShares(at: 5_000).map(\.id) == ["y", "z"])
    #expect(session.state.expiredShares(at: 7_000).map(\.id) == ["x", "y", "z"])
    #expect(session.state.shares.count == 3, "asking removes nothing")
  }
}

@Suite("Forking a session")
struct ForkTests {
  /// On the gated graph with a context: home c1, detail c3 (c2 was pushed and popped) with a
  /// leave guard, signin c4 holding a pending request for account, and a share.
  static func source() throws -> GuardedSession {
    var session = try GuardedSession(context: ["plan": .string("pro"), "n": .int(3)])
    try session.apply(.push(detail(1)))
    try session.apply(.pop())
    try session.apply(.push(detail(7)))
    try session.apply(.setLeaveGuard(c(3), reason: "draft"))
    try session.apply(.push(route("account")))  // redirected to signin, account pending
    try session.apply(.createShare(share("s1", .drive)))
    #expect(session.routes == ["home", "detail", "signin"])
    #expect(session.path == ["c1", "c3", "c4"])
    #expect(session.state.leaveGuard(of: c(3)) == "draft")
    #expect(session.state.pendingRequest?.route == "account")
    #expect(session.state.shares.map(\.id) == ["s1"])
    return session
  }

  @Test("a fork is version 1 with the source's visible path, params and context, and its origin")
  func fork() throws {
    let source = try Self.source().state
    let origin = ForkOrigin(session: "source-id", version: source.version)
    let (forked, events) = try NavigationState.fork(
      graph: source.graph, path: source.visiblePathEntries, context: source.context,
      origin: origin)
    #expect(source.version > 1)
    #expect(forked.version == 1)
    #expect(!events.isEmpty)
    #expect(events.allSatisfy { $0.version == 1 }, "\(describe(events))")
    #expect(events.map(\.seq) == Array(1...events.count))
    #expect(forked.lastSeq == events.count)
    #expect(forked.forkedFrom == origin)
    #expect(source.forkedFrom == nil)
    #expect(forked.visiblePathEntries == source.visiblePathEntries)
    #expect(forked.visiblePath.compactMap { forked[$0]?.route } == ["home", "detail", "signin"])
    #expect(forked.context == source.context)
    #expect(forked.graph.name == source.graph.name)
    #expect(forked.graphVersion == source.graphVersion)
    // Ids issued anew: c1, c2, c3, whatever the source's were.
    #expect(forked.visiblePath == [c(1), c(2), c(3)])
    #expect(forked.lastIssuedID == 3)
    #expect(forked.invariantViolations() == [])
    #expect(guardViolations(forked) == [])
  }

  @Test("leave guards, the pending request and shares are not copied")
  func notCopied() throws {
    let source = try Self.source().state
    let (forked, events) = try NavigationState.fork(
      graph: source.graph, path: source.visiblePathEntries, context: source.context,
      origin: ForkOrigin(session: "source-id", version: source.version))
    #expect(forked.leaveGuards.isEmpty)
    #expect(forked.pendingRequest == nil)
    #expect(forked.shares.isEmpty)
    #expect(
      !events.contains {
        switch $0.kind {
        case .shareCreated, .leaveGuardChanged, .navigationRedirected: true
        default: false
        }
      }, "\(describe(events))")
    // What the source held is its own still.
    #expect(source.leaveGuards == [LeaveGuard(coordinator: c(3), reason: "draft")])
    #expect(source.shares.count == 1)
  }

  @Test("a fork goes on from version 1 like any session; an empty path is no fork")
  func carriesOn() throws {
    let source = try Self.source().state
    var (forked, _) = try NavigationState.fork(
      graph: source.graph, path: source.visiblePathEntries, context: source.context,
      origin: ForkOrigin(session: "source-id", version: 2))
    let events = try applyChecked(.pop(), to: &forked)
    #expect(forked.version == 2)
    #expect(events.allSatisfy { $0.version == 2 })
    #expect(forked.forkedFrom == ForkOrigin(session: "source-id", version: 2))
    do {
      _ = try NavigationState.fork(
        graph: source.graph, path: [], context: source.context,
        origin: ForkOrigin(session: "source-id", version: 1))
      Issue.record("a fork of no path was made")
    } catch {
      #expect(error.code == .invalidPath)
    }
  }

  @Test("a fork of a root alone on the demo graph copies its root's params")
  func rootAlone() throws {
    var source = try Session()
    try source.apply(.setContext(["k": .bool(true)]))
    let (forked, events) = try NavigationState.fork(
      graph: demoGraph, path: source.state.visiblePathEntries, context: source.state.context,
      origin: ForkOrigin(session: "s", version: 2))
    #expect(forked.version == 1 && forked.lastSeq == events.count)
    #expect(forked.visiblePathEntries == source.state.visiblePathEntries)
    #expect(forked.context == ["k": .bool(true)])
  }
}
