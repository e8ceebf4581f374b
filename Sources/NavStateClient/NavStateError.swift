/// Every refusal the service answers, as one error: the problem document's `code` (stable, for
/// programs), its HTTP status and its `detail` (for people). A 412 carries the session's current
/// `version`, and a refused batch op its `opIndex`. A 409 `leave_blocked` names the guarded
/// `coordinator` and the guard's `reason`, and carries the refused operation, to send again with
/// `discard` once the user agrees (``NavStateSession/retryDiscarding(_:)``); a 403
/// `requirement_not_met` names the closed `route` and the `missing` context keys.
public struct NavStateError: Error, Sendable, Equatable, CustomStringConvertible {
  public var status: Int
  public var code: Code
  public var title: String
  public var detail: String
  /// With 412 `version_mismatch`: the version the session is at.
  public var version: Int?
  /// With a refused batch: the index of the op that was refused.
  public var opIndex: Int?
  /// With 409 `leave_blocked`: the coordinator whose leave guard refused the operation.
  public var coordinator: CoordinatorID?
  /// With 409 `leave_blocked`: the leave guard's reason (with 410 `session_ended`: why it ended;
  /// with `session_not_found` ending the live states of a share: `revoked` or `expired`).
  public var reason: String?
  /// With 403 `requirement_not_met`: the closed route.
  public var route: String?
  /// With 403 `requirement_not_met`: the context keys whose requirement fails.
  public var missing: [String]?
  /// With 409 `leave_blocked` from a ``NavStateSession`` call: the refused operation.
  public var blockedOperation: GuardedOperation?

  public init(
    status: Int, code: Code, title: String = "", detail: String, version: Int? = nil,
    opIndex: Int? = nil, coordinator: CoordinatorID? = nil, reason: String? = nil,
    route: String? = nil, missing: [String]? = nil, blockedOperation: GuardedOperation? = nil
  ) {
    self.status = status
    self.code = code
    self.title = title
    self.detail = detail
    self.version = version
    self.opIndex = opIndex
    self.coordinator = coordinator
    self.reason = reason
    self.route = route
    self.missing = missing
    self.blockedOperation = blockedOperation
  }

  public var description: String { "\(status) \(code.rawValue): \(detail)" }

  /// The service's problem codes, stable across versions. Codes this client does not know yet
  /// still arrive, as a `Code` whose `rawValue` is the service's.
  public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    public var description: String { rawValue }

    // 409: the session's state refuses the operation.
    public static let nothingToPop = Code(rawValue: "nothing_to_pop")
    public static let notInActiveFlow = Code(rawValue: "not_in_active_flow")
    public static let nothingToDismiss = Code(rawValue: "nothing_to_dismiss")
    public static let notAModal = Code(rawValue: "not_a_modal")
    public static let nothingToGoBackTo = Code(rawValue: "nothing_to_go_back_to")
    public static let noTabContainer = Code(rawValue: "no_tab_container")
    public static let cannotReplaceTab = Code(rawValue: "cannot_replace_tab")
    public static let targetNotFree = Code(rawValue: "target_not_free")
    public static let coordinatorStopped = Code(rawValue: "coordinator_stopped")
    public static let cannotTearDownRoot = Code(rawValue: "cannot_tear_down_root")
    public static let cannotTearDownTab = Code(rawValue: "cannot_tear_down_tab")
    /// The operation would stop a coordinator with a leave guard: ask the user, then send it
    /// again with `discard`.
    public static let leaveBlocked = Code(rawValue: "leave_blocked")
    /// 403: the route is closed in the session's context and has no redirect.
    public static let requirementNotMet = Code(rawValue: "requirement_not_met")
    /// 403: only the app's backend may do this (set a context, load a graph).
    public static let backendOnly = Code(rawValue: "backend_only")
    /// 401: the server creates sessions for the app's backend only (`--session-creation
    /// backend`).
    public static let backendKeyRequired = Code(rawValue: "backend_key_required")
    // Shares, handoff codes and forks (docs/shares.md).
    /// 403: a follow share's token may only read the session; no share's token may delete it.
    public static let readOnly = Code(rawValue: "read_only")
    /// 403: a drive share's token cannot share the session, nor revoke its shares.
    public static let shareCannotShare = Code(rawValue: "share_cannot_share")
    /// 409: the session holds as many live shares as it may (16): revoke one first.
    public static let tooManyShares = Code(rawValue: "too_many_shares")
    /// 404: the session has no live share with this id.
    public static let shareNotFound = Code(rawValue: "share_not_found")
    /// 404 `unknown_code`: no live handoff code is this one (never made, already redeemed, or
    /// expired).
    public static let unknownHandoff = Code(rawValue: "unknown_code")
    /// 429: this client address failed too many handoff codes in a minute; retry after
    /// `Retry-After`.
    public static let tooManyAttempts = Code(rawValue: "too_many_attempts")
    // 422: a context the service does not take.
    public static let invalidContext = Code(rawValue: "invalid_context")
    public static let contextTooLarge = Code(rawValue: "context_too_large")
    // Loading a graph: not a valid graph (422), or a version as new is loaded (409).
    public static let invalidGraph = Code(rawValue: "invalid_graph")
    public static let graphVersionExists = Code(rawValue: "graph_version_exists")
    // History (docs/history.md): a version the session has not reached (400), one its history
    // no longer keeps (410), a replay body line that is no recording's (400).
    public static let invalidVersion = Code(rawValue: "invalid_version")
    public static let historyExpired = Code(rawValue: "history_expired")
    /// The backend feed: a cursor this server never issued, or one older than what it keeps.
    public static let invalidCursor = Code(rawValue: "invalid_cursor")
    public static let cursorExpired = Code(rawValue: "cursor_expired")
    public static let invalidRecording = Code(rawValue: "invalid_recording")
    // 422: the request cannot mean anything in the graph.
    public static let invalidRequest = Code(rawValue: "invalid_request")
    public static let unknownRoute = Code(rawValue: "unknown_route")
    public static let invalidParams = Code(rawValue: "invalid_params")
    public static let routeNotAllowed = Code(rawValue: "route_not_allowed")
    public static let presentationNotAllowed = Code(rawValue: "presentation_not_allowed")
    public static let notARootRoute = Code(rawValue: "not_a_root_route")
    public static let coordinatorLimit = Code(rawValue: "coordinator_limit")
    public static let noSuchTab = Code(rawValue: "no_such_tab")
    public static let invalidPath = Code(rawValue: "invalid_path")
    public static let invalidURL = Code(rawValue: "invalid_url")
    public static let noRouteForURL = Code(rawValue: "no_route_for_url")
    public static let unknownGraph = Code(rawValue: "unknown_graph")
    // 404, 401, 412.
    public static let unknownCoordinator = Code(rawValue: "unknown_coordinator")
    public static let sessionNotFound = Code(rawValue: "session_not_found")
    public static let notFound = Code(rawValue: "not_found")
    public static let unauthorized = Code(rawValue: "unauthorized")
    public static let invalidToken = Code(rawValue: "invalid_token")
    public static let versionMismatch = Code(rawValue: "version_mismatch")
    /// 410: the session ended lately (deleted or expired); told only to the holder of its token.
    public static let sessionEnded = Code(rawValue: "session_ended")
    // Idempotency-Key: a malformed key (400), one reused for another request (422), or a repeat
    // while the first request is being decided (409).
    public static let invalidIdempotencyKey = Code(rawValue: "invalid_idempotency_key")
    public static let idempotencyKeyReused = Code(rawValue: "idempotency_key_reused")
    public static let idempotencyKeyInUse = Code(rawValue: "idempotency_key_in_use")
    // Refusals of the request as a whole.
    public static let malformedJSON = Code(rawValue: "malformed_json")
    public static let malformedRequest = Code(rawValue: "malformed_request")
    public static let badHost = Code(rawValue: "bad_host")
    public static let badContentLength = Code(rawValue: "bad_content_length")
    public static let invalidQuery = Code(rawValue: "invalid_query")
    public static let unsupportedMediaType = Code(rawValue: "unsupported_media_type")
    public static let payloadTooLarge = Code(rawValue: "payload_too_large")
    public static let methodNotAllowed = Code(rawValue: "method_not_allowed")
    public static let requestTimeout = Code(rawValue: "request_timeout")
    public static let misdirectedRequest = Code(rawValue: "misdirected_request")
    public static let unsupportedTransferEncoding = Code(rawValue: "unsupported_transfer_encoding")
    // The server holds all it may.
    public static let tooManySessions = Code(rawValue: "too_many_sessions")
    public static let tooManySessionsForClient = Code(rawValue: "too_many_sessions_for_client")
    public static let tooManyStreamsForClient = Code(rawValue: "too_many_streams_for_client")
    public static let memoryExhausted = Code(rawValue: "memory_exhausted")
    /// The server could not record the change in its data directory, so it did not make it.
    public static let journalUnavailable = Code(rawValue: "journal_unavailable")
    /// With `--postgres`: PostgreSQL did not commit the change in time, or this node does not
    /// hold the session's lease now (another node is taking it over or giving it back); retry
    /// after `Retry-After`, with the same `Idempotency-Key` for a change.
    public static let storeUnavailable = Code(rawValue: "store_unavailable")
    // From the proxy in front of a cluster (deploy/nginx.conf.template), not from a node.
    /// The node that holds the session cannot be reached, so the request was not applied; retry
    /// after `Retry-After`.
    public static let nodeUnavailable = Code(rawValue: "node_unavailable")
    /// The request reached the node that holds the session, which did not answer in time: it
    /// may have been applied. Retry a mutation only with the same `Idempotency-Key`.
    public static let nodeTimeout = Code(rawValue: "node_timeout")
    /// This client address has as many requests in progress as the proxy allows.
    public static let tooManyConnections = Code(rawValue: "too_many_connections")
    // Not a problem document: the transport failed, or the answer was not understood.
    public static let transport = Code(rawValue: "transport")
    public static let unexpectedResponse = Code(rawValue: "unexpected_response")

    /// Every code the service documents (and the two of this client).
    public static let known: [Code] = [
      .nothingToPop, .notInActiveFlow, .nothingToDismiss, .notAModal, .nothingToGoBackTo,
      .noTabContainer, .cannotReplaceTab, .targetNotFree, .coordinatorStopped, .cannotTearDownRoot,
      .cannotTearDownTab, .leaveBlocked, .requirementNotMet, .backendOnly, .backendKeyRequired,
      .readOnly, .shareCannotShare, .tooManyShares, .shareNotFound, .unknownHandoff,
      .tooManyAttempts,
      .invalidContext, .contextTooLarge, .invalidGraph, .graphVersionExists, .invalidVersion,
      .historyExpired, .invalidCursor, .cursorExpired, .invalidRecording, .invalidRequest,
      .unknownRoute, .invalidParams, .routeNotAllowed,
      .presentationNotAllowed, .notARootRoute, .coordinatorLimit, .noSuchTab, .invalidPath,
      .invalidURL, .noRouteForURL, .unknownGraph, .unknownCoordinator, .sessionNotFound, .notFound,
      .unauthorized, .invalidToken, .versionMismatch, .sessionEnded, .invalidIdempotencyKey,
      .idempotencyKeyReused, .idempotencyKeyInUse, .malformedJSON, .malformedRequest, .badHost,
      .badContentLength, .invalidQuery, .unsupportedMediaType, .payloadTooLarge, .methodNotAllowed,
      .requestTimeout, .misdirectedRequest, .unsupportedTransferEncoding, .tooManySessions,
      .tooManySessionsForClient, .tooManyStreamsForClient, .memoryExhausted, .journalUnavailable,
      .storeUnavailable, .nodeUnavailable, .nodeTimeout,
      .tooManyConnections, .transport,
      .unexpectedResponse,
    ]
  }
}
