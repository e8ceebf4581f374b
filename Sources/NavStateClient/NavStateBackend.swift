public import Foundation
import HTTPTypes
public import OpenAPIRuntime

/// The service as the app's own backend calls it, with one of its keys (`--backend-key-file`):
/// for a Swift server that knows who the user is, never for the app, which holds only its
/// session's token.
///
/// It creates sessions with a first context, sets and patches the context of any session (a
/// login, a logout, an email verified: guarded routes open and close, a pending request is
/// applied), opens any session for the usual operations, and loads new versions of graphs.
public final class NavStateBackend: Sendable {
  public let serverURL: URL
  let transport: any ClientTransport
  let key: String
  let client: Client

  /// `key` is one line of the server's `--backend-key-file`: keep it out of apps and logs.
  public init(serverURL: URL, transport: any ClientTransport, key: String) {
    self.serverURL = serverURL
    self.transport = transport
    self.key = key
    self.client = NavStateSession.client(serverURL: serverURL, transport: transport, token: key)
  }

  // MARK: Sessions

  /// Creates a session on `graph` at `root` with a first `context`. The answer's session holds
  /// the session's token: hand `id` and `token` to the app, which opens it with
  /// ``NavStateSession/init(serverURL:transport:id:token:options:)``.
  public func createSession(
    graph: String? = nil, root: String? = nil, params: Params = [:],
    context: SessionContext = [:]
  ) async throws(NavStateError) -> (session: NavStateSession, state: SessionState) {
    let created: Components.Schemas.CreatedSession
    do {
      created = try await client.createSession(
        body: .json(
          .init(
            graph: graph, root: root.map { .init(route: $0, params: generatedParams(params)) },
            context: context.isEmpty ? nil : .init(additionalProperties: context)))
      ).created.body.json
    } catch {
      throw NavStateError.from(error)
    }
    let session = NavStateSession(
      serverURL: serverURL, transport: transport, id: created.session.id, token: created.token)
    let state = SessionState(created.session)
    session.saw(state)
    return (session, state)
  }

  /// Any session, to read and navigate as the backend: every call sends the backend's key.
  public func session(_ id: String, options: NavStateSession.Options = .init()) -> NavStateSession {
    NavStateSession(
      serverURL: serverURL, transport: transport, id: id, token: key, options: options)
  }

  /// Replaces the context of session `id`. What it opens and closes happens in the same
  /// version: a pending request applied, coordinators stopped (`requirementLost`).
  /// `ifMatch`: apply only at this version; `idempotencyKey`: make a retry safe.
  public func setContext(
    _ context: SessionContext, of id: String, ifMatch version: Int? = nil,
    idempotencyKey: String? = nil
  ) async throws(NavStateError) -> Mutation {
    try await mutation {
      try await client.putContext(
        path: .init(sid: id),
        headers: .init(ifMatch: version.map { "\"\($0)\"" }, idempotencyKey: idempotencyKey),
        body: .json(.init(additionalProperties: context))
      ).ok.body.json
    }
  }

  /// Changes some keys of the context of session `id` (a JSON merge patch): a key mapped to
  /// nil is removed, the others are set; keys not named stay.
  public func patchContext(
    _ changes: [String: ContextValue?], of id: String, ifMatch version: Int? = nil,
    idempotencyKey: String? = nil
  ) async throws(NavStateError) -> Mutation {
    try await mutation {
      // Through JSON, where a nil is the null that removes a key.
      let patch = try JSONDecoder().decode(
        Components.Schemas.ContextPatch.self, from: try JSONEncoder().encode(changes))
      return try await client.patchContext(
        path: .init(sid: id),
        headers: .init(ifMatch: version.map { "\"\($0)\"" }, idempotencyKey: idempotencyKey),
        body: .applicationMergePatchJson(patch)
      ).ok.body.json
    }
  }

  private func mutation(_ send: () async throws -> Components.Schemas.MutationResult)
    async throws(NavStateError) -> Mutation
  {
    do {
      guard let mutation = Mutation(try await send()) else {
        throw NavStateError(
          status: 200, code: .unexpectedResponse,
          detail: "the answer to a write had no state (return=minimal was not asked for)")
      }
      return mutation
    } catch {
      throw NavStateError.from(error)
    }
  }

  // MARK: Graphs

  /// Loads a new version of graph `name` from its graph file's JSON (with a `version` above
  /// the newest and, for renamed or removed routes, `migrate`); answers the version loaded.
  /// Live sessions move to it at their next call, or all at once with ``migrateSessions(of:)``.
  public func loadGraph(_ name: String, json: Data) async throws(NavStateError) -> Int {
    struct Loaded: Decodable { var version: Int }
    let (status, body) = try await putGraph(name, json: json, dryRun: false)
    guard status == 201, let loaded = try? JSONDecoder().decode(Loaded.self, from: body) else {
      throw NavStateError(
        status: status, code: .unexpectedResponse,
        detail: String(decoding: body.prefix(200), as: UTF8.self))
    }
    return loaded.version
  }

  /// What loading this version of graph `name` and migrating every live session to it would
  /// do; nothing is loaded.
  public func dryRun(_ name: String, json: Data) async throws(NavStateError) -> MigrationReport {
    let (status, body) = try await putGraph(name, json: json, dryRun: true)
    guard status == 200,
      let report = try? JSONDecoder().decode(Components.Schemas.MigrationReport.self, from: body)
    else {
      throw NavStateError(
        status: status, code: .unexpectedResponse,
        detail: String(decoding: body.prefix(200), as: UTF8.self))
    }
    return MigrationReport(report)
  }

  /// Moves every live session of graph `name` to its newest version now.
  public func migrateSessions(of name: String) async throws(NavStateError) -> MigrationReport {
    do {
      return MigrationReport(
        try await client.migrateSessions(path: .init(name: name)).ok.body.json)
    } catch {
      throw NavStateError.from(error)
    }
  }

  /// `PUT /v1/graphs/{name}` (or `POST .../dry-run`) with the file's bytes as they are: a graph
  /// file may carry members (a `description`) that a typed round trip need not keep.
  private func putGraph(_ name: String, json: Data, dryRun: Bool)
    async throws(NavStateError) -> (status: Int, body: Data)
  {
    var allowed = CharacterSet.urlPathAllowed
    allowed.remove(charactersIn: "/?#")
    let escaped = name.addingPercentEncoding(withAllowedCharacters: allowed) ?? name
    return try await exchange(
      dryRun ? .post : .put, "/v1/graphs/\(escaped)" + (dryRun ? "/dry-run" : ""), json: json,
      operationID: dryRun ? "dryRunGraph" : "loadGraph")
  }

  /// A request sent with the backend's key, its body as it is; a problem answer throws.
  func exchange(_ method: HTTPRequest.Method, _ path: String, json: Data?, operationID: String)
    async throws(NavStateError) -> (status: Int, body: Data)
  {
    var fields: HTTPFields = [.accept: "application/json"]
    if json != nil { fields[.contentType] = "application/json" }
    let request = HTTPRequest(
      method: method, scheme: nil, authority: nil, path: path, headerFields: fields)
    let token = BearerToken(token: key)
    let transport = transport
    do {
      let (response, body) = try await ProblemsAsErrors().intercept(
        request, body: json.map { HTTPBody($0) }, baseURL: serverURL, operationID: operationID
      ) { request, body, url in
        try await token.intercept(request, body: body, baseURL: url, operationID: operationID) {
          request, body, url in
          try await transport.send(request, body: body, baseURL: url, operationID: operationID)
        }
      }
      var bytes = Data()
      if let body { bytes = try await Data(collecting: body, upTo: 1 << 24) }
      return (response.status.code, bytes)
    } catch {
      throw NavStateError.from(error)
    }
  }

  /// ``exchange(_:_:json:operationID:)`` for a call whose only success is 200.
  func send(_ method: HTTPRequest.Method, _ path: String, json: Data?, operationID: String)
    async throws(NavStateError) -> Data
  {
    let (status, body) = try await exchange(method, path, json: json, operationID: operationID)
    guard status == 200 else {
      throw NavStateError(
        status: status, code: .unexpectedResponse,
        detail: String(decoding: body.prefix(200), as: UTF8.self))
    }
    return body
  }
}
