import Foundation
import NavJSON
import NavStateTestSupport
import NavStateTesting
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `deploy/local-cluster` and `deploy/nginx.conf.template`: nodes behind nginx, routed by the
/// node name that starts every session id.
@Suite(
  "A cluster behind nginx", .serialized,
  .enabled(if: LocalCluster.canRun, "nginx is not installed (Tests/run-all installs it)"))
struct ClusterTests {
  private static func node(of session: TestSession) -> String {
    String(session.id.prefix { $0 != "." })
  }

  private static func withoutExpiry(_ response: TestResponse) -> JSONValue? {
    guard case .object(var object) = response.json else { return nil }
    object.members.removeAll { $0.key == "expiresAt" }
    return .object(object)
  }

  @Test("the seed apps' scenarios work through the proxy; an id of no node is a plain 404")
  func seedScenarios() throws {
    let cluster = try LocalCluster(nodes: 2)
    defer {
      cluster.stop()
      cluster.removeFiles()
    }
    for scenario in SeedScenarios.all {
      try scenario.run(cluster.client)
    }
    // Every node answers an id it does not own as it answers an unknown session.
    let session = try TestSession(cluster.client)
    let unowned = "n9." + session.id.split(separator: ".")[1]
    let viaProxy = try cluster.client.json("GET", "/v1/sessions/\(unowned)", token: session.token)
    let direct = try HTTPTestClient(port: cluster.port(ofNode: "n1")).json(
      "GET", "/v1/sessions/\(unowned)", token: session.token)
    #expect(viaProxy.status == 404)
    #expect(viaProxy.json["code"] == "session_not_found")
    #expect(viaProxy.text == direct.text)
  }

  @Test("the proxy's own refusals are problem documents, as a node's are")
  func proxyProblems() throws {
    let cluster = try LocalCluster(nodes: 1)
    defer {
      cluster.stop()
      cluster.removeFiles()
    }
    let session = try TestSession(cluster.client)
    // Over nginx's client_max_body_size (1 MiB), so nginx answers before any node reads it.
    let tooLarge = try cluster.client.request(
      "POST", "\(session.path)/push",
      headers: [
        ("Authorization", "Bearer \(session.token)"), ("Content-Type", "application/json"),
      ],
      body: Array(repeating: UInt8(ascii: " "), count: 2 << 20))
    #expect(tooLarge.status == 413)
    #expect(tooLarge.header("Content-Type") == "application/problem+json")
    #expect(tooLarge.json["code"] == "payload_too_large")
    // Metrics are per node: the proxy does not answer one node's as the cluster's.
    let metrics = try cluster.client.request("GET", "/metrics")
    #expect(metrics.status == 404)
    #expect(metrics.header("Content-Type") == "application/problem+json")
    #expect(metrics.json["code"] == "not_found")
  }

  @Test("an event stream through the proxy delivers each event as it happens")
  func eventStream() throws {
    let cluster = try LocalCluster(nodes: 2)
    defer {
      cluster.stop()
      cluster.removeFiles()
    }
    let session = try TestSession(cluster.client)
    let stream = try EventStreamClient(
      port: cluster.port, path: "\(session.path)/events/stream", token: session.token)
    let reset = try #require(stream.next(timeout: 5))
    #expect(reset.type == "reset")
    #expect(stream.status == 200)
    _ = try session.call("push", ["route": "detail", "params": ["id": 7]])
    // Not held back by the proxy's buffers: the push's event arrives on its own, at once.
    let started = try #require(stream.next(timeout: 2), "no event within 2 s of the push")
    #expect(started.type == "coordinator.started")
    #expect(started.data.contains("\"route\":\"detail\""))
    _ = try session.call("pop")
    let stopped = try #require(stream.next(timeout: 2))
    #expect(stopped.type == "coordinator.stopped")
  }

  @Test("creations are spread over every node")
  func creationsSpread() throws {
    let cluster = try LocalCluster(nodes: 3)
    defer {
      cluster.stop()
      cluster.removeFiles()
    }
    var counts: [String: Int] = [:]
    for _ in 0..<30 {
      counts[Self.node(of: try TestSession(cluster.client)), default: 0] += 1
    }
    #expect(Set(counts.keys) == ["n1", "n2", "n3"])
    // Round-robin in each nginx worker: close to 10 each, whichever worker takes a connection.
    #expect(counts.values.allSatisfy { $0 >= 6 }, "\(counts)")
  }

  @Test(
    "a killed node's sessions answer 503 problems, the others are untouched; restarted, its sessions are back"
  )
  func nodeDownAndBack() throws {
    let cluster = try LocalCluster(nodes: 3, options: ["--fsync", "always"])
    defer {
      cluster.stop()
      cluster.removeFiles()
    }
    var sessions: [TestSession] = []
    while Set(sessions.map(Self.node)).count < 3 || sessions.count < 9 {
      let session = try TestSession(cluster.client)
      _ = try session.call("push", ["route": "detail", "params": ["id": .int(sessions.count)]])
      sessions.append(session)
    }
    let states = try sessions.map { Self.withoutExpiry(try $0.get()) }
    try cluster.crash(node: "n2")
    // nginx may still hold a kept-alive connection to n2 that the crash has just closed: a
    // request sent on it gets no answer, which nginx cannot tell from a node that died after
    // reading it (504 node_timeout). Once those are gone, every request to n2 is refused at the
    // connect: 503 node_unavailable.
    let probe = try #require(sessions.first { Self.node(of: $0) == "n2" })
    let settled = Date().addingTimeInterval(5)
    while try probe.get().status != 503, Date() < settled { usleep(20_000) }

    for (index, session) in sessions.enumerated() {
      let answer = try session.get()
      if Self.node(of: session) == "n2" {
        #expect(answer.status == 503)
        #expect(answer.header("Content-Type") == "application/problem+json")
        #expect(answer.json["code"] == "node_unavailable")
        #expect(answer.json["status"] == 503)
        #expect(answer.header("Retry-After") == "5")
      } else {
        #expect(answer.status == 200)
        #expect(Self.withoutExpiry(answer) == states[index])
        #expect(try session.call("present", ["route": "settings"]).status == 200)
      }
    }
    // New sessions go to the nodes that answer, none refused.
    for _ in 0..<6 {
      let session = try TestSession(cluster.client)
      #expect(Self.node(of: session) != "n2")
    }

    cluster.restartStoppedNodes()
    let deadline = Date().addingTimeInterval(60)
    let first = try #require(sessions.first { Self.node(of: $0) == "n2" })
    while try first.get().status != 200, Date() < deadline { usleep(50_000) }
    for (index, session) in sessions.enumerated() where Self.node(of: session) == "n2" {
      let answer = try session.get()
      #expect(answer.status == 200)
      #expect(Self.withoutExpiry(answer) == states[index])
      // The same token still works for changes.
      #expect(try session.call("pop").status == 200)
    }
  }

  @Test("SIGTERM stops every node and nginx; a start on the same folder brings the sessions back")
  func stopAndStartAgain() throws {
    let cluster = try LocalCluster(nodes: 2)
    defer { cluster.removeFiles() }
    let sessions = try (0..<4).map { _ in try TestSession(cluster.client) }
    for session in sessions {
      _ = try session.call("push", ["route": "detail", "params": ["id": 3]])
    }
    let states = try sessions.map { Self.withoutExpiry(try $0.get()) }
    let pids = try ["n1", "n2"].map { try cluster.pid(ofNode: $0) }
    #expect(cluster.stop() == 0)
    for pid in pids {
      #expect(kill(pid, 0) != 0, "node \(pid) still runs")
    }
    #expect(throws: (any Error).self) { try cluster.client.request("GET", "/healthz", timeout: 1) }

    let again = try LocalCluster(nodes: 2, folder: cluster.folder)
    defer { again.stop() }
    for (index, session) in sessions.enumerated() {
      let restored = TestSession(client: again.client, id: session.id, token: session.token)
      let answer = try restored.get()
      #expect(answer.status == 200)
      #expect(Self.withoutExpiry(answer) == states[index])
    }
  }
}
