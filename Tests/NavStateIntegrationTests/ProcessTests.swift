import Foundation
import NavJSON
import Testing

#if canImport(Glibc)
  import Glibc
#endif

@Suite("The navstate process")
struct ProcessTests {
  @Test("prints its port, answers /healthz, stops on SIGTERM with status 0")
  func startsAndStops() throws {
    let server = try ServerProcess()
    let health = try server.client.request("GET", "/healthz")
    #expect(health.status == 200)
    #expect(health.json["status"] == "ok")
    let pid = server.process.processIdentifier
    #expect(server.stop() == 0)
    // No process is left behind.
    #expect(kill(pid, 0) != 0)
  }

  @Test("refuses a bad graph file at start-up with a message naming the file and the route")
  func badGraphFile() throws {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("bad-\(getpid()).json")
    try Data(#"{"name":"shop","root":"home","routes":[{"name":"home","next":["cart"]}]}"#.utf8)
      .write(to: file)
    defer { try? FileManager.default.removeItem(at: file) }
    let process = Process()
    process.executableURL = ServerProcess.binary
    process.arguments = ["--port", "0", "--graph", file.path]
    let errors = Pipe()
    process.standardError = errors
    process.standardOutput = Pipe()
    try process.run()
    process.waitUntilExit()
    let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    #expect(process.terminationStatus != 0)
    #expect(message.contains(file.path))
    #expect(message.contains("route 'home'"))
    #expect(message.contains("unknown route 'cart'"))
  }

  @Test("serves a graph loaded with --graph")
  func loadsGraphFile() throws {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent(
      "shop-\(getpid()).json")
    try Data(
      #"{"name":"shop","root":"home","routes":[{"name":"home","next":["cart"]},{"name":"cart"}]}"#
        .utf8
    ).write(to: file)
    defer { try? FileManager.default.removeItem(at: file) }
    let server = try ServerProcess(["--graph", file.path])
    defer { server.stop() }
    let graph = try server.client.request("GET", "/v1/graphs/shop")
    #expect(graph.status == 200)
    #expect(graph.json["root"] == "home")
    let session = try TestSession(server.client, body: ["graph": "shop"])
    let pushed = try session.call("push", ["route": "cart"])
    #expect(TestSession.routes(pushed) == ["home", "cart"])
  }
}
