import Foundation
import NavJSON
import NavStateTestSupport
import NavStateTesting
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
    let file = try temporaryFile(
      "bad", #"{"name":"shop","root":"home","routes":[{"name":"home","next":["cart"]}]}"#)
    defer { try? FileManager.default.removeItem(at: file) }
    let outcome = try Self.runToExit(["--port", "0", "--graph", file.path])
    #expect(outcome.status == 65)
    #expect(outcome.errors.contains(file.path))
    #expect(outcome.errors.contains("route 'home'"))
    #expect(outcome.errors.contains("unknown route 'cart'"))
  }

  @Test("start-up failures: one line on standard error, no usage text, a sysexits status")
  func startupFailures() throws {
    let broken = try temporaryFile("broken", "{\n  \"name\": \"x\",\n  oops\n}\n")
    defer { try? FileManager.default.removeItem(at: broken) }
    let missing = "/nonexistent-\(getpid())/graph.json"
    let busy = try ServerProcess()
    defer { busy.stop() }

    let cases: [(arguments: [String], status: Int32, message: String)] = [
      (
        ["--graph", broken.path], 65,
        "\(broken.path): not valid JSON: expected a string key at line 3, column 3"
      ),
      (
        ["--graph", missing], 66,
        "--graph \(missing): cannot read the file: No such file or directory"
      ),
      (["--graph", "/tmp"], 66, "--graph /tmp: cannot read the file: Is a directory"),
      (
        ["--port", String(busy.port)], 69,
        "cannot listen on 127.0.0.1:\(busy.port): the port is already in use"
      ),
      (
        ["--port", "0", "--default-graph", "nope"], 64,
        "--default-graph 'nope' is not a loaded graph"
      ),
    ]
    for (arguments, status, message) in cases {
      let outcome = try Self.runToExit(arguments)
      #expect(outcome.status == status, "\(arguments)")
      let lines = outcome.errors.split(separator: "\n")
      #expect(lines.count == 1, "\(arguments): \(outcome.errors)")
      #expect(lines.first?.hasPrefix("navstate: ") == true, "\(outcome.errors)")
      #expect(outcome.errors.contains(message), "\(outcome.errors)")
      #expect(!outcome.errors.contains("Usage"), "\(outcome.errors)")
    }
    // A bad option is a usage error: status 64, and the usage text helps.
    let usage = try Self.runToExit(["--threads", "0"])
    #expect(usage.status == 64)
    #expect(usage.errors.contains("Usage"))
  }

  @Test("--help documents every exit status")
  func helpListsExitStatuses() throws {
    let help = try Self.runToExit(["--help"])
    #expect(help.status == 0)
    let text = help.output.replacingOccurrences(of: "\n", with: " ")
    for status in ["64", "65", "66", "69", "71"] {
      #expect(text.contains(" \(status) "), "\(status) missing from --help")
    }
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

  struct Outcome {
    var status: Int32
    var output: String
    var errors: String
  }

  /// Runs navstate with `arguments` until it exits by itself (each case here must fail fast).
  /// Runs navstate to its exit. With `stopAfterStart`, one that starts is stopped (SIGTERM) once
  /// it prints its first line.
  static func runToExit(_ arguments: [String], stopAfterStart: Bool = false) throws -> Outcome {
    let process = Process()
    process.executableURL = ServerProcess.binary
    process.arguments = arguments
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    // Killed if it has not exited within 60 s, so that the reads below end whatever it does.
    try ChildProcesses.run(process, killAfter: 60)
    var firstLine = Data()
    if stopAfterStart {
      while !firstLine.contains(UInt8(ascii: "\n")) {
        let chunk = output.fileHandleForReading.availableData
        if chunk.isEmpty { break }
        firstLine += chunk
      }
      if process.isRunning { kill(process.processIdentifier, SIGTERM) }
    }
    let outputData = firstLine + output.fileHandleForReading.readDataToEndOfFile()
    let errorData = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return Outcome(
      status: process.terminationStatus, output: String(decoding: outputData, as: UTF8.self),
      errors: String(decoding: errorData, as: UTF8.self))
  }

  func temporaryFile(_ name: String, _ text: String) throws -> URL {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent(
      "\(name)-\(getpid()).json")
    try Data(text.utf8).write(to: file)
    return file
  }
}
