import MicroHTTPServer
import NavJSON
import NavStateEngine

/// Safe retries: `Idempotency-Key` on every mutation of a session (docs/behaviour.md, "Safe
/// retries").
extension NavStateService {
  /// Answers a session mutation. Without `Idempotency-Key`, `work` alone. With one, the first
  /// request decided (2xx or 4xx) under the key is remembered with its answer: a repeat of it is
  /// answered the same (`Idempotent-Replayed: true`) and changes nothing, another request under
  /// the key is 422, and a repeat while the first is being decided is 409.
  ///
  /// The token is checked once, here, and the session and caller it names handed to `work`. A
  /// change claims, applies and settles its key in one engine call, under one lock (and answers
  /// a replay from there); only a refusal, which this module words, is settled afterwards (see
  /// ``SessionStore/decide(_:of:with:)``).
  ///
  /// A follow share's call is refused (403 `read_only`), and any share's when `sharesMay` is
  /// false (403 `share_cannot_share`: the calls on shares themselves).
  func mutation(
    _ request: HTTPRequest, key sessionKey: SessionID?, sharesMay: Bool = true,
    _ work: (IdempotencyClaim?, Authorized) throws(APIProblem) -> HTTPResponse
  ) -> HTTPResponse {
    // Looked up in place first: most requests carry no key, and pay no String for it.
    guard request.headers.withFirstValue("idempotency-key", { $0 != nil }),
      let idempotencyKey = request.headers["idempotency-key"]
    else {
      return answer { () throws(APIProblem) in
        try work(
          nil,
          try Self.mayChange(
            Authorized(try authorizeCaller(sessionKey, request)), sharesMay: sharesMay))
      }
    }
    return answer { () throws(APIProblem) in
      guard request.headers.values("idempotency-key").count == 1,
        IdempotencyLedger.isValidKey(idempotencyKey)
      else { throw APIProblem.invalidIdempotencyKey }
      let authorized = try Self.mayChange(
        Authorized(try authorizeCaller(sessionKey, request)), sharesMay: sharesMay)
      // The backend, the session's token holder and each share have key spaces of their own:
      // the same key from another is another request, whose answer may differ (a 403
      // backend_only). A space is no visible character, so no client's key can look like one.
      let space: String =
        switch authorized.caller {
        case .backend: "backend "
        case .share(let id, _): "share \(id) "
        case .sessionHolder, .server: ""
        }
      let claim = IdempotencyClaim(
        key: space + idempotencyKey,
        fingerprint: IdempotencyLedger.fingerprint(
          method: request.method, path: request.path, body: request.body))
      let response = answer { () throws(APIProblem) in try work(claim, authorized) }
      guard !claim.isSettled else { return response }
      return settle(claim, of: authorized.record, with: response)
    }
  }

  /// A follow share reads only: every change it asks for is 403 `read_only`.
  static func mayChange(_ authorized: Authorized, sharesMay: Bool = true) throws(APIProblem)
    -> Authorized
  {
    guard sharesMay || authorized.caller.share == nil else {
      throw APIProblem(EngineRefusal.shareCannotShare)
    }
    guard !authorized.caller.follows else {
      throw APIProblem(EngineRefusal.readOnly(what: "changing the session"))
    }
    return authorized
  }

  /// Settles a key with the answer of a request no change settled (a refusal, a change of
  /// nothing, a deletion); a 5xx frees it instead. Answers that, unless the key turns out to be
  /// another request's: then what that one decided, or 409/422.
  private func settle(
    _ claim: IdempotencyClaim, of record: SessionRecord, with response: HTTPResponse
  ) -> HTTPResponse {
    let decided = response.status < 500
    let body: [UInt8]
    switch response.body {
    case .bytes(let bytes): body = bytes
    case .buffer(let buffer): body = buffer.bytes
    case .stream: body = []
    }
    let verdict = store.decide(
      claim, of: record,
      with: decided
        ? IdempotencyLedger.Decision(
          fingerprint: claim.fingerprint, status: response.status,
          headers: response.headers.pairs.map { .init(name: $0.0, value: $0.1) }, body: body)
        : nil)
    switch verdict {
    case .claimed: return response
    case .replay(let decision): return Self.replayed(decision)
    case .inUse: return APIProblem.idempotencyKeyInUse.response
    case .reused: return APIProblem.idempotencyKeyReused.response
    }
  }

  /// A decided answer again: a change's (kept without header fields) worded from its body as
  /// the live answer was; any other as it was kept.
  static func replayed(_ decision: IdempotencyLedger.Decision) -> HTTPResponse {
    var response =
      decision.status == 200 && decision.headers.isEmpty
      ? changeAnswer(body: decision.body)
        ?? HTTPResponse(status: decision.status, headers: HTTPHeaders([]), body: decision.body)
      : HTTPResponse(
        status: decision.status,
        headers: HTTPHeaders(decision.headers.map { ($0.name, $0.value) }),
        body: decision.body)
    response.headers.add("Idempotent-Replayed", "true")
    return response
  }
}

extension APIProblem {
  static let invalidIdempotencyKey = APIProblem(
    status: 400, code: "invalid_idempotency_key", title: "Invalid Idempotency-Key",
    detail: "send one Idempotency-Key of 1 to 64 visible ASCII characters")

  static let idempotencyKeyInUse = APIProblem(
    status: 409, code: "idempotency_key_in_use", title: "Idempotency key in use",
    detail: "a request with this Idempotency-Key is being decided; retry in a moment",
    headers: [("Retry-After", "1")])

  static let idempotencyKeyReused = APIProblem(
    status: 422, code: "idempotency_key_reused", title: "Idempotency key reused",
    detail:
      "this Idempotency-Key was used for another request (method, path or body) on this session")
}

/// A session and who calls it, the token checked once per request.
struct Authorized {
  let record: SessionRecord
  let caller: Caller

  init(record: SessionRecord, caller: Caller) {
    self.record = record
    self.caller = caller
  }

  init(_ checked: (record: SessionRecord, caller: Caller)) {
    self.init(record: checked.record, caller: checked.caller)
  }
}
