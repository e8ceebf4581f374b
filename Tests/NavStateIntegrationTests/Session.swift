import NavJSON
import NavStateTestSupport
import Testing

/// A session opened on a running server, with its token.
struct TestSession {
  let client: HTTPTestClient
  let id: String
  let token: String
  let created: TestResponse

  /// A session made earlier (on this server or on one that ran on the same data directory).
  init(client: HTTPTestClient, id: String, token: String) {
    self.client = client
    self.id = id
    self.token = token
    self.created = TestResponse(status: 0, headers: [], body: [])
  }

  init(_ client: HTTPTestClient, body: JSONValue? = nil) throws {
    self.client = client
    created = try client.json("POST", "/v1/sessions", body: body)
    try #require(created.status == 201, "creation answered \(created.status): \(created.text)")
    id = try #require(created.json["session"]?["id"]?.stringValue)
    token = try #require(created.json["token"]?.stringValue)
  }

  var path: String { "/v1/sessions/\(id)" }

  func get() throws -> TestResponse { try client.json("GET", path, token: token) }

  func call(_ operation: String, _ body: JSONValue? = nil, headers: [(String, String)] = [])
    throws -> TestResponse
  {
    try client.json(
      "POST", "\(path)/\(operation)", token: token, body: body ?? [:], headers: headers)
  }

  /// Routes of the visible path, for short assertions.
  static func routes(_ response: TestResponse) -> [String] {
    let session = response.json["session"] ?? response.json
    return session["path"]?.arrayValue?.compactMap { $0["route"]?.stringValue } ?? []
  }

  static func events(_ response: TestResponse) -> [(type: String, coordinator: String?)] {
    response.json["events"]?.arrayValue?.map {
      ($0["type"]?.stringValue ?? "", $0["coordinator"]?.stringValue)
    } ?? []
  }
}
