import NavStateEngine
import NavigationCore

/// Every refusal of the engine, worded for HTTP: the one place that gives each its status, code
/// and headers.
extension APIProblem {
  init(_ refusal: EngineRefusal) {
    switch refusal {
    case .navigation(let error):
      self.init(error)
    case .unknownGraph(let name):
      self.init(
        status: 422, code: "unknown_graph", title: "Unknown graph",
        detail: "no graph named \(quoted(name)) is loaded (see GET /v1/graphs)")
    case .sessionNotFound:
      self = .sessionNotFound
    case .backendOnly(let what):
      self.init(
        status: 403, code: "backend_only", title: "Backend only",
        detail: "\(what) is for the app's backend: send one of its keys as the bearer token")
    case .shareCannotShare:
      self.init(
        status: 403, code: "share_cannot_share", title: "Shares cannot share",
        detail: "a share's token cannot create or revoke shares: ask the session's owner")
    case .readOnly(let what):
      self.init(
        status: 403, code: "read_only", title: "Read only",
        detail: "\(what) is not allowed with this share's token")
    case .backendKeyRequired:
      self.init(
        status: 401, code: "backend_key_required", title: "Unauthorized",
        detail: "sessions are created by the app's backend here: send one of its keys",
        headers: [("WWW-Authenticate", "Bearer")])
    case .missingToken:
      self = .missingToken
    case .malformedToken:
      self = .malformedToken
    case .memoryExhausted:
      self.init(
        status: 503, code: "memory_exhausted", title: "Memory budget exhausted",
        detail: "the server holds as much as its memory budget allows; retry later",
        headers: [("Retry-After", "30")])
    case .tooManySessions(let limit):
      self.init(
        status: 503, code: "too_many_sessions", title: "Too many sessions",
        detail: "the server holds its limit of \(limit) sessions; retry later",
        headers: [("Retry-After", "60")])
    case .tooManySessionsForClient(let cap):
      self.init(
        status: 429, code: "too_many_sessions_for_client", title: "Too many sessions",
        detail: "this client address holds its share of \(cap) sessions; end one or retry later",
        headers: [("Retry-After", "60")])
    case .tooManyStreamsForClient(let cap):
      self.init(
        status: 429, code: "too_many_streams_for_client", title: "Too many event streams",
        detail:
          "this client address holds its share of \(cap) open event streams; close one or retry later",
        headers: [("Retry-After", "10")])
    case .journalUnavailable:
      self = .journalUnavailable
    case .storeUnavailable(let reason, let retryAfter):
      self.init(
        status: 503, code: "store_unavailable", title: "Store unavailable",
        detail: "\(reason); the change was not made, retry later",
        headers: [("Retry-After", String(retryAfter))])
    case .graphVersionExists(let name, let newest):
      self.init(
        status: 409, code: "graph_version_exists", title: "Graph version exists",
        detail:
          "graph \(quoted(name)) is loaded at version \(newest); a new version must be greater",
        extra: [("version", String(newest))])
    case .invalidVersion(let current):
      self.init(
        status: 400, code: "invalid_version", title: "Invalid version",
        detail: "'version' must be an integer from 1 to the session's version, \(current)")
    case .historyExpired(let oldest):
      self.init(
        status: 410, code: "history_expired", title: "History expired",
        detail: "the session's history keeps versions from \(oldest) on",
        extra: [("oldest", String(oldest))])
    case .idempotencyKeyInUse:
      self = .idempotencyKeyInUse
    case .idempotencyKeyReused:
      self = .idempotencyKeyReused
    case .versionMismatch(let version, let precondition):
      let current = NavStateService.etag(version)
      self.init(
        status: 412, code: "version_mismatch", title: "Precondition failed",
        detail: "the session is at version \(version), not \(quoted(precondition.text))",
        extra: [("version", String(version))], headers: [("ETag", current)])
    }
  }
}

/// Calls into the engine from a handler: a refusal comes out as its problem document.
func engine<Result: ~Copyable>(_ call: () throws(EngineRefusal) -> Result) throws(APIProblem)
  -> Result
{
  do {
    return try call()
  } catch {
    throw APIProblem(error)
  }
}
