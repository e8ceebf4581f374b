import MicroHTTPServer
import NavJSON
import NavStateEngine
import NavigationCore

/// Context and leave guards (docs/behaviour.md sections 9 and 11): each a change like any other, answered as a
/// mutation, through the engine's transaction.
extension NavStateService {
  /// `PUT .../context` replaces the context; `PATCH` applies an RFC 7396 merge patch to it. The
  /// backend's alone (403 `backend_only` for a session token).
  func setContext(
    _ request: HTTPRequest, _ authorized: Authorized, merge: Bool,
    idempotency: IdempotencyClaim?
  ) throws(APIProblem) -> HTTPResponse {
    let (record, caller) = (authorized.record, authorized.caller)
    guard caller == .backend else {
      throw APIProblem(.backendOnly(what: "setting a session's context"))
    }
    if merge { try Self.requireMergePatchMediaType(request) }
    guard let body = try Self.jsonBody(request) else {
      throw APIProblem(
        NavigationError(.invalidContext, "send the context (or, with PATCH, a merge patch)"))
    }
    guard merge else {
      let context = try Self.context(from: body)
      return try apply(
        .setContext(context), to: record, by: caller, request: request, idempotency: idempotency
      ).http
    }
    // A merge applies to the context as it is when the change is made: read with its version
    // and applied only at that version, again if another change came between.
    let asked = Self.precondition(request)
    while true {
      let (current, version) = try engine { () throws(EngineRefusal) in
        try store.context(of: record)
      }
      let context: SessionContext
      do throws(NavigationError) {
        context = try current.merging(body)
        try context.checkSize()
      } catch {
        throw APIProblem(error)
      }
      do throws(APIProblem) {
        return try apply(
          .setContext(context), to: record, by: caller, request: request,
          precondition: asked
            ?? VersionPrecondition(matchesAny: false, versions: [version], text: ""),
          idempotency: idempotency
        ).http
      } catch  where error.code == "version_mismatch" && asked == nil {
        continue
      }
    }
  }

  static func context(from body: JSONValue) throws(APIProblem) -> SessionContext {
    do throws(NavigationError) {
      let context = try SessionContext(json: body)
      try context.checkSize()
      return context
    } catch {
      throw APIProblem(error)
    }
  }

  /// `PUT .../coordinators/{cid}/leave-guard {reason}` sets one; `DELETE` clears it.
  func setLeaveGuard(
    _ request: HTTPRequest, _ authorized: Authorized, coordinator: String, clear: Bool,
    idempotency: IdempotencyClaim?
  ) throws(APIProblem) -> HTTPResponse {
    let (record, caller) = (authorized.record, authorized.caller)
    guard let target = CoordinatorID(coordinator) else {
      throw APIProblem(
        NavigationError(
          .unknownCoordinator, "\(quoted(coordinator)) is not a coordinator id (c1, c2, ...)"))
    }
    var reason: String?
    if !clear {
      guard let body = try Self.jsonBody(request), let object = body.objectValue,
        case .some(.string(let text)) = object["reason"], object.members.count == 1
      else {
        throw APIProblem(
          NavigationError(
            .invalidRequest,
            "send {\"reason\": \"...\"}: why leaving the coordinator would lose something"))
      }
      reason = text
    }
    return try apply(
      .setLeaveGuard(target, reason: reason), to: record, by: caller, request: request,
      idempotency: idempotency
    ).http
  }
}

extension NavStateService {
  /// A PATCH of the context is an RFC 7396 merge patch, and says so: `application/json` there
  /// would ask for some other patch format (RFC 6902's is `application/json-patch+json`).
  static func requireMergePatchMediaType(_ request: HTTPRequest) throws(APIProblem) {
    let type = request.headers["content-type"]
    let essence = type?.split(separator: ";").first.map {
      $0.trimmingSpaces.lowercased()
    }
    guard essence != "application/merge-patch+json" else { return }
    throw APIProblem(
      status: 415, code: "unsupported_media_type", title: "Unsupported media type",
      detail: type.map { "send the merge patch as application/merge-patch+json, not \(quoted($0))" }
        ?? "send the merge patch with Content-Type: application/merge-patch+json",
      headers: [("Accept-Patch", "application/merge-patch+json")])
  }
}

extension Substring {
  fileprivate var trimmingSpaces: Substring {
    var text = self
    while text.first == " " || text.first == "\t" { text.removeFirst() }
    while text.last == " " || text.last == "\t" { text.removeLast() }
    return text
  }
}
