import Logging
import MicroHTTPServer
import NavJSON
import NavigationCore

extension NavStateService {
  func createSession(_ request: HTTPRequest) throws(APIProblem) -> HTTPResponse {
    var graphName: String?
    var root: RouteRequest?
    if let body = try Self.jsonBody(request) {
      guard let object = body.objectValue else {
        throw APIProblem(NavigationError(.invalidRequest, "the body must be a JSON object"))
      }
      if let unknown = object.keys.first(where: { $0 != "graph" && $0 != "root" }) {
        throw APIProblem(
          NavigationError(.invalidRequest, "session creation has no field \(quoted(unknown))"))
      }
      switch object["graph"] {
      case .none: break
      case .some(.string(let name)): graphName = name
      case .some:
        throw APIProblem(NavigationError(.invalidRequest, "'graph' must be a graph name"))
      }
      if let rootValue = object["root"] {
        do throws(NavigationError) {
          root = try CommandDecoder.rootRequest(rootValue)
        } catch {
          throw APIProblem(error)
        }
      }
    }
    let (record, token) = try store.create(
      graph: graphName, root: root, client: clientAddresses.address(of: request), now: .now())
    var writer = JSONWriter(capacity: 1024)
    let version = record.data.withLock { data in
      writer.beginObject()
      writer.key("session")
      // Not yet in use: a session that is created and then left holds no encoded state.
      record.writeState(of: &data, into: &writer)
      writer.key("token")
      writer.string(token)
      writer.endObject()
      return data.navigation.version
    }
    logger.debug("session created", metadata: ["session": "\(record.id)"])
    var response = Self.json(201, writer)
    response.headers.add("Location", "/v1/sessions/\(record.id)")
    response.headers.add("ETag", Self.etag(version))
    response.headers.add("Cache-Control", "no-store")
    return response
  }

  func getSession(_ request: HTTPRequest, key: SessionID?) throws(APIProblem) -> HTTPResponse {
    let record = try store.authorize(key: key, headers: request.headers)
    let (body, version) = try record.data.withLock {
      (data) throws(APIProblem) -> (BodyBuffer, Int) in
      try Self.touch(&data, store: store)
      let body = record.encodedState(of: &data)
      store.noteStateCache(of: record, &data, grew: false)
      return (body, data.navigation.version)
    }
    return Self.json(200, body, etag: version)
  }

  func deleteSession(_ request: HTTPRequest, key: SessionID?) throws(APIProblem) -> HTTPResponse {
    let record = try store.authorize(key: key, headers: request.headers)
    let events = try store.end(record, reason: .deleted) { (data) throws(APIProblem) in
      try Self.checkPrecondition(request, version: data.navigation.version)
      return true
    }
    // A concurrent delete or expiry got there first: the session is gone all the same.
    guard !events.isEmpty else { throw APIProblem.sessionNotFound }
    logger.debug("session deleted", metadata: ["session": "\(record.id)"])
    return HTTPResponse(status: 204)
  }
}
