import Foundation
import NavStateTestSupport
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

    let server = try ServerProcess()
    defer { server.stop() }
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
}
