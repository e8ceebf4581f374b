import Foundation
import HTTPTypes
import NavStateTestSupport
import Synchronization
import Testing

@testable import NavStateClient

/// Shares, handoff codes, presence and forks through NavStateSession, against the real server
/// (docs/shares.md).
@Suite("Shares, handoff, presence and forks through NavStateSession")
struct ShareClientTests {
  /// A graph whose `account` route has a sensitive `card`, which a follow share reads redacted.
  static let bank = #"""
    {"name": "bank", "version": 1, "root": "home", "routes": [
      {"name": "home", "path": "/home", "next": ["account"]},
      {"name": "account", "path": "/account",
       "params": {"card": {"type": "string", "sensitive": true}, "tier": {"type": "string"}}}]}
    """#

  @Test(
    "a follow share opened with its token reads, redacted and without context, and changes nothing")
  func followShare() async throws {
    let server = try BackendServer()
    defer { server.stop() }
    _ = try await server.backend.loadGraph("bank", json: Data(Self.bank.utf8))
    let (session, _) = try await server.backend.createSession(
      graph: "bank", context: ["plan": "pro"])
    _ = try await session.push("account", params: ["card": "4111", "tier": "gold"])
    let grant = try await session.share(mode: .follow, label: "Support: Ana")
    #expect(grant.share.mode == .follow && grant.share.label == "Support: Ana")
    #expect(grant.token.count == 43 && grant.token != session.token && grant.code == nil)
    #expect(grant.share.expiresAt.timeIntervalSince(grant.share.createdAt) == 900)
    // Sharing was a change this session made: its next write is not refused as stale.
    let pushed = try await session.push("account", params: ["card": "5500", "tier": "gold"])
    #expect(pushed.state.version == 4)
    #expect(pushed.state.shares.map(\.id) == [grant.share.id])
    #expect(pushed.state.shares.first?.watching == 0)

    let follower = NavStateSession(
      serverURL: server.live.server.url, transport: server.live.transport, id: session.id,
      token: grant.token)
    let seen = try await follower.state()
    #expect(seen.version == 4 && seen.routes == ["home", "account", "account"])
    #expect(seen.path.last?.params == ["card": "[redacted]", "tier": "gold"])
    #expect(seen.context.isEmpty)
    #expect(try await session.state().context == ["plan": "pro"])
    #expect(seen.shares.map(\.id) == [grant.share.id] && seen.shares.first?.mode == .follow)
    let events = try await follower.events().events
    #expect(
      events.contains {
        if case .shareCreated(_, 3, grant.share.id, .follow, "Support: Ana") = $0 {
          true
        } else {
          false
        }
      })
    #expect(try await follower.history().entries.map(\.operation).contains("share"))

    // Every change is refused, and so are sharing, forking and ending the session.
    let push = await #expect(throws: NavStateError.self) {
      _ = try await follower.push("account", params: ["tier": "x"])
    }
    #expect(push?.code == .readOnly && push?.status == 403)
    let fork = await #expect(throws: NavStateError.self) { _ = try await follower.fork() }
    #expect(fork?.code == .readOnly)
    let end = await #expect(throws: NavStateError.self) { try await follower.end() }
    #expect(end?.code == .readOnly)
    let reshare = await #expect(throws: NavStateError.self) {
      _ = try await follower.share(mode: .follow, label: "Someone else")
    }
    #expect(reshare?.code == .shareCannotShare && reshare?.status == 403)
    let revoke = await #expect(throws: NavStateError.self) {
      try await follower.revokeShare(grant.share.id)
    }
    #expect(revoke?.code == .shareCannotShare)
    #expect(try await session.state().version == 4)
  }

  @Test("a drive share changes the session but cannot share or end it; the owner's refusals")
  func driveShare() async throws {
    let live = try LiveServer()
    defer { live.server.stop() }
    let (session, _) = try await live.create()
    let grant = try await session.share(mode: .drive, label: "iPad", ttlSeconds: 60)
    #expect(grant.share.expiresAt.timeIntervalSince(grant.share.createdAt) == 60)
    let tablet = NavStateSession(
      serverURL: live.server.url, transport: live.transport, id: session.id, token: grant.token)
    let pushed = try await tablet.push("detail", params: ["id": 1])
    #expect(pushed.state.routes == ["master", "detail"])
    #expect(try await session.state().routes == ["master", "detail"])
    let reshare = await #expect(throws: NavStateError.self) {
      _ = try await tablet.share(mode: .drive, label: "Phone")
    }
    #expect(reshare?.code == .shareCannotShare)
    let end = await #expect(throws: NavStateError.self) { try await tablet.end() }
    #expect(end?.code == .readOnly)

    let unknown = await #expect(throws: NavStateError.self) {
      try await session.revokeShare("nonexistent")
    }
    #expect(unknown?.code == .shareNotFound && unknown?.status == 404)
    let unlabelled = await #expect(throws: NavStateError.self) {
      _ = try await session.share(mode: .follow, label: "")
    }
    #expect(unlabelled?.code == .invalidRequest)
    for index in 1...15 { _ = try await session.share(mode: .follow, label: "Viewer \(index)") }
    let seventeenth = await #expect(throws: NavStateError.self) {
      _ = try await session.share(mode: .follow, label: "One too many")
    }
    #expect(seventeenth?.code == .tooManyShares && seventeenth?.status == 409)
    #expect(try await session.state().shares.count == 16)
  }

  @Test("a handoff code opens the share on another device, once")
  func handoff() async throws {
    let live = try LiveServer()
    defer { live.server.stop() }
    let (session, _) = try await live.create()
    _ = try await session.push("detail", params: ["id": 5])
    let grant = try await session.share(mode: .drive, label: "Tablet", code: true)
    let code = try #require(grant.code)
    #expect(code.count == 10)
    #expect(code.allSatisfy { "23456789ABCDEFGHJKMNPQRSTUVWXYZ".contains($0) })
    // Typed as people type it: lower case, with a dash.
    let typed = code.prefix(5).lowercased() + "-" + code.dropFirst(5).lowercased()
    let (tablet, share, state) = try await NavStateSession.redeemHandoff(
      code: typed, serverURL: live.server.url, transport: live.transport)
    #expect(share == grant.share)
    #expect(tablet.id == session.id && tablet.token == grant.token)
    #expect(state.id == session.id && state.routes == ["master", "detail"])
    #expect(state.shares.map(\.id) == [grant.share.id])
    // The redeemed session drives, at the version it was handed.
    let popped = try await tablet.pop()
    #expect(popped.state.routes == ["master"] && popped.state.version == state.version + 1)
    let again = await #expect(throws: NavStateError.self) {
      _ = try await NavStateSession.redeemHandoff(
        code: code, serverURL: live.server.url, transport: live.transport)
    }
    #expect(again?.code == .unknownHandoff && again?.status == 404)
    // No credential went with the redemptions.
    for headers in live.transport.headers(of: "redeemHandoff") {
      #expect(headers[.authorization] == nil)
    }
  }

  @Test("presence while a share watches; revoking the share ends its live states")
  @MainActor
  func presenceAndRevocation() async throws {
    let live = try LiveServer()
    defer { live.server.stop() }
    let (session, state) = try await live.create()
    let grant = try await session.share(mode: .follow, label: "Support: Ana")
    let model = NavigationModel(session: session, state: state)
    let owner = Task { try await model.follow() }
    defer { owner.cancel() }
    #expect(await eventually(timeout: .seconds(30)) { model.isLive })

    let follower = NavStateSession(
      serverURL: live.server.url, transport: live.transport, id: session.id, token: grant.token)
    let watched = Mutex<[Int]>([])
    let ended = Mutex<(any Error)??>(nil)
    let watcher = Task {
      do {
        for try await state in follower.states() { watched.withLock { $0.append(state.version) } }
        ended.withLock { $0 = .some(nil) }
      } catch {
        ended.withLock { $0 = .some(error) }
      }
    }
    defer { watcher.cancel() }

    // Waits are long (they end as soon as the condition holds): in a full run on two cores,
    // blocking integration tests hold the cooperative threads these tasks need for seconds.
    // The owner's stream tells who watches: the session's own stream and the share's.
    let watching = await eventually(timeout: .seconds(30)) {
      model.presence?.clients.contains {
        $0.kind == .share && $0.share == grant.share.id && $0.label == "Support: Ana"
          && $0.streams == 1
      } == true
    }
    #expect(watching, "presence: \(String(describing: model.presence))")
    #expect(model.presence?.clients.contains { $0.kind == .session && $0.share == nil } == true)
    let asked = try await session.presence()
    #expect(Set(asked.clients.map(\.kind)) == [.session, .share])
    #expect(try await follower.presence().clients.count == 2)
    #expect(try await session.state().shares.first?.watching == 1)
    // Presence messages did not break either stream: one request each, none resumed.
    let streams = live.transport.headers(of: "streamEvents")
    #expect(streams.count == 2)
    #expect(streams.allSatisfy { $0[HTTPField.Name("Last-Event-ID")!] == nil })
    #expect(model.isLive)
    #expect(await eventually(timeout: .seconds(30)) { watched.withLock { $0 } == [2] })

    // A change reaches the share's stream; then the revocation ends it.
    _ = try await session.push("detail", params: ["id": 3])
    #expect(await eventually(timeout: .seconds(30)) { watched.withLock { $0 } == [2, 3] })
    try await session.revokeShare(grant.share.id)
    #expect(await eventually(timeout: .seconds(30)) { ended.withLock { $0 } != nil })
    let outcome = try #require(ended.withLock { $0 })
    let refusal = try #require(
      outcome as? NavStateError, "ended with \(String(describing: outcome))")
    #expect(refusal.code == .sessionNotFound && refusal.reason == "revoked")
    // It ended with the event, not by trying again with a token that no longer works.
    let shareStreams = live.transport.headers(of: "streamEvents").filter {
      $0[.authorization] == "Bearer \(grant.token)"
    }
    #expect(shareStreams.count == 1)
    let gone = await #expect(throws: NavStateError.self) { _ = try await follower.state() }
    #expect(gone?.code == .sessionNotFound)

    // The owner's model saw the share go, and nobody but itself watches any more.
    #expect(
      await eventually(timeout: .seconds(30)) { model.shares.isEmpty && model.state?.version == 4 })
    #expect(
      await eventually(timeout: .seconds(30)) {
        model.presence?.clients.map(\.kind) == [.session]
      })
    let events = try await session.events(after: 0).events
    #expect(
      events.contains {
        if case .shareRevoked(_, 4, grant.share.id, "revoked") = $0 { true } else { false }
      })
  }

  @Test("a fork is a new session with its own token, where this one was")
  func fork() async throws {
    let live = try LiveServer()
    defer { live.server.stop() }
    let (session, _) = try await live.create()
    _ = try await session.push("detail", params: ["id": 1])
    _ = try await session.push("detail", params: ["id": 2])
    let (forked, state) = try await session.fork(at: 2)
    #expect(forked.id != session.id && forked.token != session.token)
    #expect(forked.id == state.id)
    #expect(state.routes == ["master", "detail"] && state.path.last?.params == ["id": 1])
    #expect(state.forkedFrom == ForkOrigin(session: session.id, version: 2))
    #expect(state.shares.isEmpty)
    #expect(try await forked.state().forkedFrom == ForkOrigin(session: session.id, version: 2))
    #expect(try await forked.history().entries.first?.operation == "fork")
    // Each goes its own way.
    _ = try await forked.push("detail", params: ["id": 9])
    #expect(try await session.state().version == 3)
    #expect(try await session.state().forkedFrom == nil)
    let (now, current) = try await session.fork()
    #expect(current.routes == ["master", "detail", "detail"])
    #expect(current.forkedFrom == ForkOrigin(session: session.id, version: 3))
    #expect(now.id != forked.id)
    let never = await #expect(throws: NavStateError.self) { _ = try await session.fork(at: 9) }
    #expect(never?.code == .invalidVersion)
    // A drive share may fork too.
    let grant = try await session.share(mode: .drive, label: "Tablet")
    let tablet = NavStateSession(
      serverURL: live.server.url, transport: live.transport, id: session.id, token: grant.token)
    #expect(try await tablet.fork().state.forkedFrom?.session == session.id)
  }
}
