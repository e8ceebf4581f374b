import Foundation
import NavStateTestSupport
import Testing

@testable import NavStateClient

/// The backend feed through NavStateBackend, against the real server.
@Suite("The feed through NavStateBackend")
struct FeedClientTests {
  @Test("pages, a followed stream, a funnel, and the feed's refusals as codes")
  func feed() async throws {
    let server = try BackendServer(["--feed-retention", "8"])
    defer { server.stop() }
    let (session, _) = try await server.backend.createSession()
    _ = try await session.push("detail", params: ["id": 4])
    let page = try await server.backend.feed()
    #expect(
      page.events.map(\.type) == [
        "session.started", "screen.viewed", "screen.left", "screen.viewed",
      ])
    let viewed = try #require(page.events.last)
    #expect(viewed.screen == "detail")
    #expect(viewed.params == ["id": 4])
    #expect(viewed.transition == "push")
    #expect(viewed.previous == FeedItem.Screen(screen: "master", screenId: "c1"))
    #expect(viewed.session == session.id)
    #expect(page.events[2].durationMs.map { $0 >= 0 } == true)
    let views = try await server.backend.feed(types: ["screen.viewed"], session: session.id)
    #expect(views.events.count == 2)

    // Followed: what was there after the cursor, then what happens.
    var followed = server.backend.followFeed(after: page.events[1].id).makeAsyncIterator()
    #expect(try await followed.next()?.id == page.events[2].id)
    #expect(try await followed.next()?.id == page.events[3].id)
    _ = try await session.pop()
    #expect(try await followed.next()?.type == "screen.left")
    let live = try await followed.next()
    #expect(live?.type == "screen.viewed")
    #expect(live?.transition == "pop")

    let funnel = try await server.backend.funnel(graph: "demo", steps: ["master", "detail"])
    #expect(funnel.steps.map(\.sessions) == [1, 1])
    #expect(funnel.steps[0].medianSecondsFromPrevious == nil)

    do {
      _ = try await server.backend.feed(after: "nonsense")
      Issue.record("a cursor never issued was taken")
    } catch {
      #expect(error.code == .invalidCursor)
    }
    // Retention 8: the first cursor falls out of what is kept.
    for index in 0..<10 { _ = try await session.push("detail", params: ["id": .int(Int64(index))]) }
    do {
      _ = try await server.backend.feed(after: page.events[0].id)
      Issue.record("an expired cursor was taken")
    } catch {
      #expect(error.code == .cursorExpired)
      #expect(error.status == 410)
    }
  }
}
