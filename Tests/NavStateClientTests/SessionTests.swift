import Foundation
import HTTPTypes
import NavStateTestSupport
import OpenAPIRuntime
import Testing

@testable import NavStateClient

@Suite("NavStateSession against a live navstate")
struct SessionTests {
  @Test("int params travel exactly; every operation answers the typed state")
  func typedOperations() async throws {
    let live = try LiveServer()
    defer { live.server.stop() }
    let (session, created) = try await live.create()
    #expect(created.routes == ["master"])
    #expect(created.allowed.push == ["detail"])
    let pushed = try await session.push("detail", params: ["id": 9_007_199_254_740_993])
    #expect(pushed.state.path.last?.params["id"] == .int(9_007_199_254_740_993))
    #expect(pushed.events.count == 1)
    if case .started(_, let version, _, let route, _, let presentation, let parent) = pushed.events[
      0]
    {
      #expect(version == 2 && route == "detail" && presentation == .push && parent == "c1")
    } else {
      Issue.record("expected coordinator.started, got \(pushed.events[0])")
    }
    let sheet = try await session.present("settings")
    #expect(sheet.state.routes == ["master", "detail", "settings"])
    let back = try await session.back(result: try JSONResult(unvalidatedValue: ["saved": true]))
    #expect(back.state.routes == ["master", "detail"])
    #expect(back.events.contains { if case .resumed = $0 { true } else { false } })
    let linked = try await session.deepLink("myapp://master/detail/7/settings")
    #expect(linked.state.routes == ["master", "detail", "settings"])
    let path = try await session.setPath([
      PathEntry("master"), PathEntry("detail", params: ["id": 3]),
    ])
    #expect(path.state.path.last?.params == ["id": .int(3)])
    let batch = try await session.batch([.push("detail", params: ["id": 4]), .popToRoot])
    #expect(batch.state.routes == ["master"])
    let page = try await session.events(after: 0)
    #expect(page.reset == nil)
    #expect(page.events.map(\.seq) == Array(1...page.lastSeq))
    try await session.end()
    await #expect(throws: NavStateError.self) { try await session.state() }
  }

  @Test("a refusal is one error with the problem's code, status and detail")
  func typedRefusals() async throws {
    let live = try LiveServer()
    defer { live.server.stop() }
    let (session, _) = try await live.create()
    do {
      _ = try await session.pop()
      Issue.record("pop at the root was accepted")
    } catch {
      #expect(error.code == .nothingToPop)
      #expect(error.status == 409)
      #expect(!error.detail.isEmpty)
    }
    let badParam = await #expect(throws: NavStateError.self) {
      _ = try await session.push("detail", params: ["id": 1.5])
    }
    #expect(badParam?.code == .invalidParams && badParam?.status == 422)
  }

  @Test("writes carry If-Match: a stale one fails, or is retried when asked")
  func staleWrites() async throws {
    let live = try LiveServer()
    defer { live.server.stop() }
    let (mine, _) = try await live.create()
    let other = live.open(mine)
    _ = try await other.push("detail", params: ["id": 1])  // the session moves on elsewhere
    do {
      _ = try await mine.push("settings")
      Issue.record("a write at a stale version was accepted")
    } catch {
      #expect(error.code == .versionMismatch)
      #expect(error.status == 412)
      #expect(error.version == 2)
    }
    // The generated client percent-encodes the header; the service reads it decoded.
    let sent = live.transport.headers(of: "push").compactMap { $0[.init("If-Match")!] }
    #expect(sent.last == "%221%22")
    let retrying = live.open(
      mine, options: .init(sendIfMatch: true, staleWriteRetries: 1))
    _ = try await retrying.state()
    _ = try await other.push("detail", params: ["id": 2])
    let retried = try await retrying.present("settings")
    #expect(retried.state.routes == ["master", "detail", "detail", "settings"])
  }

  @Test("every problem code of the service maps to a case of its own")
  func everyCodeMapped() throws {
    let contract = try String(
      contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../docs/behaviour.md"), encoding: .utf8)
    // Every `code` in the behaviour contract's tables.
    let codes = Set(
      contract.split(separator: "`").filter { part in
        part.count > 3 && part.allSatisfy { $0.isLowercase || $0 == "_" } && part.contains("_")
      }.map(String.init))
    let known = Set(NavStateError.Code.known.map(\.rawValue))
    let missing = codes.filter { code in
      // Field and option names also look like codes; only those that name a refusal count.
      contract.contains("`\(code)`") && !known.contains(code)
        && contract.range(of: "[0-9]{3} `\(code)`", options: .regularExpression) != nil
    }
    #expect(missing.isEmpty, "codes without a case: \(missing.sorted())")
    #expect(Set(NavStateError.Code.known).count == NavStateError.Code.known.count)
    #expect(NavStateError.Code(rawValue: "nothing_to_pop") == .nothingToPop)
    #expect(NavStateError.Code(rawValue: "brand_new").rawValue == "brand_new")
  }

  @Test("refusals of whole requests: an unknown session, a wrong token")
  func sessionRefusals() async throws {
    let live = try LiveServer()
    defer { live.server.stop() }
    let (session, _) = try await live.create()
    let wrongToken = NavStateSession(
      serverURL: live.server.url, transport: live.transport, id: session.id,
      token: String(repeating: "A", count: 43))
    let unknown = await #expect(throws: NavStateError.self) { _ = try await wrongToken.state() }
    #expect(unknown?.code == .sessionNotFound && unknown?.status == 404)
    let malformed = NavStateSession(
      serverURL: live.server.url, transport: live.transport, id: session.id, token: "short")
    let invalid = await #expect(throws: NavStateError.self) { _ = try await malformed.state() }
    #expect(invalid?.code == .invalidToken && invalid?.status == 401)
  }
}
