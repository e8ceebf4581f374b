public import NavJSON
public import NavStateTestSupport

/// One way to send a request to NavState and read its answer, whatever carries it: the router
/// in this process (no socket), or a server listening on a port.
public protocol TestClient: Sendable {
  func send(
    _ method: String, _ path: String, headers: [(String, String)], body: [UInt8]?
  ) throws -> TestResponse
}

extension HTTPTestClient: TestClient {
  public func send(
    _ method: String, _ path: String, headers: [(String, String)], body: [UInt8]?
  ) throws -> TestResponse {
    try request(method, path, headers: headers, body: body, timeout: 10)
  }
}

extension TestClient {
  /// One request as it is given: no media type or credential added.
  public func request(
    _ method: String, _ path: String, headers: [(String, String)] = [], body: [UInt8]? = nil
  ) throws -> TestResponse {
    try send(method, path, headers: headers, body: body)
  }

  /// `json` sent as `application/json` (after `headers`, so a type given there is the one
  /// read); `token` as `Authorization: Bearer`.
  public func json(
    _ method: String, _ path: String, token: String? = nil, body: JSONValue? = nil,
    headers: [(String, String)] = []
  ) throws -> TestResponse {
    var all = headers
    if let token { all.append(("Authorization", "Bearer \(token)")) }
    if body != nil { all.append(("Content-Type", "application/json")) }
    return try send(method, path, headers: all, body: body?.encoded)
  }

  /// The sample of the unlabelled series `name` on `/metrics`, if it is there.
  public func metric(_ name: String) throws -> Double? {
    let text = try send("GET", "/metrics", headers: [], body: nil).text
    let line = text.split(separator: "\n").first { $0.hasPrefix("\(name) ") }
    return line.flatMap { Double($0.split(separator: " ").last ?? "") }
  }
}

extension TestResponse {
  /// The body parsed as JSON (`.null` if it is not JSON).
  public var json: JSONValue { (try? JSONParser.parse(body)) ?? .null }

  /// A problem document's `code`.
  public var code: String? { json["code"]?.stringValue }

  /// Routes of the visible path of a state or of a mutation's `session`.
  public var routes: [String] {
    let session = json["session"] ?? json
    return session["path"]?.arrayValue?.compactMap { $0["route"]?.stringValue } ?? []
  }
}
