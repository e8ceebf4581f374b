import Logging
import MicroHTTPServer
import NavJSON
import NavStateAPI
import NavStateEngine
import NavStateTestSupport
import NavStateTesting
import NavigationCore

/// The v1 API without a socket, as the test kit's ``RouterClient`` sends it, with the built-in
/// graphs and a store whose configuration a test may change.
struct InProcessAPI {
  let client: RouterClient
  var store: SessionStore { client.store }

  /// - Parameter configure: changes the store's configuration (small limits, a tiny budget).
  init(_ configure: (inout StoreConfiguration) -> Void = { _ in }) throws {
    var configuration = StoreConfiguration()
    configure(&configuration)
    let graphs = try BuiltInGraphs.load()
    client = RouterClient(
      store: SessionStore(graphs: graphs, defaultGraph: "demo", configuration: configuration))
  }

  /// Sends one request. `path` may carry a query ("/x?after=0"); a `json` body is sent as
  /// `application/json`; `token` becomes `Authorization: Bearer <token>`.
  func send(
    _ method: String, _ path: String, token: String? = nil, json: JSONValue? = nil,
    headers: [(String, String)] = [], from address: String = "127.0.0.1"
  ) -> TestResponse {
    var client = self.client
    client.address = address
    var all = headers
    if let token { all.append(("Authorization", "Bearer \(token)")) }
    if json != nil { all.append(("Content-Type", "application/json")) }
    return client.send(method, path, headers: all, body: json?.encoded)
  }

  /// A session made on the default graph (or as `body` asks), and its token.
  func createSession(_ body: JSONValue = [:], from address: String = "127.0.0.1") throws
    -> InProcessSession
  {
    var client = self.client
    client.address = address
    return InProcessSession(api: self, session: try TestSession(client, body: body))
  }
}

/// The test kit's ``TestSession`` on an ``InProcessAPI``, whose calls cannot fail to be sent.
struct InProcessSession {
  let api: InProcessAPI
  let session: TestSession

  init(api: InProcessAPI, session: TestSession) {
    self.api = api
    self.session = session
  }

  init(api: InProcessAPI, id: String, token: String, created: TestResponse) {
    self.init(
      api: api, session: TestSession(client: api.client, id: id, token: token, created: created))
  }

  var id: String { session.id }
  var token: String { session.token }
  var created: TestResponse { session.created }
  var path: String { session.path }

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
