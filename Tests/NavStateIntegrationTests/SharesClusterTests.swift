import Foundation
import NavJSON
import NavStateTestSupport
import NavStateTesting
import Testing

/// Shares in a cluster: a share lives on its session's node like the rest of the session, and a
/// handoff code, which names no node, is found by asking every node in turn.
@Suite(
  "Shares in a cluster behind nginx",
  .enabled(if: LocalCluster.canRun, "nginx is not installed (Tests/run-all installs it)"))
struct SharesClusterTests {
  @Test("shares and their tokens route with the session; a code redeems through the proxy, once")
  func handoffThroughProxy() throws {
    let cluster = try LocalCluster(nodes: 3)
    defer {
      cluster.stop()
      cluster.removeFiles()
    }
    var redeemedOn: Set<String> = []
    for _ in 0..<6 {
      let session = try TestSession(cluster.client)
      let answer = try cluster.client.json(
        "POST", "\(session.path)/shares", token: session.token,
        body: ["mode": "drive", "label": "iPad", "code": true])
      #expect(answer.status == 201, "\(answer.text)")
      let code = try #require(answer.json["code"]?.stringValue)
      let redeemed = try cluster.client.json("POST", "/v1/handoffs", body: ["code": .string(code)])
      #expect(redeemed.status == 200, "\(redeemed.text)")
      #expect(redeemed.json["session"]?["id"] == .string(session.id))
      redeemedOn.insert(String(session.id.prefix { $0 != "." }))
      let token = try #require(redeemed.json["token"]?.stringValue)
      #expect(
        try cluster.client.json(
          "POST", "\(session.path)/push", token: token,
          body: ["route": "detail", "params": ["id": 1]]
        )
        .status == 200)
      let again = try cluster.client.json("POST", "/v1/handoffs", body: ["code": .string(code)])
      #expect(again.status == 404)
      #expect(again.code == "unknown_code")
    }
    #expect(redeemedOn.count >= 2, "codes of sessions on several nodes: \(redeemedOn)")
  }
}
