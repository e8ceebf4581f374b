import Foundation
import NavJSON
import NavStateTestSupport
import NavStateTesting
import Synchronization
import Testing

/// Graph loads are one atomic step: whatever races (two PUTs of one version, with the same or
/// other JSON), what is answered, what is served and what the data directory keeps are the same
/// version and bytes, and the next start reads them back.
extension GraphVersionTests {
  @Test(
    "concurrent PUTs of one version: one 201, the others 409, the winner served, saved and restored"
  )
  func concurrentLoads() throws {
    let folder = try Folder()
    defer { folder.remove() }
    let data = folder.path + "/data"
    let first = try Self.backendServer(folder, ["--data-dir", data])
    let port = first.port
    for version in 2...9 {
      let base = Self.demoV2.replacingOccurrences(
        of: #""version": 2"#, with: "\"version\": \(version)")
      // Odd versions race two different bodies, even ones two identical bodies.
      let bodies = (0..<4).map { racer in
        version % 2 == 1 && racer % 2 == 1
          ? base.replacingOccurrences(of: #""root": "master""#, with: #""root": "tabs""#) : base
      }
      let answers = Mutex<[(Int, String)]>([])
      DispatchQueue.concurrentPerform(iterations: bodies.count) { racer in
        let client = HTTPTestClient(port: port)
        let answer = try? Self.put(client, "demo", bodies[racer])
        answers.withLock { $0.append((answer?.status ?? 0, bodies[racer])) }
      }
      let statuses = answers.withLock { $0.map(\.0) }.sorted()
      #expect(statuses == [201, 409, 409, 409], "version \(version): \(statuses)")
      let winner = try #require(answers.withLock { $0.first { $0.0 == 201 }?.1 })
      let served = try first.client.request("GET", "/v1/graphs/demo")
      #expect(served.json["version"]?.intValue == version)
      #expect(served.json["root"] == (winner.contains(#""root": "tabs""#) ? "tabs" : "master"))
      let saved = FileManager.default.contents(atPath: data + "/graph.demo.v\(version).json")
      #expect(saved == Data(winner.utf8), "version \(version): the directory keeps the winner")
    }
    #expect(first.stop() == 0)
    let second = try Self.backendServer(folder, ["--data-dir", data])
    defer { second.stop() }
    #expect(try Self.graphVersion(second.client) == 9)
  }
}
