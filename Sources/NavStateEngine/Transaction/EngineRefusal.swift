public import NavigationCore

/// Why the engine did not do what it was asked. The API words each one as a problem document in
/// one place (`APIProblem(_:)` in NavStateAPI), so the engine holds no status codes.
public enum EngineRefusal: Error, Sendable {
  /// The core refused the operation (a rule of the navigation model).
  case navigation(NavigationError)
  /// A creation named a graph that is not loaded.
  case unknownGraph(String)
  /// No session with this id for this token (a wrong token and an unknown id alike).
  case sessionNotFound
  /// Only the backend may do this (`what` says what was asked).
  case backendOnly(what: String)
  /// Sessions are created by the backend only (`--session-creation backend`).
  case backendKeyRequired
  /// The call carried no token.
  case missingToken
  /// The token is not one this service could have issued.
  case malformedToken
  /// The memory budget has no room for what the call would add.
  case memoryExhausted
  /// The server holds its limit of sessions.
  case tooManySessions(limit: Int)
  /// The caller's address holds its share of sessions.
  case tooManySessionsForClient(cap: Int)
  /// The caller's address holds its share of open event streams.
  case tooManyStreamsForClient(cap: Int)
  /// The journal could not record the change, so it was not made.
  case journalUnavailable
  /// The database that keeps sessions (`--postgres`) did not keep the change, or this node no
  /// longer holds the session's lease: it was not made. `retryAfter` in seconds.
  case storeUnavailable(reason: String, retryAfter: Int)
  /// A graph version was loaded that is not newer than the newest loaded.
  case graphVersionExists(name: String, newest: Int)
  /// A request with this `Idempotency-Key` is being decided.
  case idempotencyKeyInUse
  /// The `Idempotency-Key` was used for another request on this session.
  case idempotencyKeyReused
  /// A version that is no version of the session (zero, or newer than `current`).
  case invalidVersion(current: Int)
  /// The version is older than the session's history keeps; `oldest` is the oldest kept.
  case historyExpired(oldest: Int)
  /// A share token asked to share the session (or to revoke a share).
  case shareCannotShare
  /// A share token asked for what its share does not allow (`what` says what was asked).
  case readOnly(what: String)
  /// The session is not at a version the call accepts (`If-Match`).
  case versionMismatch(current: Int, precondition: VersionPrecondition)
}
