import Foundation
import NavJSON
import NavStateTestSupport
import NavStateTesting
import Testing

/// A backend key or a session token never reaches the server's output (every log level, every
/// refusal) or its data directory: both are read by people and tools that must not be able to act
/// as the backend or as a user.
@Suite("Secrets stay out of logs and files")
struct SecretHygieneTests {
  static let backendKey = "secret-hygiene-backend-key-4f1c9a7e2b"

  @Test("the backend key and the tokens appear in no log line and no file of the data directory")
  func secretsAreNeverWritten() throws {
    let folder = NSTemporaryDirectory() + "navstate-secrets-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let keyFile = folder + "/backend-keys"
    try Data((Self.backendKey + "\n").utf8).write(to: URL(fileURLWithPath: keyFile))
    let data = folder + "/data"
    let server = try ServerProcess([
      "--backend-key-file", keyFile, "--data-dir", data, "--log-level", "debug",
      "--snapshot-interval", "1",
    ])
    let client = server.client

    // The backend opens a session and sets its context; the user acts with the token.
    let created = try client.json(
      "POST", "/v1/sessions", token: Self.backendKey,
      body: ["graph": "zumry", "context": ["authenticated": false]])
    #expect(created.status == 201, "\(created.text)")
    let token = try #require(created.json["token"]?.stringValue)
    let id = try #require(created.json["session"]?["id"]?.stringValue)
    let context = try client.json(
      "PATCH", "/v1/sessions/\(id)/context", token: Self.backendKey,
      body: ["authenticated": true, "emailVerified": true],
      headers: [("Content-Type", "application/merge-patch+json")])
    #expect(context.status == 200, "\(context.text)")
    #expect(try client.json("GET", "/v1/sessions/\(id)", token: token).status == 200)
    // Refusals of every kind, which are what get logged: wrong and near-miss keys and tokens,
    // a session's token where the backend's is needed, the backend's on a graph load it gets wrong.
    let nearKey = String(Self.backendKey.dropLast()) + "X"
    for wrong in [nearKey, token + "x", Self.backendKey + " " + token] {
      let refused = try client.json("GET", "/v1/sessions/\(id)", token: wrong)
      #expect(refused.status == 401 || refused.status == 404, "\(refused.text)")
    }
    let notBackend = try client.json(
      "PATCH", "/v1/sessions/\(id)/context", token: token, body: ["authenticated": false],
      headers: [("Content-Type", "application/merge-patch+json")])
    #expect(notBackend.status == 403)
    let badGraph = try client.request(
      "PUT", "/v1/graphs/zumry",
      headers: [
        ("Authorization", "Bearer \(Self.backendKey)"), ("Content-Type", "application/json"),
      ],
      body: Array("{not json".utf8))
    #expect([400, 422].contains(badGraph.status), "\(badGraph.text)")
    let malformed = try client.request(
      "GET", "/v1/sessions/\(id)", headers: [("Authorization", "Basic \(Self.backendKey)")])
    #expect(malformed.status == 401)
    // A snapshot is written (every second) before the stop writes the last one.
    Thread.sleep(forTimeInterval: 1.5)
    #expect(server.stop() == 0)

    let output = server.writtenText()
    #expect(output.contains("serving") || output.contains("listening"), "the log was read")
    #expect(!output.contains(Self.backendKey), "the backend key is in the log:\n\(output)")
    #expect(!output.contains(token), "a token is in the log:\n\(output)")
    let files = try FileManager.default.contentsOfDirectory(atPath: data)
    #expect(files.contains("snapshot") && files.contains { $0.hasPrefix("journal.") })
    // The token's own bits too (43 base64url characters: 32 bytes), not only its text.
    let base64 =
      token.replacingOccurrences(of: "-", with: "+")
      .replacingOccurrences(of: "_", with: "/") + "="
    let tokenBytes = try #require(Data(base64Encoded: base64))
    #expect(tokenBytes.count == 32)
    for name in files {
      let contents = try Data(contentsOf: URL(fileURLWithPath: data + "/" + name))
      let text = String(decoding: contents, as: UTF8.self)
      #expect(!text.contains(Self.backendKey), "the backend key is in \(name)")
      #expect(!text.contains(token), "a token is in \(name)")
      #expect(contents.range(of: tokenBytes) == nil, "a token's bytes are in \(name)")
    }
  }
}
