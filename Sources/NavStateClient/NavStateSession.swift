public import Foundation
public import OpenAPIRuntime
import Synchronization

/// One navigation session of the service, for an app: every operation as an async method with
/// typed params, refusals as ``NavStateError``, and the live state as an `AsyncSequence`.
///
/// Writes are guarded by `If-Match` with the last version this session object saw (from any
/// answer or from the live stream), so a stale tap does not act on a state the user no longer
/// sees: it fails with `versionMismatch`, or, with `staleWriteRetries`, is sent again at the
/// current version up to that many times.
///
/// An operation that would stop a coordinator with a leave guard is refused with
/// `leaveBlocked`; the error carries the operation, and ``retryDiscarding(_:)`` sends it again
/// with `discard` once the user has agreed to lose the changes.
public final class NavStateSession: Sendable {
  public struct Options: Sendable {
    /// Send `If-Match` with the last version seen (default true).
    public var sendIfMatch = true
    /// How many times a write refused as stale (412) is sent again at the current version.
    public var staleWriteRetries = 0

    public init(sendIfMatch: Bool = true, staleWriteRetries: Int = 0) {
      self.sendIfMatch = sendIfMatch
      self.staleWriteRetries = staleWriteRetries
    }
  }

  public let id: String
  /// The bearer token: keep it as safely as a password; another device opens the session with it.
  /// The session's own token, a share's token, or a backend key
  /// (``NavStateBackend/session(_:options:)``).
  public let token: String
  public let options: Options
  let serverURL: URL
  let transport: any ClientTransport
  let client: Client
  private let lastVersion = Mutex<Int?>(nil)

  /// Opens an existing session (nothing is sent until the first call).
  ///
  /// `token` is the session's token, or a share's token: a share is opened exactly like the
  /// session itself, with the session's `id` and the token from
  /// ``share(mode:label:ttlSeconds:code:)`` (or ``redeemHandoff(code:serverURL:transport:options:)``,
  /// which opens it for you). With a `follow` share's token every change throws `readOnly`, and
  /// states have no context; with a `drive` share's, only sharing and ending the session are
  /// refused. Once the share is revoked or expires, every call throws `sessionNotFound`.
  public init(
    serverURL: URL, transport: any ClientTransport, id: String, token: String,
    options: Options = .init()
  ) {
    self.id = id
    self.token = token
    self.options = options
    self.serverURL = serverURL
    self.transport = transport
    self.client = Self.client(serverURL: serverURL, transport: transport, token: token)
  }

  /// Creates a session on `graph` (default: the server's) at `root` (default: the graph's root).
  public static func create(
    serverURL: URL, transport: any ClientTransport, graph: String? = nil, root: String? = nil,
    params: Params = [:], options: Options = .init()
  ) async throws(NavStateError) -> (session: NavStateSession, state: SessionState) {
    let anonymous = client(serverURL: serverURL, transport: transport, token: nil)
    let created: Components.Schemas.CreatedSession
    do {
      created = try await anonymous.createSession(
        body: .json(
          .init(
            graph: graph,
            root: root.map { .init(route: $0, params: generatedParams(params)) }))
      ).created.body.json
    } catch {
      throw NavStateError.from(error)
    }
    let session = NavStateSession(
      serverURL: serverURL, transport: transport, id: created.session.id, token: created.token,
      options: options)
    let state = SessionState(created.session)
    session.saw(state)
    return (session, state)
  }

  static func client(serverURL: URL, transport: any ClientTransport, token: String?) -> Client {
    Client(
      serverURL: serverURL,
      configuration: Configuration(dateTranscoder: .iso8601WithFractionalSeconds),
      transport: transport, middlewares: [ProblemsAsErrors(), BearerToken(token: token)])
  }

  /// Remembers the newest version seen, for `If-Match`.
  func saw(_ state: SessionState) {
    lastVersion.withLock { version in version = max(version ?? 0, state.version) }
  }

  /// The newest version seen (nil before any).
  var lastSeenVersion: Int? { lastVersion.withLock { $0 } }

  /// Remembers a change this session made whose answer has no state (a share created or
  /// revoked): it made the version after `seen`, the one seen when it was sent. When another
  /// change came between, the next `If-Match` is stale, as it should be: this session has not
  /// seen that change.
  func madeChange(after seen: Int?) {
    guard let seen else { return }
    lastVersion.withLock { version in version = max(version ?? 0, seen + 1) }
  }

  var path: Operations.GetSession.Input.Path { .init(sid: id) }

  // MARK: Reading

  public func state() async throws(NavStateError) -> SessionState {
    do {
      let state = SessionState(try await client.getSession(path: .init(sid: id)).ok.body.json)
      saw(state)
      return state
    } catch {
      throw NavStateError.from(error)
    }
  }

  /// The kept events after `seq`; when those are gone, none and the whole state in `reset`.
  public func events(after seq: Int = 0) async throws(NavStateError) -> EventPage {
    do {
      // JSON alone: the same operation streams to a client that prefers the event stream.
      let list = try await client.listEvents(
        path: .init(sid: id), query: .init(after: Int64(seq)),
        headers: .init(accept: [.init(contentType: .json)])
      ).ok.body.json
      return EventPage(
        events: list.events.map(NavigationEvent.init), lastSeq: list.lastSeq,
        reset: list.reset.map(SessionState.init))
    } catch {
      throw NavStateError.from(error)
    }
  }

  /// Ends the session: every coordinator stops.
  public func end() async throws(NavStateError) {
    do {
      _ = try await client.deleteSession(path: .init(sid: id)).noContent
    } catch {
      throw NavStateError.from(error)
    }
  }

  // MARK: Writing

  /// Sends one write with `If-Match` and the stale-write retries of ``Options``; a
  /// `leaveBlocked` refusal of a `guarded` operation carries it.
  func write(
    _ guarded: GuardedOperation? = nil,
    _ send: (_ ifMatch: String?) async throws -> Components.Schemas.MutationResult
  ) async throws(NavStateError) -> Mutation {
    var retries = options.staleWriteRetries
    while true {
      let ifMatch = options.sendIfMatch ? lastVersion.withLock { $0 }.map { "\"\($0)\"" } : nil
      do {
        // This client never sends `Prefer: return=minimal`, so the answer carries the state.
        guard let mutation = Mutation(try await send(ifMatch)) else {
          throw NavStateError(
            status: 200, code: .unexpectedResponse,
            detail: "the answer to a write had no state (return=minimal was not asked for)")
        }
        saw(mutation.state)
        return mutation
      } catch {
        var refusal = NavStateError.from(error)
        if refusal.code == .leaveBlocked { refusal.blockedOperation = guarded }
        guard refusal.code == .versionMismatch, retries > 0, let current = refusal.version else {
          throw refusal
        }
        retries -= 1
        lastVersion.withLock { $0 = current }
      }
    }
  }

  public func push(
    _ route: String, params: Params = [:], target: CoordinatorID? = nil, singleTop: Bool = false
  ) async throws(NavStateError) -> Mutation {
    try await write { ifMatch in
      try await client.push(
        path: .init(sid: id), headers: .init(ifMatch: ifMatch),
        body: .json(
          .init(
            route: route, params: generatedParams(params), target: target,
            singleTop: singleTop ? true : nil))
      ).ok.body.json
    }
  }

  /// `discard`: stop coordinators with a leave guard all the same (the user agreed).
  public func pop(count: Int = 1, result: JSONResult? = nil, discard: Bool = false)
    async throws(NavStateError) -> Mutation
  {
    try await pop(
      .init(count: count == 1 ? nil : count, result: result, discard: discard ? true : nil),
      .pop(count: count, result: result))
  }

  public func pop(to coordinator: CoordinatorID, result: JSONResult? = nil, discard: Bool = false)
    async throws(NavStateError) -> Mutation
  {
    try await pop(
      .init(to: coordinator, result: result, discard: discard ? true : nil),
      .popTo(coordinator, result: result))
  }

  public func popToRoot(result: JSONResult? = nil, discard: Bool = false)
    async throws(NavStateError) -> Mutation
  {
    try await pop(
      .init(toRoot: true, result: result, discard: discard ? true : nil),
      .popToRoot(result: result))
  }

  private func pop(_ body: Components.Schemas.PopRequest, _ guarded: GuardedOperation)
    async throws(NavStateError) -> Mutation
  {
    try await write(guarded) { ifMatch in
      try await client.pop(
        path: .init(sid: id), headers: .init(ifMatch: ifMatch), body: .json(body)
      )
      .ok.body.json
    }
  }

  public func present(_ route: String, params: Params = [:], style: ModalStyle = .sheet)
    async throws(NavStateError) -> Mutation
  {
    try await write { ifMatch in
      try await client.present(
        path: .init(sid: id), headers: .init(ifMatch: ifMatch),
        body: .json(
          .init(
            route: route, params: generatedParams(params),
            style: Components.Schemas.ModalStyle(rawValue: style.rawValue)))
      ).ok.body.json
    }
  }

  /// Dismisses the modal that holds the active coordinator, or `coordinator`.
  public func dismiss(
    _ coordinator: CoordinatorID? = nil, result: JSONResult? = nil, discard: Bool = false
  ) async throws(NavStateError) -> Mutation {
    try await dismiss(
      .init(coordinator: coordinator, result: result, discard: discard ? true : nil),
      .dismiss(coordinator, result: result))
  }

  public func dismissAll(result: JSONResult? = nil, discard: Bool = false)
    async throws(NavStateError) -> Mutation
  {
    try await dismiss(
      .init(all: true, result: result, discard: discard ? true : nil), .dismissAll(result: result))
  }

  private func dismiss(_ body: Components.Schemas.DismissRequest, _ guarded: GuardedOperation)
    async throws(NavStateError) -> Mutation
  {
    try await write(guarded) { ifMatch in
      try await client.dismiss(
        path: .init(sid: id), headers: .init(ifMatch: ifMatch), body: .json(body)
      ).ok.body.json
    }
  }

  public func back(result: JSONResult? = nil, discard: Bool = false) async throws(NavStateError)
    -> Mutation
  {
    try await write(.back(result: result)) { ifMatch in
      try await client.back(
        path: .init(sid: id), headers: .init(ifMatch: ifMatch),
        body: .json(.init(result: result, discard: discard ? true : nil))
      ).ok.body.json
    }
  }

  public func replace(_ route: String, params: Params = [:], discard: Bool = false)
    async throws(NavStateError) -> Mutation
  {
    try await write(.replace(route, params: params)) { ifMatch in
      try await client.replace(
        path: .init(sid: id), headers: .init(ifMatch: ifMatch),
        body: .json(
          .init(route: route, params: generatedParams(params), discard: discard ? true : nil))
      ).ok.body.json
    }
  }

  /// Selects the tab `route` of the nearest tab container on the visible path (or `container`).
  public func selectTab(_ route: String, container: CoordinatorID? = nil)
    async throws(NavStateError) -> Mutation
  {
    try await selectTab(.case2(route), container: container)
  }

  public func selectTab(index: Int, container: CoordinatorID? = nil)
    async throws(NavStateError) -> Mutation
  {
    try await selectTab(.case1(index), container: container)
  }

  private func selectTab(
    _ tab: Components.Schemas.SelectTabRequest.TabPayload, container: CoordinatorID?
  ) async throws(NavStateError) -> Mutation {
    try await write { ifMatch in
      try await client.selectTab(
        path: .init(sid: id), headers: .init(ifMatch: ifMatch),
        body: .json(.init(tab: tab, container: container))
      ).ok.body.json
    }
  }

  public func deepLink(_ url: String, discard: Bool = false) async throws(NavStateError)
    -> Mutation
  {
    try await write(.deepLink(url)) { ifMatch in
      try await client.deepLink(
        path: .init(sid: id), headers: .init(ifMatch: ifMatch),
        body: .json(.init(url: url, discard: discard ? true : nil))
      ).ok.body.json
    }
  }

  /// Makes the visible path equal `entries`, keeping the common prefix's coordinators.
  public func setPath(_ entries: [PathEntry], discard: Bool = false) async throws(NavStateError)
    -> Mutation
  {
    let path = entries.map { entry in
      Components.Schemas.PathEntry(
        route: entry.route, params: generatedParams(entry.params),
        presentation: entry.presentation.flatMap {
          Components.Schemas.Presentation(rawValue: $0.rawValue)
        })
    }
    return try await write(.setPath(entries)) { ifMatch in
      try await client.putState(
        path: .init(sid: id), headers: .init(ifMatch: ifMatch),
        body: .json(.init(path: path, discard: discard ? true : nil))
      ).ok.body.json
    }
  }

  /// `discard` applies to every op of the batch.
  public func batch(_ operations: [BatchOperation], discard: Bool = false)
    async throws(NavStateError) -> Mutation
  {
    try await write(.batch(operations)) { ifMatch in
      try await client.batch(
        path: .init(sid: id), headers: .init(ifMatch: ifMatch),
        body: .json(.init(ops: operations.map(\.generated), discard: discard ? true : nil))
      ).ok.body.json
    }
  }

  // MARK: Leave guards

  /// Sends `operation` (one a leave guard may refuse), with `discard` or not.
  public func perform(_ operation: GuardedOperation, discard: Bool = false)
    async throws(NavStateError) -> Mutation
  {
    switch operation {
    case .pop(let count, let result): try await pop(count: count, result: result, discard: discard)
    case .popTo(let coordinator, let result):
      try await pop(to: coordinator, result: result, discard: discard)
    case .popToRoot(let result): try await popToRoot(result: result, discard: discard)
    case .dismiss(let coordinator, let result):
      try await dismiss(coordinator, result: result, discard: discard)
    case .dismissAll(let result): try await dismissAll(result: result, discard: discard)
    case .back(let result): try await back(result: result, discard: discard)
    case .replace(let route, let params): try await replace(route, params: params, discard: discard)
    case .setPath(let entries): try await setPath(entries, discard: discard)
    case .deepLink(let url): try await deepLink(url, discard: discard)
    case .batch(let operations): try await batch(operations, discard: discard)
    case .restore(let version): try await restore(to: version, discard: discard)
    }
  }

  /// Sends the operation a leave guard refused again, with `discard`: call it once the user
  /// has agreed to lose the changes of `refusal.coordinator` (`refusal.reason` says which). A
  /// refusal of another kind is thrown again as it is.
  public func retryDiscarding(_ refusal: NavStateError) async throws(NavStateError) -> Mutation {
    guard refusal.code == .leaveBlocked, let operation = refusal.blockedOperation else {
      throw refusal
    }
    return try await perform(operation, discard: true)
  }

  /// Marks `coordinator` as holding unsaved changes: operations that would stop it are
  /// refused with `leaveBlocked` until it is cleared or they say `discard`. `reason` (1 to 200
  /// characters) is what a confirmation shows.
  public func setLeaveGuard(on coordinator: CoordinatorID, reason: String)
    async throws(NavStateError) -> Mutation
  {
    try await write { ifMatch in
      try await client.setLeaveGuard(
        path: .init(sid: id, cid: coordinator), headers: .init(ifMatch: ifMatch),
        body: .json(.init(reason: reason))
      ).ok.body.json
    }
  }

  /// Clears the leave guard of `coordinator` (the changes were saved).
  public func clearLeaveGuard(on coordinator: CoordinatorID) async throws(NavStateError)
    -> Mutation
  {
    try await write { ifMatch in
      try await client.clearLeaveGuard(
        path: .init(sid: id, cid: coordinator), headers: .init(ifMatch: ifMatch)
      ).ok.body.json
    }
  }

  /// The presenter of `coordinator` went away (a swipe back, a sheet swiped down): it stops, and
  /// everything under it. Nil when it had already stopped (clients retry; gestures race).
  @discardableResult
  public func tearDown(_ coordinator: CoordinatorID) async throws(NavStateError) -> Mutation? {
    do {
      let output = try await client.teardownCoordinator(
        path: .init(sid: id, cid: coordinator))
      if case .noContent = output { return nil }
      guard let mutation = Mutation(try output.ok.body.json) else {
        throw NavStateError(
          status: 200, code: .unexpectedResponse,
          detail: "the answer to a teardown had no state (return=minimal was not asked for)")
      }
      saw(mutation.state)
      return mutation
    } catch {
      throw NavStateError.from(error)
    }
  }
}
