import Foundation
import NavJSON
import NavStateApp
import NavStateEngine
import NavStateTestSupport
import NavStateTesting
import Synchronization
import Testing

/// `GET /v1/feed/stream` and the feed across restarts and kill -9 (docs/behaviour.md, "The
/// backend feed"): a reader that goes on from any cursor it was given gets every item of every
/// acknowledged change, once, in order, and none of a refused change.
@Suite("The backend feed: streams, restarts and crashes")
struct FeedStreamTests {
  private static let key = FeedTests.key

  private struct Folder {
    let path = NSTemporaryDirectory() + "navstate-feed-\(UUID().uuidString)"
    var keyFile: String { path + "/backend-keys" }
    var data: String { path + "/data" }

    init() throws {
      try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
      try Data((FeedStreamTests.key + "\n").utf8).write(to: URL(fileURLWithPath: keyFile))
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
  }

  /// An item as a reader keeps it.
  private struct Seen: Sendable {
    var cursor: String
    var json: JSONValue
  }

  private static func parse(_ event: ReceivedEvent) -> Seen? {
    guard let cursor = event.cursor, let json = try? JSONParser.parse(Array(event.data.utf8))
    else { return nil }
    return Seen(cursor: cursor, json: json)
  }

  /// The number in a cursor (`<epoch>-<number>`), to check the order.
  private static func place(_ cursor: String) -> Int {
    Int(cursor.split(separator: "-").last ?? "") ?? -1
  }

  /// Pages through the feed after `cursor` (nil: from the oldest kept).
  private static func pull(_ client: any TestClient, after cursor: String?) throws -> [Seen] {
    var seen: [Seen] = []
    var after = cursor
    while true {
      let query = after.map { "?limit=1000&after=\($0)" } ?? "?limit=1000"
      let page = try client.json("GET", "/v1/feed\(query)", token: key)
      #expect(page.status == 200, "\(page.text)")
      let events = page.json["events"]?.arrayValue ?? []
      for event in events {
        seen.append(Seen(cursor: event["id"]?.stringValue ?? "", json: event))
      }
      guard !events.isEmpty else { return seen }
      after = page.json["next"]?.stringValue
    }
  }

  @Test(
    "the stream: id is the cursor, event the type; Last-Event-ID resumes; filters and formats apply"
  )
  func stream() throws {
    let server = try FeedTests.app(.live)
    defer { server.stop() }
    let session = try server.session()
    #expect(try session.call("push", ["route": "detail", "params": ["id": 1]]).status == 200)
    let all = try FeedTests.items(server)
    let reader = try EventStreamClient(port: server.port, path: "/v1/feed/stream", token: Self.key)
    var received: [ReceivedEvent] = []
    while received.count < all.count, let event = reader.next(timeout: 5) { received.append(event) }
    #expect(reader.status == 200)
    #expect(received.map(\.cursor) == all.map { $0["id"]?.stringValue })
    #expect(received.map(\.type) == all.map { $0["type"]?.stringValue ?? "" })
    #expect(received.compactMap { try? JSONParser.parse(Array($0.data.utf8)) } == all)
    // Live: a change made now arrives.
    #expect(try session.call("pop").status == 200)
    let live = [reader.next(timeout: 5), reader.next(timeout: 5)]
    #expect(live.map { $0?.type } == ["screen.left", "screen.viewed"])
    // Resumed after the second item, screen.viewed only.
    let resumed = try EventStreamClient(
      port: server.port, path: "/v1/feed/stream?types=screen.viewed", token: Self.key,
      lastEventCursor: all[1]["id"]?.stringValue)
    let views = [resumed.next(timeout: 5), resumed.next(timeout: 5)]
    #expect(views.map { $0?.type } == ["screen.viewed", "screen.viewed"])
    #expect(views[0]?.cursor == all[3]["id"]?.stringValue)
    // CloudEvents: the type is dev.navstate.<type>.
    let cloud = try EventStreamClient(
      port: server.port, path: "/v1/feed/stream?format=cloudevents", token: Self.key)
    let first = cloud.next(timeout: 5)
    #expect(first?.type == "dev.navstate.session.started")
    #expect(first.flatMap { try? JSONParser.parse(Array($0.data.utf8)) }?["specversion"] == "1.0")
    // A cursor never issued is refused before the stream opens.
    let refused = try EventStreamClient(
      port: server.port, path: "/v1/feed/stream", token: Self.key, lastEventCursor: "nonsense")
    _ = refused.next(timeout: 2)
    #expect(refused.status == 400)
  }

  @Test("an idle feed stream gets heartbeats, as a session's stream does")
  func heartbeats() throws {
    let server = try TestApp(.live) {
      $0.store.backendKeys = try BackendKeys(fileContents: Array((Self.key + "\n").utf8))
      $0.store.heartbeatSeconds = 0.2
    }
    defer { server.stop() }
    let reader = try EventStreamClient(port: server.port, path: "/v1/feed/stream", token: Self.key)
    #expect(reader.next(timeout: 1.5) == nil)
    #expect(reader.status == 200)
    // The opening comment, then at least two heartbeats in 1.5 s.
    #expect(reader.comments >= 3, "\(reader.comments) comments")
  }

  @Test("a reader slower than the writers falls behind and catches up: no item lost, none twice")
  func slowReader() throws {
    let server = try FeedTests.app(.live)
    defer { server.stop() }
    let session = try server.session()
    let reader = try EventStreamClient(port: server.port, path: "/v1/feed/stream", token: Self.key)
    // Two items a change, about 300 bytes each: several times what the stream may hold unsent.
    for step in 0..<3000 {
      let answer = try session.call(
        step % 2 == 0 ? "push" : "pop",
        step % 2 == 0 ? ["route": "detail", "params": ["id": .int(step)]] : [:])
      #expect(answer.status == 200)
    }
    let expected = try FeedTests.items(server)
    #expect(expected.count == 2 + 3000 * 2)
    var received: [ReceivedEvent] = []
    while received.count < expected.count, let event = reader.next(timeout: 10) {
      received.append(event)
    }
    #expect(received.count == expected.count)
    #expect(received.map(\.cursor) == expected.map { $0["id"]?.stringValue })
  }

  @Test(
    "kill -9 with a reader attached, four rounds: every item of every acknowledged change, once, in order",
    arguments: ["everysec", "always"])
  func crashRounds(fsync: String) throws {
    let folder = try Folder()
    defer { folder.remove() }
    let arguments = [
      "--data-dir", folder.data, "--fsync", fsync, "--backend-key-file", folder.keyFile,
      "--snapshot-interval", "1",
    ]
    var sessions: [(id: String, token: String)] = []
    var seen: [Seen] = []
    var acknowledged: [Int] = []
    for round in 0..<4 {
      let server = try ServerProcess(arguments)
      if round == 0 {
        for _ in 0..<3 {
          let session = try TestSession(server.client)
          sessions.append((session.id, session.token))
          acknowledged.append(1)
        }
      }
      // The reader goes on from the last cursor it saw, by the stream, until the server dies.
      let lastCursor = seen.last?.cursor
      let streamed = Mutex<[Seen]>([])
      let group = DispatchGroup()
      group.enter()
      Thread {
        defer { group.leave() }
        guard
          let reader = try? EventStreamClient(
            port: server.port, path: "/v1/feed/stream", token: Self.key,
            lastEventCursor: lastCursor)
        else { return }
        while let event = reader.next(timeout: 8) {
          if let item = Self.parse(event) { streamed.withLock { $0.append(item) } }
        }
      }.start()
      let latest = Mutex(acknowledged)
      for (index, session) in sessions.enumerated() {
        group.enter()
        Thread {
          defer { group.leave() }
          let client = TestSession(client: server.client, id: session.id, token: session.token)
          // Version 1 shows master: an odd version pushes next, an even one pops.
          var step = latest.withLock { $0[index] } - 1
          while true {
            // Now and then a change the server refuses: it must leave no item.
            if step % 7 == 3 {
              guard let refused = try? client.call("push", ["route": "nowhere"]),
                refused.status == 422
              else { return }
            }
            let answer = try? client.call(
              step % 2 == 0 ? "push" : "pop",
              step % 2 == 0 ? ["route": "detail", "params": ["id": .int(step)]] : [:])
            guard let answer, answer.status == 200, let version = answer.json["version"]?.intValue
            else { return }
            latest.withLock { $0[index] = version }
            step += 1
          }
        }.start()
      }
      usleep(useconds_t(600_000 + round * 150_000))
      kill(server.process.processIdentifier, SIGKILL)
      server.process.waitUntilExit()
      #expect(group.wait(timeout: .now() + 30) == .success)
      acknowledged = latest.withLock { $0 }
      let live = streamed.withLock { $0 }
      #expect(!live.isEmpty, "round \(round): the stream delivered items before the kill")
      seen += live
      // After the restart the reader pulls the rest from its last cursor.
      let restarted = try ServerProcess(arguments)
      seen += try Self.pull(restarted.client, after: seen.last?.cursor)
      for (index, session) in sessions.enumerated() {
        let client = TestSession(client: restarted.client, id: session.id, token: session.token)
        let version = try client.get().json["version"]?.intValue ?? 0
        #expect(version == acknowledged[index] || version == acknowledged[index] + 1)
        acknowledged[index] = version
      }
      #expect(restarted.stop() == 0)
      // Once each, in order.
      let places = seen.map { Self.place($0.cursor) }
      #expect(places == places.sorted() && Set(places).count == places.count, "round \(round)")
      // Per session: a start, then one screen.viewed per version, alternating push and pop.
      for (index, session) in sessions.enumerated() {
        let views = seen.filter {
          $0.json["session"]?.stringValue == session.id && $0.json["type"] == "screen.viewed"
        }
        #expect(
          views.count == acknowledged[index],
          "round \(round), session \(index): \(views.count) views for version \(acknowledged[index])"
        )
        let transitions = views.dropFirst().map { $0.json["transition"]?.stringValue ?? "" }
        let expected = (0..<transitions.count).map { $0 % 2 == 0 ? "push" : "pop" }
        #expect(
          transitions == expected,
          "round \(round), session \(index): \(zip(transitions, expected).filter { $0 != $1 }.count) out of turn"
        )
      }
    }
    #expect(acknowledged.allSatisfy { $0 > 5 }, "the load made changes: \(acknowledged)")
  }

  @Test(
    "a graceful restart keeps the feed whole (snapshots move its items to feed files), and numbering goes on"
  )
  func gracefulRestart() throws {
    let folder = try Folder()
    defer { folder.remove() }
    let arguments = ["--data-dir", folder.data, "--backend-key-file", folder.keyFile]
    let server = try ServerProcess(arguments)
    let session = try TestSession(server.client)
    for step in 0..<20 {
      let answer = try session.call(
        step % 2 == 0 ? "push" : "pop",
        step % 2 == 0 ? ["route": "detail", "params": ["id": .int(step)]] : [:])
      #expect(answer.status == 200)
    }
    let before = try Self.pull(server.client, after: nil)
    #expect(before.count == 42)
    #expect(server.stop() == 0)
    let files = try FileManager.default.contentsOfDirectory(atPath: folder.data)
    #expect(files.contains { $0.hasPrefix("feed.") }, "\(files)")
    #expect(files.contains("feed-epoch"))
    let restarted = try ServerProcess(arguments)
    let after = try Self.pull(restarted.client, after: nil)
    #expect(after.map(\.json) == before.map(\.json))
    let again = TestSession(client: restarted.client, id: session.id, token: session.token)
    #expect(try again.call("push", ["route": "detail", "params": ["id": 99]]).status == 200)
    let newer = try Self.pull(restarted.client, after: before.last?.cursor)
    #expect(newer.map { $0.json["type"]?.stringValue } == ["screen.left", "screen.viewed"])
    #expect(Self.place(newer[0].cursor) > Self.place(before.last?.cursor ?? ""))
    // The time on screen goes on from before the restart.
    #expect((newer[0].json["durationMs"]?.intValue ?? -1) >= 0)
    #expect(restarted.stop() == 0)
    // Without the directory, a new server's feed never issued the old cursors.
    let fresh = try ServerProcess(["--backend-key-file", folder.keyFile])
    defer { _ = fresh.stop() }
    let unknown = try fresh.client.json(
      "GET", "/v1/feed?after=\(before.last?.cursor ?? "")", token: Self.key)
    #expect(unknown.status == 400)
    #expect(unknown.code == "invalid_cursor")
  }
}

/// `deploy/feed-consumer`, the feed's example consumer: killed and started again, it has every
/// item once, in order.
@Suite("The feed's example consumer")
struct FeedConsumerTests {
  private static let script = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("deploy/feed-consumer").path

  private func lines(_ path: String) -> [String] {
    let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    return text.split(separator: "\n").map(String.init)
  }

  private func start(_ server: ServerProcess, keyFile: String, output: String) throws -> Process {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [
      "python3", Self.script, "--url", "http://127.0.0.1:\(server.port)", "--key-file", keyFile,
      "--output", output,
    ]
    process.standardError = FileHandle.nullDevice
    try ChildProcesses.run(process, killAfter: 60)
    return process
  }

  private func waitFor(_ count: Int, in path: String) -> Bool {
    let deadline = Date().addingTimeInterval(15)
    while Date() < deadline {
      if lines(path).count >= count { return true }
      usleep(20_000)
    }
    return false
  }

  @Test("kill -9 mid-stream, started again: every item once, in order")
  func resumesAfterKill() throws {
    let folder = NSTemporaryDirectory() + "navstate-consumer-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let keyFile = folder + "/backend-keys"
    try Data((FeedTests.key + "\n").utf8).write(to: URL(fileURLWithPath: keyFile))
    let output = folder + "/feed.jsonl"
    let server = try ServerProcess(["--backend-key-file", keyFile])
    defer { _ = server.stop() }
    let session = try TestSession(server.client)
    let consumer = try start(server, keyFile: keyFile, output: output)
    for step in 0..<200 {
      let answer = try session.call(
        step % 2 == 0 ? "push" : "pop",
        step % 2 == 0 ? ["route": "detail", "params": ["id": .int(step)]] : [:])
      #expect(answer.status == 200)
      if step == 60 {
        #expect(waitFor(20, in: output))
        kill(consumer.processIdentifier, SIGKILL)
        consumer.waitUntilExit()
      }
    }
    let expected = try FeedTests.pullAll(server.client)
    #expect(expected.count == 2 + 200 * 2)
    let again = try start(server, keyFile: keyFile, output: output)
    defer {
      kill(again.processIdentifier, SIGKILL)
      again.waitUntilExit()
    }
    #expect(waitFor(expected.count, in: output))
    usleep(200_000)
    let ids = lines(output).compactMap { try? JSONParser.parse(Array($0.utf8))["id"]?.stringValue }
    #expect(ids == expected)
  }
}
