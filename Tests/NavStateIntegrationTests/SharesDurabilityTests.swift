import Foundation
import NavJSON
import NavStateTestSupport
import NavStateTesting
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// With `--data-dir`, shares are changes like any other: they outlive kill -9 and a graceful
/// restart (their tokens still work, revoked ones still do not), and so does where a fork came
/// from. Handoff codes stand for tokens, which are never written down: they do not.
@Suite("Shares across restarts")
struct SharesDurabilityTests {
  @Test("kill -9, then a graceful restart: shares, revocations, forkedFrom and history kept")
  func survive() throws {
    let path = NSTemporaryDirectory() + "navstate-shares-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: path) }
    // A snapshot every second, so that the second round reads shares from an archive too.
    let arguments = ["--data-dir", path, "--fsync", "always", "--snapshot-interval", "1"]
    let first = try ServerProcess(arguments)
    let session = try TestSession(first.client)
    _ = try session.call("push", ["route": "detail", "params": ["id": 5]])
    func share(_ mode: String, _ label: String, code: Bool = false) throws -> JSONValue {
      let answer = try first.client.json(
        "POST", "\(session.path)/shares", token: session.token,
        body: ["mode": .string(mode), "label": .string(label), "code": .bool(code)])
      #expect(answer.status == 201, "\(answer.text)")
      return answer.json
    }
    // A share of one second: the server's own revocation of it is journaled like any change.
    let brief = try first.client.json(
      "POST", "\(session.path)/shares", token: session.token,
      body: ["mode": "follow", "label": "brief", "ttlSeconds": 1])
    let briefToken = try #require(brief.json["token"]?.stringValue)
    let kept = try share("drive", "iPad", code: true)
    let revoked = try share("follow", "Support: Ana")
    let keptToken = try #require(kept["token"]?.stringValue)
    let revokedToken = try #require(revoked["token"]?.stringValue)
    let revokedID = try #require(revoked["share"]?["id"]?.stringValue)
    #expect(
      try first.client.json(
        "DELETE", "\(session.path)/shares/\(revokedID)", token: session.token
      ).status == 204)
    // A change through the drive share, then a fork of version 2.
    #expect(
      try first.client.json("POST", "\(session.path)/pop", token: keptToken).status == 200)
    let forked = try first.client.json(
      "POST", "\(session.path)/fork", token: session.token, body: ["version": 2])
    #expect(forked.status == 201)
    let forkID = try #require(forked.json["session"]?["id"]?.stringValue)
    let forkToken = try #require(forked.json["token"]?.stringValue)

    func observed(_ client: any TestClient) throws -> [JSONValue] {
      var state = try client.json("GET", session.path, token: session.token).json.objectValue ?? [:]
      state["expiresAt"] = nil
      var forkState =
        try client.json("GET", "/v1/sessions/\(forkID)", token: forkToken).json.objectValue ?? [:]
      forkState["expiresAt"] = nil
      let history = try client.json("GET", "\(session.path)/history", token: session.token).json
      var pasts: [JSONValue] = []
      for version in 1...(state["version"]?.intValue ?? 1) {
        var past =
          try client.json("GET", "\(session.path)?at=\(version)", token: session.token).json
          .objectValue ?? [:]
        past["expiresAt"] = nil
        pasts.append(.object(past))
      }
      return [.object(state), .object(forkState), history] + pasts
    }
    var expired = false
    let deadline = Date().addingTimeInterval(5)
    while !expired, Date() < deadline {
      let ops =
        try first.client.json("GET", "\(session.path)/history", token: session.token)
        .json["entries"]?.arrayValue?.compactMap { $0["op"] } ?? []
      expired = ops.contains { $0["op"] == "revokeShare" && $0["reason"] == "expired" }
      if !expired { Thread.sleep(forTimeInterval: 0.1) }
    }
    #expect(expired, "the one-second share was revoked by the server")
    let before = try observed(first.client)
    #expect(before[0]["shares"]?.arrayValue?.count == 1)
    #expect(before[1]["forkedFrom"] == ["session": .string(session.id), "version": 2])
    Thread.sleep(forTimeInterval: 1.5)  // a snapshot between
    kill(first.process.processIdentifier, SIGKILL)
    first.process.waitUntilExit()

    for round in ["after kill -9", "after a graceful restart"] {
      let server = try ServerProcess(arguments)
      #expect(try observed(server.client) == before, "\(round)")
      #expect(
        try server.client.json("GET", session.path, token: keptToken).status == 200, "\(round)")
      #expect(
        try server.client.json("GET", session.path, token: revokedToken).status == 404,
        "\(round)")
      #expect(
        try server.client.json("GET", session.path, token: briefToken).status == 404, "\(round)")
      // The code stood for a token that was never written down: gone with the process.
      let redeemed = try server.client.json(
        "POST", "/v1/handoffs", body: ["code": kept["code"] ?? .null])
      #expect(redeemed.status == 404, "\(round)")
      #expect(server.stop() == 0)
    }
  }
}
