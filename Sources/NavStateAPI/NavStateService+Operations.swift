import Logging
import MicroHTTPServer
import NavJSON
import NavStateEngine
import NavStateWire
import NavigationCore

/// The navigation operations: every mutation goes through `apply`.
extension NavStateService {
  func teardown(
    _ request: HTTPRequest, _ authorized: Authorized, coordinator: String,
    idempotency: IdempotencyClaim? = nil
  ) throws(APIProblem) -> HTTPResponse {
    let (record, caller) = (authorized.record, authorized.caller)
    guard let target = CoordinatorID(coordinator) else {
      throw APIProblem(
        NavigationError(
          .unknownCoordinator, "\(quoted(coordinator)) is not a coordinator id (c1, c2, ...)"))
    }
    let response = try apply(
      .teardown(target), to: record, by: caller, request: request, idempotency: idempotency)
    // An already stopped coordinator is a no-op success: clients retry and gestures race.
    return response.status == 200 && response.events == 0 && !response.isReplay
      ? HTTPResponse(status: 204) : response.http
  }

  func mutate(
    _ request: HTTPRequest, _ authorized: Authorized, operation: Operation,
    idempotency: IdempotencyClaim? = nil
  ) throws(APIProblem) -> HTTPResponse {
    let (record, caller) = (authorized.record, authorized.caller)
    return try apply(
      try command(operation, for: request), to: record, by: caller, request: request,
      idempotency: idempotency
    ).http
  }

  /// The body of `operation` as a command: the common shapes read straight from the bytes,
  /// anything else parsed and decoded in full (which words every refusal).
  func command(_ operation: Operation, for request: HTTPRequest) throws(APIProblem) -> Command {
    if !request.body.isEmpty {
      try Self.requireJSONMediaType(request)
      let hot = request.body.withUnsafeBufferPointer { bytes in
        HotCommandDecoder.command(operation, body: bytes)
      }
      if let hot { return hot }
    }
    return try decode(operation, try Self.jsonBody(request) ?? .object(JSONObject()))
  }

  struct Applied {
    var http: HTTPResponse
    var status: Int { http.status }
    var events: Int
    /// The answer decided before under the request's `Idempotency-Key`, given again.
    var isReplay = false
  }

  /// Applies one command through the engine (``SessionStore/apply``) and answers its
  /// `MutationResult`, or `{version, events}` to a client that sent `Prefer: return=minimal`.
  func apply(
    _ command: Command, to record: SessionRecord, by caller: Caller = .sessionHolder,
    request: HTTPRequest, precondition: VersionPrecondition? = nil,
    idempotency: IdempotencyClaim? = nil
  )
    throws(APIProblem) -> Applied
  {
    let minimal = ReturnPreference.prefersMinimal(request.headers)
    let precondition = precondition ?? Self.precondition(request)
    let applied = try engine { () throws(EngineRefusal) in
      try store.apply(
        command, to: record, by: caller, precondition: precondition, minimal: minimal,
        idempotency: idempotency)
    }
    if let replay = applied.replay {
      return Applied(http: Self.replayed(replay), events: 0, isReplay: true)
    }
    let version = applied.version
    let eventCount = applied.eventCount
    var response = Self.json(200, applied.takeAnswer(), etag: version)
    Self.addChangeHeaders(to: &response.headers, minimal: minimal)
    return Applied(http: response, events: eventCount)
  }

  /// What a change's answer says beyond its JSON and `ETag`, live or replayed (see
  /// ``changeAnswer(body:)``): one function for both, so they cannot drift apart.
  static func addChangeHeaders(to headers: inout HTTPHeaders, minimal: Bool) {
    if minimal { headers.add("Preference-Applied", "return=minimal") }
  }

  /// A decided change's answer rebuilt from its body (`{version, session?, events}`), as
  /// ``apply`` answered it: status 200, JSON, `ETag` of its version, and whether it was minimal
  /// (no `session`). Nil for a body that is not such an answer.
  static func changeAnswer(body: [UInt8]) -> HTTPResponse? {
    guard let object = (try? JSONParser.parse(body))?.objectValue,
      let version = object["version"]?.intValue
    else { return nil }
    var response = json(200, body, etag: version)
    addChangeHeaders(to: &response.headers, minimal: object["session"] == nil)
    return response
  }
}
