import Foundation
import NavStateTestSupport
import Testing

@testable import NavStateClient

@Suite("History through NavStateSession")
struct HistoryClientTests {
  @Test("history, the state at a version and a restore, with a leave guard in the way")
  func history() async throws {
    let live = try LiveServer()
    defer { live.server.stop() }
    let (session, _) = try await live.create()
    let pushed = try await session.push("detail", params: ["id": 1])
    _ = try await session.push("detail", params: ["id": 2])
    let page = try await session.history()
    #expect(page.version == 3)
    #expect(page.oldest == 1)
    #expect(page.entries.map(\.operation) == ["create", "push", "push"])
    #expect(page.entries.map(\.by) == ["client", "client", "client"])
    #expect(page.entries[1].route == "detail")
    #expect(try await session.history(after: 2).entries.map(\.version) == [3])
    let past = try await session.state(at: 2)
    #expect(past.version == 2)
    #expect(past.routes == ["master", "detail"])
    do {
      _ = try await session.state(at: 9)
      Issue.record("a version never reached was answered")
    } catch {
      #expect(error.code == .invalidVersion)
    }
    let guarded = pushed.state.path[1].id
    _ = try await session.setLeaveGuard(on: guarded, reason: "unsaved")
    do {
      _ = try await session.restore(to: 1)
      Issue.record("a restore through a leave guard went ahead")
    } catch {
      #expect(error.code == .leaveBlocked)
      let restored = try await session.retryDiscarding(error)
      #expect(restored.state.routes == ["master"])
      #expect(restored.events.contains { if case .restored(_, _, 1) = $0 { true } else { false } })
    }
  }
}
