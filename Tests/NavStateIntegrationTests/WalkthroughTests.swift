import Foundation
import NavStateApp
import NavStateEngine
import NavStateTestSupport
import NavStateTesting
import Testing

@Suite("The README")
struct WalkthroughTests {
  @Test("the curl walkthrough runs as printed against a live server")
  func walkthrough() throws {
    let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("../../README.md").standardized
    let text = try String(contentsOf: readme, encoding: .utf8)
    let start = try #require(text.range(of: "<!-- walkthrough:start -->\n```sh\n"))
    let end = try #require(text.range(of: "```\n<!-- walkthrough:end -->"))
    let script = String(text[start.upperBound..<end.lowerBound])

    let server = try TestApp(.live)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/bash")
    process.arguments = ["-euo", "pipefail", "-c", script]
    var environment = ProcessInfo.processInfo.environment
    environment["NAVSTATE"] = "http://127.0.0.1:\(server.port)"
    process.environment = environment
    let output = Pipe()
    process.standardOutput = output
    process.standardError = output
    // The script and its curl calls are killed if they have not ended within 120 s, so that the
    // read below ends whatever the server does.
    try ChildProcesses.run(process, killAfter: 120)
    let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    #expect(process.terminationStatus == 0, "\(printed)")
    let lines = printed.split(separator: "\n").map(String.init)
    #expect(lines.count == 7, "\(printed)")
    #expect(lines.first == #"["master","detail","coordinator.started"]"#)
    #expect(lines.dropFirst().first == #"["master","detail","settings"]"#)
    #expect(lines.dropFirst(2).first == #"["coordinator.stopped","coordinator.resumed"]"#)
    #expect(lines.dropFirst(4).first?.contains(#"["coordinator.stopped","c"#) == true)
    #expect(lines.dropFirst(4).first?.contains("teardown") == true)
    #expect(lines.last == "204")
  }

  @Test("the graph walkthrough (Changing the graph) runs as printed against a live server")
  func graphWalkthrough() throws {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("navstate-graph-walkthrough-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let key = "walkthrough-backend-key-\(UUID().uuidString)"
    let keyFile = folder.appendingPathComponent("backend-keys")
    try Data((key + "\n").utf8).write(to: keyFile)
    let server = try TestApp(.live) { configuration in
      configuration.store.backendKeys = try StartupFiles.backendKeys(file: keyFile.path)
    }
    let printed = try Self.runBlock(
      "graph-walkthrough", of: "docs/graphs.md", port: Int(server.port),
      environment: ["BACKEND_KEY": key], in: folder)
    let lines = printed.output.split(separator: "\n").map(String.init)
    #expect(printed.status == 0, "\(printed.output)")
    #expect(
      lines == [
        #"[1,["master","detail","settings"]]"#,
        #"{"sessions":1,"unchanged":0,"migrated":1,"stopped":{"settings":1},"restarted":0}"#,
        "201",
        #"[2,[["c1","master"],["c2","item"]]]"#,
        #"[["coordinator.stopped","migrated"],["session.migrated",2]]"#,
        "[1,true]",
        "graph_version_exists",
      ], "\(printed.output)")
  }

  @Test("the guards walkthrough (Who may go where) prints what the README says it prints")
  func guardsWalkthrough() throws {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("navstate-guards-walkthrough-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let key = "walkthrough-backend-key-\(UUID().uuidString)"
    let keyFile = folder.appendingPathComponent("backend-keys")
    try Data((key + "\n").utf8).write(to: keyFile)
    let server = try TestApp(.live) { configuration in
      configuration.store.backendKeys = try StartupFiles.backendKeys(file: keyFile.path)
    }
    let printed = try Self.runBlock(
      "guards-walkthrough", of: "docs/guards.md", port: Int(server.port),
      environment: ["BACKEND_KEY": key], in: folder)
    #expect(printed.status == 0, "\(printed.output)")
    // docs/guards.md shows the output right after the block: the two must agree.
    let readme = try String(
      contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../docs/guards.md").standardized, encoding: .utf8)
    let after = try #require(
      readme.range(of: "<!-- guards-walkthrough:end -->\n\nIt prints:\n\n```\n"))
    let end = try #require(readme.range(of: "\n```", range: after.upperBound..<readme.endIndex))
    let shown = String(readme[after.upperBound..<end.lowerBound]).split(separator: "\n")
    #expect(printed.output.split(separator: "\n") == shown, "\(printed.output)")
    #expect(shown.count == 7)
  }

  /// Runs the block between `<!-- NAME:start -->` and `<!-- NAME:end -->` of `document` (a path
  /// from the repository's root) with bash against the server on `port`; returns what it printed
  /// and its exit status.
  static func runBlock(
    _ name: String, of document: String, port: Int, environment extra: [String: String],
    in folder: URL
  ) throws -> (output: String, status: Int32) {
    let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("../../\(document)").standardized
    let text = try String(contentsOf: readme, encoding: .utf8)
    let start = try #require(text.range(of: "<!-- \(name):start -->\n```sh\n"))
    let end = try #require(text.range(of: "```\n<!-- \(name):end -->"))
    let script = String(text[start.upperBound..<end.lowerBound])
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/bash")
    process.arguments = ["-euo", "pipefail", "-c", script]
    process.currentDirectoryURL = folder
    var environment = ProcessInfo.processInfo.environment
    environment["NAVSTATE"] = "http://127.0.0.1:\(port)"
    for (name, value) in extra { environment[name] = value }
    process.environment = environment
    let output = Pipe()
    process.standardOutput = output
    process.standardError = output
    try ChildProcesses.run(process, killAfter: 120)
    let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return (printed, process.terminationStatus)
  }
}
