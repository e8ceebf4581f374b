import Foundation
import NavJSON
import NavStateTestSupport
import NavStateTesting
import Testing

/// The feed in a cluster: each node serves the feed of the sessions it holds, its cursors name
/// it, and the proxy routes a feed request to the node its cursor (or `?node=`) names.
@Suite(
  "The backend feed in a cluster behind nginx",
  .enabled(if: LocalCluster.canRun, "nginx is not installed (Tests/run-all installs it)"))
struct FeedClusterTests {
  @Test("per node, routed by the cursor or ?node=; no node named is 400")
  func perNode() throws {
    let folder = NSTemporaryDirectory() + "navstate-feed-cluster-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let keyFile = folder + "/backend-keys"
    try Data((FeedTests.key + "\n").utf8).write(to: URL(fileURLWithPath: keyFile))
    let cluster = try LocalCluster(nodes: 2, options: ["--backend-key-file", keyFile])
    defer {
      cluster.stop()
      cluster.removeFiles()
    }
    var byNode: [String: [String]] = [:]
    for _ in 0..<6 {
      let session = try TestSession(cluster.client)
      byNode[String(session.id.prefix { $0 != "." }), default: []].append(session.id)
    }
    #expect(byNode.keys.sorted() == ["n1", "n2"], "creations go round-robin: \(byNode)")
    let unnamed = try cluster.client.json("GET", "/v1/feed", token: FeedTests.key)
    #expect(unnamed.status == 400)
    #expect(unnamed.json["code"] == "invalid_query")
    for node in ["n1", "n2"] {
      let page = try cluster.client.json(
        "GET", "/v1/feed?node=\(node)&limit=1", token: FeedTests.key)
      #expect(page.status == 200, "\(page.text)")
      let first = try #require(page.json["events"]?[0])
      #expect(first["id"]?.stringValue?.hasPrefix(node + ".") == true)
      // A cursor alone finds its node.
      let next = try #require(page.json["next"]?.stringValue)
      let rest = try cluster.client.json(
        "GET", "/v1/feed?after=\(next)&limit=1000", token: FeedTests.key)
      #expect(rest.status == 200)
      let sessions = Set(
        ([first] + (rest.json["events"]?.arrayValue ?? [])).compactMap {
          $0["session"]?.stringValue
        })
      #expect(sessions == Set(byNode[node] ?? []))
      // The funnel counts the node's sessions.
      let funnel = try cluster.client.json(
        "POST", "/v1/analytics/funnel?node=\(node)", token: FeedTests.key,
        body: ["graph": "demo", "steps": ["master", "detail"]])
      #expect(funnel.json["steps"]?[0]?["sessions"]?.intValue == byNode[node]?.count)
    }
    // A stream resumed with Last-Event-ID goes to the node that issued it.
    let n2 = try cluster.client.json("GET", "/v1/feed?node=n2&limit=1", token: FeedTests.key)
    let cursor = try #require(n2.json["next"]?.stringValue)
    let stream = try EventStreamClient(
      port: cluster.port, path: "/v1/feed/stream", token: FeedTests.key, lastEventCursor: cursor)
    let event = stream.next(timeout: 10)
    #expect(event?.cursor?.hasPrefix("n2.") == true)
    // A node asked directly for another's feed says so.
    let wrong = try HTTPTestClient(port: try cluster.port(ofNode: "n1")).json(
      "GET", "/v1/feed?node=n2", token: FeedTests.key)
    #expect(wrong.status == 400)
  }
}
