import Foundation
import NavJSON
import NavStateTestSupport
import Testing

@Suite("The memory account")
struct MemoryAccountTests {
  func metric(_ server: ServerProcess, _ name: String) throws -> Double {
    let text = try server.client.request("GET", "/metrics").text
    let line = text.split(separator: "\n").first { $0.hasPrefix("\(name) ") }
    return try #require(line.flatMap { Double($0.split(separator: " ").last ?? "") })
  }

  func residentBytes(_ server: ServerProcess) throws -> Double {
    let status = try String(
      contentsOfFile: "/proc/\(server.process.processIdentifier)/status", encoding: .utf8)
    let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") })
    let kilobytes = try #require(Double(line.split(separator: " ")[1]))
    return kilobytes * 1024
  }

  /// Many sessions, each with an event log filled to its byte cap (events that carry a 1,000
  /// character param): what `/metrics` accounts grows as the process's resident memory does.
  @Test("the accounted bytes track the process's resident memory")
  func tracksResidentMemory() throws {
    let server = try ServerProcess([
      "--max-body-bytes", "200000", "--max-sessions-per-ip", "10000",
    ])
    defer { server.stop() }
    var ops: [JSONValue] = []
    for id in 0..<40 {
      let text = String(repeating: "x", count: 990) + String(1000 + id)
      ops.append(["op": "push", "route": "scene2", "params": ["text": .string(text)]])
      ops.append(["op": "pop"])
    }
    let accountedBefore = try metric(server, "navstate_memory_accounted_bytes")
    let residentBefore = try residentBytes(server)
    for _ in 0..<300 {
      let session = try TestSession(server.client, body: ["root": ["route": "scene1"]])
      let filled = try server.client.json(
        "POST", "\(session.path)/batch", token: session.token, body: ["ops": .array(ops)])
      try #require(filled.status == 200)
    }
    let accounted = try metric(server, "navstate_memory_accounted_bytes") - accountedBefore
    let resident = try residentBytes(server) - residentBefore
    // 300 logs at their 64 KiB cap: about 20 MB either way.
    #expect(accounted > 15_000_000)
    #expect(resident / accounted > 0.6, "resident \(resident), accounted \(accounted)")
    #expect(resident / accounted < 1.6, "resident \(resident), accounted \(accounted)")
    #expect(try metric(server, "navstate_memory_budget_bytes") == 1024 * 1024 * 1024)
  }

  @Test("past --max-memory, work that grows memory is refused with 503 memory_exhausted")
  func refusesPastTheBudget() throws {
    let server = try ServerProcess(["--max-memory", "16", "--max-sessions-per-ip", "100000"])
    defer { server.stop() }
    let early = try TestSession(server.client)
    let pushed = try early.call("push", ["route": "detail", "params": ["id": 1]])
    #expect(TestSession.routes(pushed) == ["master", "detail"])
    var refusal: TestResponse?
    for _ in 0..<40_000 {
      let created = try server.client.json("POST", "/v1/sessions")
      if created.status != 201 {
        refusal = created
        break
      }
    }
    let refused = try #require(refusal, "16 MiB held 40,000 sessions")
    #expect(refused.status == 503)
    #expect(refused.json["code"] == "memory_exhausted")
    #expect(Int(refused.header("Retry-After") ?? "") ?? 0 >= 1)
    #expect(try metric(server, "navstate_memory_accounted_bytes") <= 16 * 1024 * 1024)
    // Admission keeps room for one more operation, so a session made before can still go on:
    // reading, and going back.
    #expect(try early.get().status == 200)
    let back = try server.client.json("POST", "\(early.path)/back", token: early.token)
    #expect(back.status == 200)
    // Ending a session frees its share.
    #expect(try server.client.json("DELETE", early.path, token: early.token).status == 204)
  }
}
