import Foundation
import NavJSON
import NavStateTestSupport
import NavStateTesting
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

  /// Sessions with a context near its 4 KiB cap, and leave guards with 200-scalar reasons of
  /// two-byte characters: what a client or the backend makes the server keep is accounted as
  /// the process's resident memory grows.
  @Test("contexts and leave-guard reasons are accounted as resident memory grows")
  func contextsAndReasons() throws {
    let key = "memory-account!backend-key-0123456789abcdef"
    let keyFile = NSTemporaryDirectory() + "navstate-memory-key-\(UUID().uuidString)"
    try Data((key + "\n").utf8).write(to: URL(fileURLWithPath: keyFile))
    defer { try? FileManager.default.removeItem(atPath: keyFile) }
    let server = try ServerProcess([
      "--backend-key-file", keyFile, "--max-sessions-per-ip", "10000",
    ])
    defer { server.stop() }
    var context = JSONObject()
    for index in 0..<30 {
      context["key\(index)"] = .string(String(repeating: "v", count: 110) + "\(1000 + index)")
    }
    let reason = JSONValue.string(String(repeating: "é", count: 200))
    let accountedBefore = try metric(server, "navstate_memory_accounted_bytes")
    let residentBefore = try residentBytes(server)
    for index in 0..<3_000 {
      var body: JSONObject = ["graph": "zumry"]
      if index % 2 == 0 { body["context"] = .object(context) }
      let created = try server.client.json(
        "POST", "/v1/sessions", token: index % 2 == 0 ? key : nil, body: .object(body))
      try #require(created.status == 201, "\(created.text)")
      guard index % 2 == 1 else { continue }
      let id = try #require(created.json["session"]?["id"]?.stringValue)
      let token = try #require(created.json["token"]?.stringValue)
      let session = TestSession(client: server.client, id: id, token: token)
      let root = try #require(created.json["session"]?["root"]?["id"]?.stringValue)
      let guarded = try server.client.json(
        "PUT", "\(session.path)/coordinators/\(root)/leave-guard", token: session.token,
        body: ["reason": reason])
      try #require(guarded.status == 200, "\(guarded.text)")
    }
    let accounted = try metric(server, "navstate_memory_accounted_bytes") - accountedBefore
    let resident = try residentBytes(server) - residentBefore
    // 1,500 contexts of about 3.6 KB and 1,500 reasons of 400 bytes, with their sessions.
    #expect(accounted > 6_000_000, "accounted \(accounted)")
    #expect(resident / accounted > 0.6, "resident \(resident), accounted \(accounted)")
    #expect(resident / accounted < 1.6, "resident \(resident), accounted \(accounted)")
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
