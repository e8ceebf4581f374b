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
    return response.status == 200 && response.events == 0
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
        idempotency: idempotency
      ) { version in Self.answerHeaders(version: version, minimal: minimal) }
    }
    let version = applied.version
    let eventCount = applied.eventCount
    var response = Self.json(200, applied.takeAnswer(), etag: version)
    if minimal { response.headers.add("Preference-Applied", "return=minimal") }
    return Applied(http: response, events: eventCount)
  }

  /// The answer's header fields as ``apply`` sends them, for an idempotency key's record.
  private static func answerHeaders(version: Int, minimal: Bool)
    -> [IdempotencyLedger.Decision.Header]
  {
    var headers = [
      IdempotencyLedger.Decision.Header(name: "Content-Type", value: "application/json"),
      IdempotencyLedger.Decision.Header(name: "ETag", value: etag(version)),
    ]
    if minimal {
      headers.append(.init(name: "Preference-Applied", value: "return=minimal"))
    }
    return headers
  }
}
