import Foundation
import NavJSON
import NavStateTestSupport
import NavStateTesting
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `deploy/nginx.conf.template` with a node that hangs (SIGSTOP) or is gone (SIGKILL): what
/// reached a node and got no answer in time is 504 `node_timeout` within the proxy's read
/// timeout (5 s; 2 s for creations and `/healthz`), what reached no node is 503
/// `node_unavailable`, and nothing else waits on the hung node.
@Suite(
  "A hung or dead node behind nginx", .serialized,
  .enabled(if: LocalCluster.canRun, "nginx is not installed (Tests/run-all installs it)"))
struct HungNodeTests {
  private static func node(of session: TestSession) -> String {
    String(session.id.prefix { $0 != "." })
  }

  private static func node(of created: TestResponse) -> String? {
    created.json["session"]?["id"]?.stringValue.map { String($0.prefix { $0 != "." }) }
  }

  /// The answer and the seconds it took.
  private static func timed(_ body: () throws -> TestResponse) rethrows -> (TestResponse, Double) {
    let start = Date()
    let response = try body()
    return (response, Date().timeIntervalSince(start))
  }

  /// One session on each of the cluster's nodes (creations go round-robin).
  private static func sessionOnEachNode(_ cluster: LocalCluster) throws -> [String: TestSession] {
    var sessions: [String: TestSession] = [:]
    for _ in 0..<(20 * cluster.nodeCount) where sessions.count < cluster.nodeCount {
      let session = try TestSession(cluster.client)
      if sessions[node(of: session)] == nil { sessions[node(of: session)] = session }
    }
    try #require(sessions.count == cluster.nodeCount, "no session on some node: \(sessions.keys)")
    return sessions
  }

  /// A gauge from one node's own /metrics (not through the proxy).
  private static func metric(_ name: String, of node: String, in cluster: LocalCluster) throws
    -> Int?
  {
    let text = try HTTPTestClient(port: cluster.port(ofNode: node)).request("GET", "/metrics").text
    let line = text.split(separator: "\n").first { $0.hasPrefix(name + " ") }
    return line.flatMap { Double($0.split(separator: " ").last ?? "") }.map { Int($0) }
  }

  private static func expectTimeoutProblem(_ answer: TestResponse, _ what: String) {
    #expect(answer.status == 504, "\(what): \(answer.status) \(answer.text)")
    #expect(answer.header("Content-Type") == "application/problem+json", "\(what)")
    #expect(answer.json["code"] == "node_timeout", "\(what)")
    #expect(answer.json["status"] == 504, "\(what)")
    #expect(answer.json["detail"]?.stringValue?.contains("Idempotency-Key") == true, "\(what)")
    #expect(answer.header("Retry-After") == nil, "\(what): a 504 is not a plain 'retry later'")
  }

  @Test(
    "a stopped node: its requests answer 504 node_timeout in seconds, creations and /healthz go to the other nodes; resumed, it had applied the push and replays it to a retry with its Idempotency-Key"
  )
  func stoppedNode() throws {
    let cluster = try LocalCluster(nodes: 3)
    defer {
      cluster.stop()
      cluster.removeFiles()
    }
    let sessions = try Self.sessionOnEachNode(cluster)
    let hung = try #require(sessions["n2"])
    let before = try #require(try hung.get().json["version"]?.intValue)
    let sessionsBefore = try #require(
      try Self.metric("navstate_live_sessions", of: "n2", in: cluster))

    try cluster.pause(node: "n2")
    defer { try? cluster.resume(node: "n2") }

    // (1) A request to the stopped node's session: 504 after the 5 s read timeout, not 60 s.
    let key = UUID().uuidString
    let pushWithKey = {
      try hung.call(
        "push", ["route": "detail", "params": ["id": 1]], headers: [("Idempotency-Key", key)])
    }
    let (push, pushTime) = try Self.timed(pushWithKey)
    Self.expectTimeoutProblem(push, "push to the stopped node")
    #expect(pushTime < 10, "the push waited \(pushTime) s")
    let (get, getTime) = try Self.timed { try hung.get() }
    Self.expectTimeoutProblem(get, "GET of the stopped node's session")
    #expect(getTime < 10, "the GET waited \(getTime) s")
    // The JSON catch-up is an ordinary request too (only the event stream waits long).
    let (catchUp, catchUpTime) = try Self.timed {
      try cluster.client.json("GET", "\(hung.path)/events?after=0", token: hung.token)
    }
    Self.expectTimeoutProblem(catchUp, "GET .../events of the stopped node's session")
    #expect(catchUpTime < 10, "the catch-up waited \(catchUpTime) s")

    // (2) Creations: the one that lands on the stopped node answers 504 after 2 s and leaves
    // the node out; the others are made on the other nodes, none waiting long.
    var creationTimes: [Double] = []
    var timeouts = 0
    for _ in 0..<8 {
      let (created, time) = try Self.timed { try cluster.client.json("POST", "/v1/sessions") }
      creationTimes.append(time)
      #expect(time < 5, "a creation waited \(time) s")
      if created.status == 504 {
        timeouts += 1
        Self.expectTimeoutProblem(created, "creation")
      } else {
        #expect(created.status == 201, "\(created.status) \(created.text)")
        #expect(Self.node(of: created) != "n2")
      }
    }
    #expect(timeouts <= 1, "\(timeouts) creations waited for the stopped node")

    // (3) /healthz answers, from a node that runs.
    var healthTimes: [Double] = []
    for _ in 0..<3 {
      let (health, time) = try Self.timed { try cluster.client.request("GET", "/healthz") }
      healthTimes.append(time)
      #expect(health.status == 200)
      #expect(time < 5, "/healthz waited \(time) s")
    }

    // The other nodes' sessions are untouched and answer at once.
    for name in ["n1", "n3"] {
      let session = try #require(sessions[name])
      let (answer, time) = try Self.timed {
        try session.call("push", ["route": "detail", "params": ["id": 2]])
      }
      #expect(answer.status == 200)
      #expect(time < 2, "a push to \(name) waited \(time) s")
    }
    print(
      "stopped node: push 504 after \(pushTime) s, GET 504 after \(getTime) s, catch-up 504 after \(catchUpTime) s; creations \(creationTimes) s (\(timeouts) 504); /healthz \(healthTimes) s"
    )

    // (4) Resumed, the node serves its sessions again.
    try cluster.resume(node: "n2")
    let deadline = Date().addingTimeInterval(30)
    var after = try hung.get()
    while after.status != 200, Date() < deadline {
      usleep(50_000)
      after = try hung.get()
    }
    #expect(after.status == 200)
    // The push nginx stopped waiting for was in the node's socket, and the node applies it now
    // that it runs again (in its own time: requests on other connections may come first): a 503
    // "not applied" would have been false, and a blind retry would push twice.
    let applied = Date().addingTimeInterval(10)
    while after.json["version"]?.intValue == before, Date() < applied {
      usleep(50_000)
      after = try hung.get()
    }
    #expect(after.json["version"]?.intValue == before + 1)
    #expect(TestSession.routes(after) == ["master", "detail"])
    // Every creation was sent to one node only: the stopped node made a session for each
    // creation that answered 504 (which nobody holds), and none for one answered 201 by
    // another node after it.
    var sessionsAfter = try Self.metric("navstate_live_sessions", of: "n2", in: cluster)
    let settled = Date().addingTimeInterval(5)
    while sessionsAfter != sessionsBefore + timeouts, Date() < settled {
      usleep(50_000)
      sessionsAfter = try Self.metric("navstate_live_sessions", of: "n2", in: cluster)
    }
    #expect(sessionsAfter == sessionsBefore + timeouts)

    // What a client does with a 504: the same request with the same Idempotency-Key, answered
    // as the first time (the node decided it when it ran again) and not applied twice.
    var retry = try pushWithKey()
    let decided = Date().addingTimeInterval(5)
    while retry.status == 409, retry.json["code"] == "idempotency_key_in_use", Date() < decided {
      usleep(100_000)
      retry = try pushWithKey()
    }
    #expect(retry.status == 200, "\(retry.text)")
    #expect(retry.header("Idempotent-Replayed") == "true")
    #expect(retry.json["version"]?.intValue == before + 1)
    #expect(try hung.get().json["version"]?.intValue == before + 1)
  }

  @Test(
    "a killed node: a push to its session is 503 node_unavailable at once and was not applied; event streams to it are 503 problems"
  )
  func killedNode() throws {
    let cluster = try LocalCluster(nodes: 2, options: ["--fsync", "always"])
    defer {
      cluster.stop()
      cluster.removeFiles()
    }
    // The session is made through navstate_any and nothing else goes to n2 through the proxy
    // before the crash, so nginx holds no kept-alive connection to it: the push below must
    // connect, and is refused. (One sent on a kept-alive connection that the crash has just
    // closed is a 504: sent without an answer, which nginx cannot tell from a node that died
    // after reading it.)
    let gone = try #require(try Self.sessionOnEachNode(cluster)["n2"])
    let before = gone.created
    try cluster.crash(node: "n2")

    let (push, pushTime) = try Self.timed {
      try gone.call("push", ["route": "detail", "params": ["id": 2]])
    }
    #expect(push.status == 503)
    #expect(push.header("Content-Type") == "application/problem+json")
    #expect(push.json["code"] == "node_unavailable")
    #expect(push.json["detail"]?.stringValue?.contains("not applied") == true)
    #expect(push.header("Retry-After") == "5")
    #expect(pushTime < 2, "the push waited \(pushTime) s")
    #expect(try gone.call("pop").status == 503)
    // Both ways to ask for the stream, through the stream's own locations.
    for path in ["\(gone.path)/events/stream", "\(gone.path)/events"] {
      let stream = try cluster.client.request(
        "GET", path,
        headers: [("Accept", "text/event-stream"), ("Authorization", "Bearer \(gone.token)")])
      #expect(stream.status == 503, "\(path)")
      #expect(stream.header("Content-Type") == "application/problem+json", "\(path)")
      #expect(stream.json["code"] == "node_unavailable", "\(path)")
    }

    // Back on its data directory (every change written with --fsync always): exactly the state
    // before the crash, so none of the 503 requests reached it.
    cluster.restartStoppedNodes()
    let deadline = Date().addingTimeInterval(60)
    var after = try gone.get()
    while after.status != 200, Date() < deadline {
      usleep(50_000)
      after = try gone.get()
    }
    #expect(after.status == 200)
    #expect(after.json["version"] == before.json["session"]?["version"])
    #expect(TestSession.routes(after) == TestSession.routes(before))
    #expect(TestSession.routes(after) == ["master"])
  }

  @Test("event streams through the proxy outlive its 5 s read timeout, by either path")
  func streamsOutliveReadTimeout() throws {
    // The default heartbeat (15 s) sends nothing in the 7 s below, so a stream cut by the
    // ordinary read timeout would end before the push.
    let cluster = try LocalCluster(nodes: 1)
    defer {
      cluster.stop()
      cluster.removeFiles()
    }
    let session = try TestSession(cluster.client)
    let streams = try ["\(session.path)/events/stream", "\(session.path)/events"].map {
      try EventStreamClient(port: cluster.port, path: $0, token: session.token)
    }
    for stream in streams {
      #expect(try #require(stream.next(timeout: 5)).type == "reset")
      #expect(stream.status == 200)
    }
    sleep(7)
    #expect(try session.call("push", ["route": "detail", "params": ["id": 7]]).status == 200)
    for stream in streams {
      let event = stream.next(timeout: 2)
      #expect(event?.type == "coordinator.started", "ended: \(stream.ended)")
    }
    // Without text/event-stream, GET .../events stays the JSON catch-up.
    let catchUp = try cluster.client.json(
      "GET", "\(session.path)/events?after=0", token: session.token)
    #expect(catchUp.status == 200)
    #expect(catchUp.header("Content-Type")?.hasPrefix("application/json") == true)
  }
}
