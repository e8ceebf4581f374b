import MicroHTTPServer
import NavJSON
import NavStateEngine
import NavStateWire
import NavigationCore

/// Shares, presence, handoff codes and forks (docs/shares.md).
extension NavStateService {
  func addShares(to router: inout Router) {
    router.add("POST", "/v1/sessions/{sid}/shares") { [self] request, params in
      answer { () throws(APIProblem) in try createShare(request, key: sessionKey(params)) }
    }
    router.add("DELETE", "/v1/sessions/{sid}/shares/{id}") { [self] request, params in
      let key: SessionID?
      do throws(APIProblem) { key = try sessionKey(params) } catch { return error.response }
      let share = params["id"] ?? ""
      let response = mutation(request, key: key, sharesMay: false) {
        (claim, authorized) throws(APIProblem) in
        try revokeShare(request, authorized, share: share, idempotency: claim)
      }
      // A repeat under the key gets what the revocation was answered: the key was settled with
      // the change's body (as every change's is), which a revocation answers as 204.
      guard response.status == 200, response.headers["Idempotent-Replayed"] == "true" else {
        return response
      }
      return HTTPResponse(status: 204, headers: HTTPHeaders([("Idempotent-Replayed", "true")]))
    }
    router.add("GET", "/v1/sessions/{sid}/presence") { [self] request, params in
      answer { () throws(APIProblem) in try getPresence(request, key: sessionKey(params)) }
    }
    router.add("POST", "/v1/handoffs") { [self] request, _ in
      answer { () throws(APIProblem) in try redeemHandoff(request) }
    }
    router.add("POST", "/v1/sessions/{sid}/fork") { [self] request, params in
      answer { () throws(APIProblem) in try forkSession(request, key: sessionKey(params)) }
    }
  }

  /// The members `POST .../shares` takes.
  static let shareFields: Set<String> = ["mode", "label", "ttlSeconds", "code"]

  func createShare(_ request: HTTPRequest, key: SessionID?) throws(APIProblem) -> HTTPResponse {
    let (record, caller) = try authorizeCaller(key, request)
    guard caller.share == nil else { throw APIProblem(EngineRefusal.shareCannotShare) }
    try Self.refuseIdempotencyKey(request, for: "a share")
    let shareRequest = try Self.shareRequest(try Self.jsonBody(request))
    let precondition = Self.precondition(request)
    let issued = try engine { () throws(EngineRefusal) in
      try store.createShare(
        shareRequest, on: record, by: caller, precondition: precondition)
    }
    var writer = JSONWriter(capacity: 512)
    writer.beginObject()
    writer.key("share")
    ShareJSON.writeShare(issued.share, into: &writer)
    writer.key("token")
    writer.string(issued.token)
    if let code = issued.code {
      writer.key("code")
      writer.string(code)
    }
    writer.endObject()
    var response = Self.json(201, writer, etag: issued.version)
    response.headers.add("Cache-Control", "no-store")
    return response
  }

  static func shareRequest(_ body: JSONValue?) throws(APIProblem) -> ShareRequest {
    func invalid(_ detail: String) -> APIProblem {
      APIProblem(NavigationError(.invalidRequest, detail))
    }
    guard let object = body?.objectValue else {
      throw invalid("the body must be an object {mode, label, ttlSeconds?, code?}")
    }
    if let unknown = object.keys.first(where: { !shareFields.contains($0) }) {
      throw invalid("a share has no field \(quoted(unknown))")
    }
    guard let modeName = object["mode"]?.stringValue, let mode = ShareMode(rawValue: modeName)
    else { throw invalid("'mode' must be \"follow\" or \"drive\"") }
    guard let label = object["label"]?.stringValue else {
      throw invalid("'label' must be a string of 1 to 64 characters")
    }
    var ttl: Int?
    if let value = object["ttlSeconds"] {
      guard let seconds = value.intValue else { throw invalid("'ttlSeconds' must be an integer") }
      ttl = seconds
    }
    var wantsCode = false
    if let value = object["code"] {
      guard let flag = value.boolValue else { throw invalid("'code' must be a boolean") }
      wantsCode = flag
    }
    do throws(NavigationError) {
      return try ShareRequest(mode: mode, label: label, ttlSeconds: ttl, wantsCode: wantsCode)
    } catch {
      throw APIProblem(error)
    }
  }

  /// A creation that hands out a token takes no `Idempotency-Key`: the answer to repeat would
  /// hold the token, and the server keeps no token where it keeps answers (the journal).
  static func refuseIdempotencyKey(_ request: HTTPRequest, for what: String) throws(APIProblem) {
    guard request.headers["idempotency-key"] != nil else { return }
    throw APIProblem(
      status: 400, code: "invalid_idempotency_key", title: "Invalid Idempotency-Key",
      detail:
        "\(what) hands out a token, which the server never keeps to answer again: send it"
        + " without Idempotency-Key (and revoke or delete what a lost answer made)")
  }

  func revokeShare(
    _ request: HTTPRequest, _ authorized: Authorized, share: String,
    idempotency: IdempotencyClaim?
  ) throws(APIProblem) -> HTTPResponse {
    let precondition = Self.precondition(request)
    let applied = try engine { () throws(EngineRefusal) in
      try store.revokeShare(
        share, of: authorized.record, by: authorized.caller, precondition: precondition,
        idempotency: idempotency)
    }
    if let replay = applied.replay { return Self.replayed(replay) }
    return HTTPResponse(status: 204)
  }

  func getPresence(_ request: HTTPRequest, key: SessionID?) throws(APIProblem) -> HTTPResponse {
    let (record, _) = try authorizeCaller(key, request)
    let body = try engine { () throws(EngineRefusal) in try store.presence(of: record) }
    return Self.json(200, body)
  }

  func redeemHandoff(_ request: HTTPRequest) throws(APIProblem) -> HTTPResponse {
    guard let object = try Self.jsonBody(request)?.objectValue,
      object.keys.allSatisfy({ $0 == "code" }), let code = object["code"]?.stringValue
    else {
      throw APIProblem(NavigationError(.invalidRequest, "the body must be an object {code}"))
    }
    switch store.redeemHandoff(code, client: clientAddresses.address(of: request)) {
    case .throttled(let seconds):
      throw APIProblem(
        status: 429, code: "too_many_attempts", title: "Too many attempts",
        detail: "this address made too many failed redemptions in the last minute",
        headers: [("Retry-After", String(seconds))])
    case .unknown:
      throw APIProblem(
        status: 404, code: "unknown_code", title: "Unknown code",
        detail: "no handoff code like this one stands: it was used, it expired, or never was")
    case .redeemed(let state, let token, let share):
      var writer = JSONWriter(capacity: state.count + 256)
      writer.beginObject()
      writer.key("session")
      writer.raw(state)
      writer.key("token")
      writer.string(token)
      writer.key("share")
      ShareJSON.writeShare(share, into: &writer)
      writer.endObject()
      var response = Self.json(200, writer)
      response.headers.add("Cache-Control", "no-store")
      return response
    }
  }

  func forkSession(_ request: HTTPRequest, key: SessionID?) throws(APIProblem) -> HTTPResponse {
    let (record, caller) = try authorizeCaller(key, request)
    if caller.follows { throw APIProblem(EngineRefusal.readOnly(what: "forking a session")) }
    try Self.refuseIdempotencyKey(request, for: "a fork")
    var version: Int?
    if let body = try Self.jsonBody(request) {
      guard let object = body.objectValue, object.keys.allSatisfy({ $0 == "version" }) else {
        throw APIProblem(NavigationError(.invalidRequest, "the body must be an object {version?}"))
      }
      if let value = object["version"] {
        guard let number = value.intValue else {
          throw APIProblem(EngineRefusal.invalidVersion(current: 0)).withDetail(
            "'version' must be an integer, a version of the session")
        }
        version = number
      }
    }
    let forked = try engine { () throws(EngineRefusal) in
      try store.fork(
        record, at: version, by: caller, client: clientAddresses.address(of: request))
    }
    return Self.createdResponse(forked)
  }
}
