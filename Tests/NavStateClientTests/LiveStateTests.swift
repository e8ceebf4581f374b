import Foundation
import HTTPTypes
import NavStateTestSupport
import Synchronization
import Testing

@testable import NavStateClient

@Suite("Live state from the event stream")
struct LiveStateTests {
  @Test("states arrive from the stream; after a drop it resumes with Last-Event-ID")
  func resumesAfterADrop() async throws {
    let live = try LiveServer()
    defer { live.server.stop() }
    let (session, _) = try await live.create()
    // Every stream is cut after two events: the reset, then one more.
    live.transport.dropStreamsAfterEvents.withLock { $0 = 2 }
    let writer = live.open(session, options: .init(sendIfMatch: false))
    let follower = Task {
      var versions: [Int] = []
      for try await state in session.states() {
        versions.append(state.version)
        if state.version >= 4 { break }
      }
      return versions
    }
    try await Task.sleep(for: .milliseconds(300))
    _ = try await writer.push("detail", params: ["id": 1])
    try await Task.sleep(for: .milliseconds(300))
    _ = try await writer.push("detail", params: ["id": 2])
    try await Task.sleep(for: .milliseconds(300))
    _ = try await writer.push("detail", params: ["id": 3])
    let versions = try await follower.value
    #expect(versions.first == 1)
    #expect(versions.last == 4)
    // Reconnections asked to resume after the last event seen, not from scratch.
    let resumes = live.transport.headers(of: "streamEvents").compactMap {
      $0[.init("Last-Event-ID")!]
    }
    #expect(!resumes.isEmpty)
    #expect(resumes.allSatisfy { Int($0) != nil })
  }

  @Test("the stream finishes after the session ends")
  func finishesWithTheSession() async throws {
    let live = try LiveServer()
    defer { live.server.stop() }
    let (session, _) = try await live.create()
    let follower = Task {
      var count = 0
      for try await _ in session.states() { count += 1 }
      return count
    }
    try await Task.sleep(for: .milliseconds(300))
    try await live.open(session).end()
    let count = try await follower.value
    #expect(count == 1)  // the reset, then the end
  }
}
