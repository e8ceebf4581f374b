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

@Suite("Event streams")
struct EventStreamTests {
  @Test(
    "a stream starts with reset, then carries every event with its seq as id",
    arguments: [TestBackend.live])
  func liveEvents(backend: TestBackend) throws {
    let server = try TestApp(backend)
    defer { server.stop() }
    let session = try TestSession(server.client)
    let stream = try EventStreamClient(
      port: server.port, path: "\(session.path)/events", token: session.token)
    let reset = try #require(stream.next())
    #expect(reset.type == "reset")
    #expect(reset.id == 1)
    #expect((try? JSONParser.parse(reset.data))?["active"] == "c1")
    _ = try session.call("push", ["route": "detail", "params": ["id": 1]])
    _ = try session.call("pop", ["result": "done"])
    let events = [stream.next(), stream.next(), stream.next()].compactMap { $0 }
    #expect(
      events.map(\.type) == ["coordinator.started", "coordinator.stopped", "coordinator.resumed"])
    #expect(events.map(\.id) == [2, 3, 4])
    #expect((try? JSONParser.parse(events[2].data))?["result"] == "done")
  }

  @Test(
    "the event log is capped in bytes too: the oldest go, and asking for them gets a reset",
    arguments: TestBackend.allCases)
  func byteCappedLog(backend: TestBackend) throws {
    let server = try TestApp(backend) { configuration in
      configuration.store.eventBufferBytes = 2048
    }
    defer { server.stop() }
    let session = try TestSession(server.client)
    for id in 1...100 {
      _ = try session.call("push", ["route": "detail", "params": ["id": .int(id)]])
      _ = try session.call("pop")
    }
    // 201 events of 12 to 25 bytes each as the log keeps them do not fit in 2 KiB.
    let all = try server.client.json("GET", "\(session.path)/events?after=0", token: session.token)
    #expect(all.json["events"]?.arrayValue?.isEmpty == true)
    #expect(all.json["reset"]?["version"] == 201)
    let lastSeq = try #require(all.json["lastSeq"]?.intValue)
    #expect(lastSeq == 201)
    // The newest few are kept.
    let recent = try server.client.json(
      "GET", "\(session.path)/events?after=\(lastSeq - 3)", token: session.token)
    let seqs = recent.json["events"]?.arrayValue?.compactMap { $0["seq"]?.intValue }
    #expect(seqs == [lastSeq - 2, lastSeq - 1, lastSeq])
  }

  @Test(
    "events/stream is an operation of its own; events without an SSE Accept is JSON",
    arguments: [TestBackend.live])
  func streamHasItsOwnOperation(backend: TestBackend) throws {
    let server = try TestApp(backend)
    defer { server.stop() }
    let session = try TestSession(server.client)
    let stream = try EventStreamClient(
      port: server.port, path: "\(session.path)/events/stream", token: session.token)
    let reset = try #require(stream.next())
    #expect(reset.type == "reset")
    // The reset event's state carries its affordances too.
    #expect(try JSONParser.parse(reset.data)["allowed"]?["push"] == ["detail"])
    let catchUp = try server.client.request(
      "GET", "\(session.path)/events?after=0",
      headers: [("Authorization", "Bearer \(session.token)"), ("Accept", "*/*")])
    #expect(catchUp.header("Content-Type") == "application/json")
    #expect(catchUp.json["lastSeq"] == 1)
  }

  @Test(
    "a stream opens whatever the size of its first message (a large reset)",
    arguments: [TestBackend.live])
  func largeReset(backend: TestBackend) throws {
    let server = try TestApp(backend) { configuration in
      configuration.store.maxRequestBytes = 400000
      configuration.server.maxBodyBytes = 400000
    }
    defer { server.stop() }
    let session = try TestSession(server.client, body: ["root": ["route": "scene1"]])
    let text = String(repeating: "x", count: 150_000)
    _ = try session.call("push", ["route": "scene2", "params": ["text": .string(text)]])
    // The reset holds the text twice (tree and path): about 300 KB, over a stream's 256 KiB.
    let stream = try EventStreamClient(
      port: server.port, path: "\(session.path)/events/stream", token: session.token)
    let reset = try #require(stream.next(timeout: 10))
    #expect(reset.type == "reset")
    #expect(reset.data.count > 300_000)
  }

  @Test(
    "Last-Event-ID resumes after it; too old an id gets one reset with the state",
    arguments: [TestBackend.live])
  func resume(backend: TestBackend) throws {
    let server = try TestApp(backend) { configuration in
      configuration.store.eventBufferSize = 4
    }
    defer { server.stop() }
    let session = try TestSession(server.client)
    for id in 1...2 {
      _ = try session.call("push", ["route": "detail", "params": ["id": .int(id)]])
    }
    // seq 1: master started, 2 and 3: the two details.
    let resumed = try EventStreamClient(
      port: server.port, path: "\(session.path)/events", token: session.token, lastEventID: 2)
    let next = try #require(resumed.next())
    #expect(next.id == 3)
    #expect(next.type == "coordinator.started")
    for id in 3...6 {
      _ = try session.call("push", ["route": "detail", "params": ["id": .int(id)]])
    }
    let stale = try EventStreamClient(
      port: server.port, path: "\(session.path)/events", token: session.token, lastEventID: 1)
    let reset = try #require(stale.next())
    #expect(reset.type == "reset")
    #expect(reset.id == 7)
    let state = try JSONParser.parse(reset.data)
    #expect(state["path"]?.arrayValue?.count == 7)
    // The JSON list answers the same, with `reset` when the events are gone.
    let list = try server.client.json("GET", "\(session.path)/events?after=1", token: session.token)
    #expect(list.json["events"] == [])
    #expect(list.json["reset"]?["version"] == 7)
    let recent = try server.client.json(
      "GET", "\(session.path)/events?after=5", token: session.token)
    #expect(recent.json["events"]?.arrayValue?.compactMap { $0["seq"]?.intValue } == [6, 7])
  }

  @Test("two subscribers see the same sequence", arguments: [TestBackend.live])
  func twoSubscribers(backend: TestBackend) throws {
    let server = try TestApp(backend)
    defer { server.stop() }
    let session = try TestSession(server.client)
    let first = try EventStreamClient(
      port: server.port, path: "\(session.path)/events", token: session.token, lastEventID: 1)
    let second = try EventStreamClient(
      port: server.port, path: "\(session.path)/events", token: session.token, lastEventID: 1)
    usleep(100_000)
    _ = try session.call("push", ["route": "detail", "params": ["id": 1]])
    _ = try session.call("present", ["route": "settings"])
    _ = try session.call("dismiss", [:])
    let a = (0..<3).compactMap { _ in first.next() }
    let b = (0..<3).compactMap { _ in second.next() }
    #expect(a.count == 3)
    #expect(a.map(\.id) == b.map(\.id))
    #expect(a.map(\.data) == b.map(\.data))
  }

  @Test(
    "deleting the session ends its streams after the stopped events and session.ended",
    arguments: [TestBackend.live])
  func endsWithSession(backend: TestBackend) throws {
    let server = try TestApp(backend)
    defer { server.stop() }
    let session = try TestSession(server.client)
    _ = try session.call("push", ["route": "detail", "params": ["id": 1]])
    let stream = try EventStreamClient(
      port: server.port, path: "\(session.path)/events", token: session.token, lastEventID: 2)
    usleep(100_000)
    _ = try server.client.json("DELETE", session.path, token: session.token)
    let events = stream.collect(timeout: 5)
    #expect(events.map(\.type) == ["coordinator.stopped", "coordinator.stopped", "session.ended"])
    let stopped = events.prefix(2).compactMap { try? JSONParser.parse($0.data) }
    // Children before parents, each with reason sessionEnded.
    #expect(stopped.map { $0["coordinator"] } == ["c2", "c1"])
    #expect(stopped.allSatisfy { $0["reason"] == "sessionEnded" })
    #expect(stream.ended)
    #expect(try server.metric("navstate_live_coordinators") == 0)
  }

  @Test(
    "expiry stops every coordinator, children first, then session.ended with reason expired",
    arguments: [TestBackend.live])
  func endsWithExpiry(backend: TestBackend) throws {
    let server = try TestApp(backend) { configuration in
      configuration.store.sessionTTLSeconds = 0.5
    }
    defer { server.stop() }
    let session = try TestSession(server.client)
    _ = try session.call("push", ["route": "detail", "params": ["id": 1]])
    let stream = try EventStreamClient(
      port: server.port, path: "\(session.path)/events", token: session.token, lastEventID: 2)
    let events = stream.collect(timeout: 5)
    #expect(events.map(\.type) == ["coordinator.stopped", "coordinator.stopped", "session.ended"])
    let parsed = events.compactMap { try? JSONParser.parse($0.data) }
    #expect(parsed.prefix(2).map { $0["coordinator"] } == ["c2", "c1"])
    #expect(parsed.prefix(2).allSatisfy { $0["reason"] == "sessionEnded" })
    #expect(parsed.last?["reason"] == "expired")
    #expect(stream.ended)
    #expect(try server.metric("navstate_sessions_expired_total") == 1)
    #expect(try server.metric("navstate_live_coordinators") == 0)
    #expect(try server.metric("navstate_live_sessions") == 0)
  }

  @Test(
    "a subscriber that disconnects is freed (at once, or at the next heartbeat)",
    arguments: [TestBackend.live])
  func deadClientFreed(backend: TestBackend) throws {
    let server = try TestApp(backend) { configuration in
      configuration.store.heartbeatSeconds = 0.2
    }
    defer { server.stop() }
    let session = try TestSession(server.client)
    var streams: [EventStreamClient] = []
    for _ in 0..<5 {
      let stream = try EventStreamClient(
        port: server.port, path: "\(session.path)/events", token: session.token)
      _ = stream.next()
      streams.append(stream)
    }
    #expect(try server.metric("navstate_open_event_streams") == 5)
    for stream in streams.prefix(4) { stream.disconnect() }
    let deadline = Date().addingTimeInterval(5)
    while try server.metric("navstate_open_event_streams") != 1, Date() < deadline {
      usleep(100_000)
    }
    #expect(try server.metric("navstate_open_event_streams") == 1)
    _ = try session.call("push", ["route": "detail", "params": ["id": 1]])
    #expect(streams[4].next()?.type == "coordinator.started")
    // The stream that stayed still gets its heartbeats (every 0.2 s here). The 4 gone ones may
    // have been freed before the first: a stream's socket is watched for its client closing.
    _ = streams[4].collect(timeout: 0.6)
    #expect(streams[4].comments > 0)
  }

  @Test("a thousand open streams on one session, served by the same few threads")
  func thousandStreams() throws {
    var limit = rlimit()
    getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    try #require(limit.rlim_cur >= 1200, "the test needs 1,200 file descriptors")
    // One client address holding 1,000 streams: past the default per-address caps.
    let server = try ServerProcess([
      "--max-connections-per-ip", "2000", "--max-streams-per-ip", "1000",
    ])
    defer { server.stop() }
    let session = try TestSession(server.client)
    let streams = try (0..<1000).map { _ in
      try EventStreamClient(port: server.port, path: "\(session.path)/events", token: session.token)
    }
    for stream in streams { #expect(stream.next(timeout: 10)?.type == "reset") }
    #expect(try server.metric("navstate_open_event_streams") == 1000)
    _ = try session.call("push", ["route": "detail", "params": ["id": 1]])
    let received = streams.filter { $0.next(timeout: 10)?.type == "coordinator.started" }.count
    #expect(received == 1000)
    let threads = try String(
      contentsOfFile: "/proc/\(server.process.processIdentifier)/status", encoding: .utf8
    )
    .split(separator: "\n").first { $0.hasPrefix("Threads:") }
    .flatMap { Int($0.split(separator: "\t").last ?? "") }
    #expect((threads ?? 1000) < 20)
  }

  @Test(
    "SIGTERM with open streams exits 0, fast, and ends the streams", arguments: [TestBackend.live])
  func shutdownWithStreams(backend: TestBackend) throws {
    let server = try TestApp(backend)
    let session = try TestSession(server.client)
    let streams = try (0..<20).map { _ in
      try EventStreamClient(port: server.port, path: "\(session.path)/events", token: session.token)
    }
    for stream in streams { _ = stream.next() }
    let start = Date()
    #expect(server.stop() == 0)
    #expect(Date().timeIntervalSince(start) < 3)
    for stream in streams {
      _ = stream.collect(timeout: 2)
      #expect(stream.ended)
    }
  }
}
