import Foundation
import MicroHTTPServer
import NavJSON
import NavStateApp
import NavStateEngine
import NavStateTestSupport
import NavStateTesting
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// What an event stream holds, how long it outlives its client, how many one address may open,
/// and what a client resuming a session that ended is told.
@Suite("Event stream lifetimes and limits")
struct StreamLifetimeTests {
  /// Waits until `/metrics` counts `count` open streams; the seconds it took, or nil.
  private func waitForOpenStreams(_ server: TestApp, _ count: Double, within: Double)
    throws -> Double?
  {
    let start = Date()
    while Date().timeIntervalSince(start) < within {
      if try server.metric("navstate_open_event_streams") == count {
        return Date().timeIntervalSince(start)
      }
      usleep(50_000)
    }
    return nil
  }

  @Test(
    "retry: is a field of the first event's block, never a block of its own",
    arguments: [TestBackend.live])
  func retryWithFirstEvent(backend: TestBackend) throws {
    let server = try TestApp(backend)
    defer { server.stop() }
    let session = try TestSession(server.client)
    let fresh = try EventStreamClient(
      port: server.port, path: "\(session.path)/events/stream", token: session.token)
    let reset = try #require(fresh.next())
    #expect(reset.type == "reset")
    #expect(reset.retry == 2000)
    #expect(fresh.loneRetryBlocks == 0)

    // Up to date on resumption: nothing to send at first, so retry waits for the first event.
    let resumed = try EventStreamClient(
      port: server.port, path: "\(session.path)/events/stream", token: session.token,
      lastEventID: 1)
    _ = try session.call("push", ["route": "detail", "params": ["id": 1]])
    let started = try #require(resumed.next())
    #expect(started.type == "coordinator.started")
    #expect(started.retry == 2000)
    _ = try session.call("pop")
    let stopped = try #require(resumed.next())
    #expect(stopped.retry == nil, "retry is sent once")
    #expect(resumed.loneRetryBlocks == 0)
  }

  @Test(
    "a stream whose client closed the connection is freed within seconds, not heartbeats",
    arguments: [TestBackend.live])
  func abandonedStreamsFreed(backend: TestBackend) throws {
    // Heartbeats a minute apart: only the server's own check can free them in time.
    let server = try TestApp(backend) { configuration in
      configuration.store.heartbeatSeconds = 60
    }
    defer { server.stop() }
    let session = try TestSession(server.client)
    var streams: [EventStreamClient] = []
    for _ in 0..<5 {
      let stream = try EventStreamClient(
        port: server.port, path: "\(session.path)/events/stream", token: session.token)
      #expect(stream.next()?.type == "reset")
      streams.append(stream)
    }
    #expect(try waitForOpenStreams(server, 5, within: 2) != nil)
    for stream in streams { stream.disconnect() }
    let took = try waitForOpenStreams(server, 0, within: 5)
    #expect(took != nil, "5 abandoned streams still open after 5 s")
    // And the session no longer delivers to them.
    _ = try session.call("push", ["route": "detail", "params": ["id": 2]])
    #expect(try server.metric("navstate_open_event_streams") == 0)
  }

  @Test(
    "one client address may hold --max-streams-per-ip streams; one more is 429",
    arguments: [TestBackend.live])
  func perAddressCap(backend: TestBackend) throws {
    let server = try TestApp(backend) { configuration in
      configuration.store.maxStreamsPerClient = 2
    }
    defer { server.stop() }
    let session = try TestSession(server.client)
    let first = try EventStreamClient(
      port: server.port, path: "\(session.path)/events/stream", token: session.token)
    let second = try EventStreamClient(
      port: server.port, path: "\(session.path)/events/stream", token: session.token)
    #expect(first.next()?.type == "reset")
    #expect(second.next()?.type == "reset")
    let refused = try server.client.json(
      "GET", "\(session.path)/events/stream", token: session.token)
    #expect(refused.status == 429)
    #expect(refused.json["code"] == "too_many_streams_for_client")
    #expect(refused.header("Retry-After") != nil)
    // The JSON catch-up is no stream, and is not capped.
    #expect(
      try server.client.json("GET", "\(session.path)/events", token: session.token).status == 200)
    // A closed stream gives its place back.
    first.disconnect()
    #expect(try waitForOpenStreams(server, 1, within: 5) != nil)
    let third = try EventStreamClient(
      port: server.port, path: "\(session.path)/events/stream", token: session.token)
    #expect(third.next()?.type == "reset")
    #expect(third.status == 200)
  }

  @Test(
    "streams are counted in the memory budget at what they hold, not at their buffer's cap",
    arguments: [TestBackend.live])
  func streamsAccountedAsTheyAre(backend: TestBackend) throws {
    // 16 MiB: at the 288 KiB a stream was counted for, about 55 streams would fill it.
    let server = try TestApp(backend) { configuration in
      configuration.store.maxMemoryBytes = 16 * 1024 * 1024
      configuration.store.maxStreamsPerClient = 0
      configuration.server.connectionsPerIP = 0
    }
    defer { server.stop() }
    let session = try TestSession(server.client)
    var streams: [EventStreamClient] = []
    for index in 0..<150 {
      let stream = try EventStreamClient(
        port: server.port, path: "\(session.path)/events/stream", token: session.token)
      let first = stream.next()
      #expect(first?.type == "reset", "stream \(index) answered \(stream.status)")
      guard first != nil else { break }
      streams.append(stream)
    }
    #expect(streams.count == 150)
  }

  @Test(
    "resuming a session that ended meanwhile: 410 session_ended to the token holder",
    arguments: [TestBackend.live])
  func endedSessionIsGone(backend: TestBackend) throws {
    let server = try TestApp(backend)
    defer { server.stop() }
    let session = try TestSession(server.client)
    let other = try TestSession(server.client)
    #expect(try server.client.json("DELETE", session.path, token: session.token).status == 204)
    let resumed = try server.client.json(
      "GET", "\(session.path)/events/stream", token: session.token,
      headers: [("Last-Event-ID", "1")])
    #expect(resumed.status == 410)
    #expect(resumed.json["code"] == "session_ended")
    #expect(resumed.json["reason"] == "deleted")
    // The JSON catch-up says the same.
    let caughtUp = try server.client.json(
      "GET", "\(session.path)/events?after=1", token: session.token)
    #expect(caughtUp.status == 410)
    // Anyone else learns nothing: the same 404 as for an id that never was.
    let stranger = try server.client.json(
      "GET", "\(session.path)/events/stream", token: other.token)
    #expect(stranger.status == 404)
    #expect(stranger.json["code"] == "session_not_found")
  }

  @Test(
    "a session that expired answers its stream's return with 410, reason expired",
    arguments: TestBackend.allCases)
  func expiredSessionIsGone(backend: TestBackend) throws {
    let server = try TestApp(backend) { configuration in
      configuration.store.sessionTTLSeconds = 1
    }
    defer { server.stop() }
    let session = try TestSession(server.client)
    // No call for longer than the TTL: the expiry sweep ends it.
    usleep(2_500_000)
    let deadline = Date().addingTimeInterval(10)
    var answer: TestResponse
    repeat {
      answer = try server.client.json(
        "GET", "\(session.path)/events?after=1", token: session.token)
      if answer.status == 410 { break }
      usleep(200_000)
    } while Date() < deadline
    #expect(answer.status == 410)
    #expect(answer.json["reason"] == "expired")
  }
}
