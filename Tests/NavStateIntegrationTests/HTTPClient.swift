import NavJSON
import NavStateTestSupport

// The raw HTTP client itself (`HTTPTestClient`, `RawHTTPClient`, `TestResponse`) is in
// NavStateTestSupport, shared with MicroHTTPServerTests; what it needs of the v1 API is here.

extension TestResponse {
  /// The body parsed as JSON (`.null` if it is not JSON).
  var json: JSONValue {
    (try? JSONParser.parse(body)) ?? .null
  }
}

extension HTTPTestClient {
  func json(
    _ method: String, _ path: String, token: String? = nil, body: JSONValue? = nil,
    headers: [(String, String)] = []
  ) throws -> TestResponse {
    var all = headers
    if let token { all.append(("Authorization", "Bearer \(token)")) }
    if body != nil { all.append(("Content-Type", "application/json")) }
    return try request(method, path, headers: all, body: body?.encoded)
  }
}

extension ServerProcess {
  var client: HTTPTestClient { HTTPTestClient(port: port) }

  /// The value of the unlabelled series `name` on `/metrics`, if it is there.
  func metric(_ name: String) throws -> Double? {
    let text = try client.request("GET", "/metrics").text
    let line = text.split(separator: "\n").first { $0.hasPrefix("\(name) ") }
    return line.flatMap { Double($0.split(separator: " ").last ?? "") }
  }
}
