import Logging
public import MicroHTTPServer
import NavStateAPI
public import NavStateEngine
public import NavStateTestSupport

/// The v1 API without a socket: a store, the service's router, and requests handed to
/// `Router.handle` as the server hands them. What only a socket shows (framing, keep-alive,
/// Content-Length checks, streams) needs ``LiveApp``.
public struct RouterClient: TestClient {
  public let store: SessionStore
  public let router: Router
  /// The address requests come from (per-client caps count by it).
  public var address = "127.0.0.1"

  /// - Parameter trustedProxies: peers whose `X-Forwarded-For` is believed (`--trusted-proxy`).
  public init(store: SessionStore, trustedProxies: Set<String> = []) {
    self.store = store
    let service = NavStateService(
      store: store, clientAddresses: ClientAddressPolicy(trustedProxies: trustedProxies),
      logger: Logger(label: "navstate.test") { _ in SwiftLogNoOpLogHandler() })
    router = service.router()
  }

  public func send(
    _ method: String, _ path: String, headers: [(String, String)], body: [UInt8]?
  ) -> TestResponse {
    let query = path.firstIndex(of: "?")
    let request = HTTPRequest(
      method: method, path: String(path[..<(query ?? path.endIndex)]),
      query: query.map { String(path[path.index(after: $0)...]) }, headers: HTTPHeaders(headers),
      body: body ?? [], remoteAddress: address)
    let response = router.handle(request)
    let bytes: [UInt8]
    switch response.body {
    case .bytes(let value): bytes = value
    case .buffer(let buffer): bytes = buffer.bytes
    // A stream's body is not sent yet; its head is what a router test can read.
    case .stream: bytes = []
    }
    return TestResponse(status: response.status, headers: response.headers.pairs, body: bytes)
  }
}
