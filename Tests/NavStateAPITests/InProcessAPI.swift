import Logging
import MicroHTTPServer
import NavJSON
import NavStateAPI
import NavStateEngine
import NavStateTestSupport
import NavigationCore

/// The v1 API without a socket: a store with the built-in graphs, the service's router, and
/// requests handed to `Router.handle` as the server would hand them. Answers come back as the
/// raw HTTP client's `TestResponse`, so a test reads them the same way over a socket or not.
struct InProcessAPI {
  let store: SessionStore
  let service: NavStateService
  let router: Router

  /// - Parameter configure: changes the store's configuration (small limits, a tiny budget).
  init(_ configure: (inout StoreConfiguration) -> Void = { _ in }) throws {
    var configuration = StoreConfiguration()
    configure(&configuration)
    let graphs = try BuiltInGraphs.load()
    store = SessionStore(graphs: graphs, defaultGraph: "demo", configuration: configuration)
    service = NavStateService(
      store: store, logger: Logger(label: "navstate.test") { _ in SwiftLogNoOpLogHandler() })
    router = service.router()
  }

  /// Sends one request. `path` may carry a query ("/x?after=0"); a `json` body is sent as
  /// `application/json`; `token` becomes `Authorization: Bearer <token>`.
  func send(
    _ method: String, _ path: String, token: String? = nil, json: JSONValue? = nil,
    headers: [(String, String)] = [], from address: String = "127.0.0.1"
  ) -> TestResponse {
    var all = headers
    if let token { all.append(("Authorization", "Bearer \(token)")) }
    if json != nil { all.append(("Content-Type", "application/json")) }
    let query = path.firstIndex(of: "?")
    let request = HTTPRequest(
      method: method, path: String(path[..<(query ?? path.endIndex)]),
      query: query.map { String(path[path.index(after: $0)...]) }, headers: HTTPHeaders(all),
      body: json?.encoded ?? [], remoteAddress: address)
    return Self.seen(router.handle(request))
  }

  /// A session made on the default graph (or as `body` asks), and its token.
  func createSession(_ body: JSONValue = [:], from address: String = "127.0.0.1") throws
    -> InProcessSession
  {
    let created = send("POST", "/v1/sessions", json: body, from: address)
    guard created.status == 201, let id = created.json["session"]?["id"]?.stringValue,
      let token = created.json["token"]?.stringValue
    else { throw InProcessAPIFailure.notCreated(created.status, created.text) }
    return InProcessSession(api: self, id: id, token: token, created: created)
  }

  /// The response as a client would read it (a stream's body is left out: it is not sent yet).
  static func seen(_ response: HTTPResponse) -> TestResponse {
    let body: [UInt8]
    switch response.body {
    case .bytes(let bytes): body = bytes
    case .buffer(let buffer): body = buffer.bytes
    case .stream: body = []
    }
    return TestResponse(status: response.status, headers: response.headers.pairs, body: body)
  }
}

enum InProcessAPIFailure: Error {
  case notCreated(Int, String)
}

/// A session made through `InProcessAPI`, with its token.
struct InProcessSession {
  let api: InProcessAPI
  let id: String
  let token: String
  let created: TestResponse

  var path: String { "/v1/sessions/\(id)" }

  func get(headers: [(String, String)] = []) -> TestResponse {
    api.send("GET", path, token: token, headers: headers)
  }

  /// `POST /v1/sessions/{sid}/<operation>` with `body` (an empty object by default).
  func call(_ operation: String, _ body: JSONValue = [:], headers: [(String, String)] = [])
    -> TestResponse
  {
    api.send("POST", "\(path)/\(operation)", token: token, json: body, headers: headers)
  }
}

extension TestResponse {
  /// The body parsed as JSON (`.null` if it is not JSON).
  var json: JSONValue { (try? JSONParser.parse(body)) ?? .null }

  /// A problem document's `code`.
  var code: String? { json["code"]?.stringValue }

  /// Routes of the visible path of a state or of a mutation's `session`.
  var routes: [String] {
    let session = json["session"] ?? json
    return session["path"]?.arrayValue?.compactMap { $0["route"]?.stringValue } ?? []
  }
}
