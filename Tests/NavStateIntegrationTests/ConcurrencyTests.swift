import Foundation
import NavJSON
import NavStateApp
import NavStateEngine
import NavStateTestSupport
import NavStateTesting
import Testing

#if canImport(Glibc)
  import Glibc
#endif

@Suite("Concurrency and expiry")
struct ConcurrencyTests {
  @Test("eight clients pushing and popping one session lose no update")
  func eightClients() async throws {
    // Every event of the run must stay in the log for the checks below.
    let server = try ServerProcess(["--event-buffer-bytes", "1048576"])
    defer { server.stop() }
    let session = try TestSession(server.client)
    let rounds = 25
    let client = server.client
    let (path, token) = (session.path, session.token)
    let outcomes = try await withThrowingTaskGroup(of: [Int].self) { group in
      for worker in 0..<8 {
        group.addTask {
          var statuses: [Int] = []
          for round in 0..<rounds {
            let push = try client.json(
              "POST", "\(path)/push", token: token,
              body: ["route": "detail", "params": ["id": .int(worker * 1000 + round)]])
            statuses.append(push.status)
            let pop = try client.json("POST", "\(path)/pop", token: token, body: [:])
            statuses.append(pop.status)
          }
          return statuses
        }
      }
      var all: [Int] = []
      for try await statuses in group { all += statuses }
      return all
    }
    let succeeded = outcomes.filter { $0 == 200 }.count
    // A pop may find nothing to pop when other clients popped first; nothing else may fail.
    #expect(outcomes.allSatisfy { $0 == 200 || $0 == 409 })
    let state = try session.get().json
    let version = try #require(state["version"]?.intValue)
    #expect(version == 1 + succeeded)
    // Every started coordinator was stopped or is still on the path: the log agrees with the state.
    let log = try server.client.json("GET", "\(path)/events?after=0", token: token).json
    let events = try #require(log["events"]?.arrayValue)
    let started = events.filter { $0["type"] == "coordinator.started" }.count
    let stopped = events.filter { $0["type"] == "coordinator.stopped" }.count
    let live = try #require(state["path"]?.arrayValue?.count)
    #expect(started - stopped == live)
    let seqs = events.compactMap { $0["seq"]?.intValue }
    try #require(!seqs.isEmpty, "the log kept no events")
    #expect(seqs == Array(1...seqs.count))
  }

  @Test("an idle session expires after --session-ttl", arguments: TestBackend.allCases)
  func expiry(backend: TestBackend) throws {
    let server = try TestApp(backend) { configuration in
      configuration.store.sessionTTLSeconds = 0.5
    }
    defer { server.stop() }
    let session = try TestSession(server.client)
    #expect(try session.get().status == 200)
    usleep(1_500_000)
    #expect(try session.get().status == 404)
  }
}

@Suite("If-Match races")
struct IfMatchRaceTests {
  @Test("of eight clients racing with the same If-Match, exactly one wins")
  func race() async throws {
    let server = try ServerProcess()
    defer { server.stop() }
    let session = try TestSession(server.client)
    let (client, path, token) = (server.client, session.path, session.token)
    let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
      for worker in 0..<8 {
        group.addTask {
          try client.json(
            "POST", "\(path)/push", token: token,
            body: ["route": "detail", "params": ["id": .int(worker)]],
            headers: [("If-Match", "\"1\"")]
          ).status
        }
      }
      var all: [Int] = []
      for try await status in group { all.append(status) }
      return all
    }
    #expect(statuses.filter { $0 == 200 }.count == 1)
    #expect(statuses.filter { $0 == 412 }.count == 7)
    #expect(try session.get().json["version"] == 2)
  }

  @Test(
    "DELETE with a stale If-Match is refused and the session lives on",
    arguments: TestBackend.allCases)
  func staleDelete(backend: TestBackend) throws {
    let server = try TestApp(backend)
    defer { server.stop() }
    let session = try TestSession(server.client)
    let refused = try server.client.json(
      "DELETE", session.path, token: session.token, headers: [("If-Match", "\"9\"")])
    #expect(refused.status == 412)
    #expect(try session.get().status == 200)
  }
}
