import Dispatch
import Foundation
import NavJSON
import NavStateTestSupport
import NavStateTesting
import Synchronization
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `--data-dir` under crashes, full disks and missing files: nothing answered 2xx is lost, and a
/// directory that lost a file does not start as if nothing happened.
@Suite("Durability")
struct DurabilityTests {
  private func temporaryDirectory() -> String {
    NSTemporaryDirectory() + "navstate-durability-\(UUID().uuidString)"
  }

  private func killHard(_ server: ServerProcess) {
    kill(server.process.processIdentifier, SIGKILL)
    server.process.waitUntilExit()
  }

  /// The snapshot's session records, each exactly as written, in byte order (sessions are
  /// written shard by shard, and a shard's order differs between processes). The header, which
  /// names the journal generation, new at each stop, is left out.
  private func snapshotSessions(_ path: String) throws -> [[UInt8]] {
    let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path + "/snapshot")))
    var records: [[UInt8]] = []
    var offset = 0
    while offset + 8 <= bytes.count {
      let length = (0..<4).reduce(0) { $0 | Int(bytes[offset + $1]) << (8 * $1) }
      records.append(Array(bytes[offset..<offset + 8 + length]))
      offset += 8 + length
    }
    #expect(offset == bytes.count)
    return records.dropFirst().sorted { $0.lexicographicallyPrecedes($1) }
  }

  @Test("a graceful restart writes back byte for byte the sessions it read")
  func gracefulRestartIsExact() throws {
    let path = temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: path) }
    let first = try ServerProcess(["--data-dir", path])
    for index in 0..<5 {
      let session = try TestSession(first.client)
      _ = try session.call(
        "push", ["route": "detail", "params": ["id": .int(index)]],
        headers: [("Idempotency-Key", "k\(index)")])
      _ = try session.call("present", ["route": "settings"])
      _ = try session.call("pop", [:], headers: [("Idempotency-Key", "refused")])
    }
    #expect(first.stop() == 0)
    let written = try snapshotSessions(path)
    let second = try ServerProcess(["--data-dir", path])
    #expect(second.stop() == 0)
    #expect(try snapshotSessions(path) == written)
  }

  @Test("a missing or dangling snapshot stops start-up with status 65, naming it")
  func missingSnapshot() throws {
    for dangling in [false, true] {
      let path = temporaryDirectory()
      defer { try? FileManager.default.removeItem(atPath: path) }
      let first = try ServerProcess(["--data-dir", path])
      _ = try TestSession(first.client)
      #expect(first.stop() == 0)
      try FileManager.default.removeItem(atPath: path + "/snapshot")
      if dangling {
        try FileManager.default.createSymbolicLink(
          atPath: path + "/snapshot", withDestinationPath: path + "/elsewhere")
      }
      let outcome = try ProcessTests.runToExit(
        ["--port", "0", "--data-dir", path], stopAfterStart: true)
      #expect(outcome.status == 65, "dangling: \(dangling)")
      #expect(outcome.errors.contains("\(path)/snapshot"), "\(outcome.errors)")
    }
  }

  @Test("a missing journal file stops start-up with status 65, naming it")
  func missingJournal() throws {
    let path = temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: path) }
    let first = try ServerProcess(["--data-dir", path])
    let session = try TestSession(first.client)
    #expect(first.stop() == 0)
    // The snapshot names journal.1; this start writes journal.2.
    let second = try ServerProcess(["--data-dir", path, "--fsync", "always"])
    let resumed = TestSession(client: second.client, id: session.id, token: session.token)
    #expect(try resumed.call("push", ["route": "detail", "params": ["id": 1]]).status == 200)
    killHard(second)
    try FileManager.default.removeItem(atPath: path + "/journal.1")
    let outcome = try ProcessTests.runToExit(
      ["--port", "0", "--data-dir", path], stopAfterStart: true)
    #expect(outcome.status == 65)
    #expect(outcome.errors.contains("\(path)/journal.1 is missing"), "\(outcome.errors)")
  }

  @Test("kill -9 under concurrent load, five rounds: every acknowledged change is there")
  func crashRounds() throws {
    let path = temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: path) }
    let arguments = ["--data-dir", path, "--fsync", "always", "--snapshot-interval", "0"]
    var sessions: [(id: String, token: String)] = []
    var acknowledged: [Int] = []
    for round in 0..<5 {
      let server = try ServerProcess(arguments)
      if round == 0 {
        for _ in 0..<4 {
          let session = try TestSession(server.client)
          sessions.append((session.id, session.token))
          acknowledged.append(1)
        }
      }
      // Each worker pushes and pops on its own session until the server is gone.
      let latest = Mutex(acknowledged)
      let group = DispatchGroup()
      for (index, session) in sessions.enumerated() {
        group.enter()
        // Threads of their own: Swift Testing's pool runs other tests on its few threads.
        Thread {
          defer { group.leave() }
          let client = TestSession(client: server.client, id: session.id, token: session.token)
          var step = 0
          while true {
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
      usleep(useconds_t(500_000 + round * 100_000))
      killHard(server)
      #expect(group.wait(timeout: .now() + 20) == .success)
      acknowledged = latest.withLock { $0 }

      let restarted = try ServerProcess(arguments)
      for (index, session) in sessions.enumerated() {
        let client = TestSession(client: restarted.client, id: session.id, token: session.token)
        let version = try client.get().json["version"]?.intValue ?? 0
        // The change in flight when the server died may have been recorded, not answered.
        #expect(
          version == acknowledged[index] || version == acknowledged[index] + 1,
          "round \(round), session \(index): \(version), acknowledged \(acknowledged[index])")
        acknowledged[index] = version
      }
      #expect(restarted.stop() == 0)
    }
    #expect(acknowledged.allSatisfy { $0 > 5 }, "the load made changes: \(acknowledged)")
  }

  @Test(
    "a full disk (a 2 MiB tmpfs) loses no acknowledged change, refuses changes until there is room, and leaves a directory that starts",
    .enabled(if: getuid() == 0, "mounting a tmpfs needs root (CI runs as root)"),
    arguments: ["always", "everysec"])
  func fullDisk(fsync: String) throws {
    let mountPoint = temporaryDirectory()
    try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: false)
    defer { try? FileManager.default.removeItem(atPath: mountPoint) }
    try run("/bin/mount", ["-t", "tmpfs", "-o", "size=2m", "tmpfs", mountPoint])
    defer { _ = try? run("/bin/umount", [mountPoint]) }
    // Room to give back later, as an operator would by deleting something.
    let filler = mountPoint + "/filler"
    try Data(count: 256 * 1024).write(to: URL(fileURLWithPath: filler))
    let path = mountPoint + "/data"
    let arguments = ["--data-dir", path, "--fsync", fsync, "--snapshot-interval", "0"]
    let server = try ServerProcess(arguments)
    let filled = try TestSession(server.client)
    let deleted = try TestSession(server.client)
    let big = String(repeating: "x", count: 4000)
    var version = 1
    var refused: TestResponse?
    for step in 0..<2000 {
      let answer = try filled.call(
        step % 2 == 0 ? "push" : "pop",
        step % 2 == 0
          ? ["route": "detail", "params": ["id": .int(step)]] : ["result": .string(big)])
      if answer.status != 200 {
        refused = answer
        break
      }
      version = answer.json["version"]?.intValue ?? version
    }
    #expect(refused?.status == 503)
    #expect(refused?.json["code"] == "journal_unavailable")
    #expect(try filled.get().json["version"]?.intValue == version, "the refused change was undone")
    // Still full: refused again, not a hang and not a crash.
    let again = try filled.call("pop", ["result": .string(big)])
    #expect(again.status == 503)
    // A deletion is decided by the journal too: whatever was answered must hold after restart.
    let deletion = try server.client.json("DELETE", deleted.path, token: deleted.token)
    #expect(deletion.status == 204 || deletion.status == 503)
    // Room again: changes are accepted without a restart.
    try FileManager.default.removeItem(atPath: filler)
    let recovered = try filled.call("pop", ["result": .string(big)])
    #expect(recovered.status == 200)
    let finalVersion = recovered.json["version"]?.intValue ?? 0
    #expect(finalVersion == version + 1)
    #expect(server.stop() == 0)

    // The files, moved to a roomy disk, start and hold every acknowledged change.
    let roomy = temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: roomy) }
    try FileManager.default.copyItem(atPath: path, toPath: roomy)
    try? FileManager.default.removeItem(atPath: roomy + "/lock")
    let moved = try ServerProcess(["--data-dir", roomy])
    defer { moved.stop() }
    let back = TestSession(client: moved.client, id: filled.id, token: filled.token)
    #expect(try back.get().json["version"]?.intValue == finalVersion)
    let other = TestSession(client: moved.client, id: deleted.id, token: deleted.token)
    #expect(try other.get().status == (deletion.status == 204 ? 404 : 200))
  }

  private func run(_ executable: String, _ arguments: [String]) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    try process.run()
    process.waitUntilExit()
    try #require(process.terminationStatus == 0, "\(executable) \(arguments) failed")
  }
}
