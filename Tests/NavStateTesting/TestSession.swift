public import NavJSON
public import NavStateTestSupport

/// A session opened through a ``TestClient``, with its token.
public struct TestSession: Sendable {
  public let client: any TestClient
  public let id: String
  public let token: String
  /// The creation's answer (empty for a session made earlier, see `init(client:id:token:)`).
  public let created: TestResponse

  /// A session made earlier (on this server, or one that ran on the same data directory), with
  /// its creation's answer if the caller has it.
  public init(
    client: any TestClient, id: String, token: String,
    created: TestResponse = TestResponse(status: 0, headers: [], body: [])
  ) {
    self.client = client
    self.id = id
    self.token = token
    self.created = created
  }

  /// Opens one: `POST /v1/sessions` with `body`, as `token` (a backend key) if given.
  public init(_ client: any TestClient, body: JSONValue? = nil, token: String? = nil) throws {
    self.client = client
    created = try client.json("POST", "/v1/sessions", token: token, body: body)
    guard created.status == 201, let id = created.json["session"]?["id"]?.stringValue,
      let token = created.json["token"]?.stringValue
    else { throw TestAppFailure.notCreated(created.status, created.text) }
    self.id = id
    self.token = token
  }

  public var path: String { "/v1/sessions/\(id)" }

  public func get(headers: [(String, String)] = []) throws -> TestResponse {
    try client.json("GET", path, token: token, headers: headers)
  }

  /// `POST .../<operation>` with `body` (an empty object by default).
  public func call(_ operation: String, _ body: JSONValue? = nil, headers: [(String, String)] = [])
    throws -> TestResponse
  {
    try client.json(
      "POST", "\(path)/\(operation)", token: token, body: body ?? [:], headers: headers)
  }

  /// Routes of the visible path, for short assertions.
  public static func routes(_ response: TestResponse) -> [String] { response.routes }

  public static func events(_ response: TestResponse) -> [(type: String, coordinator: String?)] {
    response.json["events"]?.arrayValue?.map {
      ($0["type"]?.stringValue ?? "", $0["coordinator"]?.stringValue)
    } ?? []
  }
}
