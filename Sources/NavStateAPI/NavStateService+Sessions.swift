import Logging
import MicroHTTPServer
import NavJSON
import NavStateEngine
import NavStateWire
import NavigationCore

extension NavStateService {
  func createSession(_ request: HTTPRequest) throws(APIProblem) -> HTTPResponse {
    var graphName: String?
    var root: RouteRequest?
    var context: SessionContext?
    if let body = try Self.jsonBody(request) {
      guard let object = body.objectValue else {
        throw APIProblem(NavigationError(.invalidRequest, "the body must be a JSON object"))
      }
      if let unknown = object.keys.first(where: { !Self.creationFields.contains($0) }) {
        throw APIProblem(
          NavigationError(.invalidRequest, "session creation has no field \(quoted(unknown))"))
      }
      switch object["graph"] {
      case .none: break
      case .some(.string(let name)): graphName = name
      case .some:
        throw APIProblem(NavigationError(.invalidRequest, "'graph' must be a graph name"))
      }
      do throws(NavigationError) {
        if let rootValue = object["root"] { root = try CommandDecoder.rootRequest(rootValue) }
        if let contextValue = object["context"] {
          let given = try SessionContext(json: contextValue)
          try given.checkSize()
          context = given
        }
      } catch {
        throw APIProblem(error)
      }
    }
    let creatorResult = request.headers.withFirstValue("authorization") { header in
      Result { () throws(EngineRefusal) in
        try store.creator(token: header.flatMap(BearerToken.token(in:)))
      }
    }
    let creator = try engine { () throws(EngineRefusal) in try creatorResult.get() }
    let created = try engine { () throws(EngineRefusal) in
      try store.createSession(
        graph: graphName, root: root, context: context, creator: creator,
        client: clientAddresses.address(of: request))
    }
    logger.debug("session created", metadata: ["session": "\(created.record.id)"])
    return Self.createdResponse(created)
  }

  /// 201 with a new session's `{session, token}` (made or forked), where it lives and its
  /// version; never cached, since it holds the token.
  static func createdResponse(_ created: consuming CreatedSession) -> HTTPResponse {
    let id = created.record.id
    let version = created.answer.version
    var response = json(201, created.takeAnswer().takeBody())
    response.headers.add("Location", "/v1/sessions/\(id)")
    response.headers.add("ETag", etag(version))
    response.headers.add("Cache-Control", "no-store")
    return response
  }

  /// The members a creation's body may have.
  static let creationFields: Set<String> = ["graph", "root", "context"]

  func getSession(_ request: HTTPRequest, key: SessionID?) throws(APIProblem) -> HTTPResponse {
    let (record, caller) = try authorizeCaller(key, request)
    let viewer = caller.viewer
    if request.query != nil, let at = request.queryItem("at") {
      let version = try Self.version(at)
      let state = try engine { () throws(EngineRefusal) in
        try store.state(of: record, at: version, viewer: viewer)
      }
      return Self.json(200, state.takeBody(), etag: version)
    }
    let state = try engine { () throws(EngineRefusal) in
      try store.state(of: record, viewer: viewer)
    }
    let version = state.version
    return Self.json(200, state.takeBody(), etag: version)
  }

  func deleteSession(_ request: HTTPRequest, _ authorized: Authorized) throws(APIProblem)
    -> HTTPResponse
  {
    let record = authorized.record
    if authorized.caller.share != nil {
      throw APIProblem(EngineRefusal.readOnly(what: "deleting the session"))
    }
    let precondition = Self.precondition(request)
    try engine { () throws(EngineRefusal) in try store.delete(record, precondition: precondition) }
    logger.debug("session deleted", metadata: ["session": "\(record.id)"])
    return HTTPResponse(status: 204)
  }
}
