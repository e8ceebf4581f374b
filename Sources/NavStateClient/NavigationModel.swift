import Foundation
public import Observation

/// A modal layer over a flow: the sheet or full-screen cover's own screen and its pushes.
public struct ModalLayer: Sendable, Hashable, Identifiable {
  /// The modal coordinator itself (the layer's root screen).
  public var root: PathItem
  /// The screens pushed inside the modal, for the modal's own NavigationStack path.
  public var stack: [PathItem]
  public var style: ModalStyle

  public var id: CoordinatorID { root.id }
}

/// The state of one session, shaped for SwiftUI: `stack` for a NavigationStack path, `sheet` and
/// `fullScreenCover` for the modals, `allowed` for which controls to show. Assigning to them
/// turns what the user did into the right call: a shorter `stack` (a swipe back) tears down the
/// coordinators that were removed; `sheet = nil` (a swipe down) dismisses the sheet.
///
/// Changes are applied when the service answers, never guessed: the model follows the answers
/// to its own calls and, with ``follow()``, the session's live stream, so two devices stay in
/// step.
///
/// Unsaved changes: ``setLeaveGuard(on:reason:)`` on the screen's coordinator makes the service
/// refuse what would leave it. Such a refusal lands in ``leaveBlocked`` (and is thrown); show a
/// confirmation with its `reason`, then call ``retryDiscarding()`` or ``keepChanges()``.
@MainActor
@Observable
public final class NavigationModel {
  public let session: NavStateSession
  /// The latest state; nil until the first is known.
  public private(set) var state: SessionState?
  /// The event stream is connected.
  public private(set) var isLive = false
  /// Who watches the session (the live stream's presence messages), while ``follow()`` runs:
  /// nil until the first arrives, and after the stream ends.
  public private(set) var presence: Presence?
  /// The last refusal of a call made through a setter (calls made with methods throw instead).
  public private(set) var lastError: NavStateError?
  /// The last operation refused by a leave guard (`leaveBlocked`), until it is retried with
  /// ``retryDiscarding()``, given up with ``keepChanges()``, or another call succeeds: what a
  /// "Discard changes?" confirmation shows (`coordinator`, `reason`).
  public private(set) var leaveBlocked: NavStateError?

  public init(session: NavStateSession, state: SessionState? = nil) {
    self.session = session
    self.state = state
  }

  // MARK: What the views bind to

  /// The base flow's root: the session's root, or the selected tab of a tab root.
  public var root: PathItem? { layers.base.first }

  /// The pushed screens of the base flow (the root's, or the selected tab's).
  public var stack: [PathItem] {
    get { Array(layers.base.dropFirst()) }
    set { perform { model in try await model.setStack(newValue) } }
  }

  /// Every modal layer over the base flow, outermost first.
  public var modals: [ModalLayer] { layers.modals }

  /// The first modal layer, when it is a sheet.
  public var sheet: ModalLayer? {
    get { modals.first.flatMap { $0.style == .sheet ? $0 : nil } }
    set { if newValue == nil, let sheet { perform { try await $0.dismissLayer(sheet) } } }
  }

  /// The first modal layer, when it is a full-screen cover.
  public var fullScreenCover: ModalLayer? {
    get { modals.first.flatMap { $0.style == .fullScreenCover ? $0 : nil } }
    set {
      if newValue == nil, let cover = fullScreenCover {
        perform { try await $0.dismissLayer(cover) }
      }
    }
  }

  public var allowed: Affordances { state?.allowed ?? Affordances() }

  /// What the app's backend says about the user (read only: only the backend sets it).
  public var context: SessionContext { state?.context ?? [:] }

  /// The request a redirect holds back (say, the checkout behind a login), when there is one:
  /// the service applies it when the context opens its route.
  public var pending: PendingRequest? { state?.pending }

  /// The session's live shares, with how many streams watch through each: what a "Support:
  /// Ana is watching" banner shows, with ``NavStateSession/revokeShare(_:)`` to end one.
  public var shares: [ShareEntry] { state?.shares ?? [] }

  /// Every coordinator with a leave guard, and its reason.
  public var leaveGuards: [CoordinatorID: String] { state?.leaveGuards ?? [:] }

  /// The reason of the leave guard of `coordinator`, when it has one (for a sheet, say,
  /// `interactiveDismissDisabled(model.leaveGuard(of: layer.id) != nil)`).
  public func leaveGuard(of coordinator: CoordinatorID) -> String? { leaveGuards[coordinator] }

  /// The selected tab's route of the tab container nearest the active screen, for a TabView's
  /// selection; setting it selects that tab.
  public var selectedTab: String? {
    get { state?.path.last { $0.presentation == .tab }?.route }
    // Always sent: a tap may come before the answer to the previous one, and selecting the
    // selected tab changes nothing on the server.
    set { if let newValue { perform { try await $0.selectTab(newValue) } } }
  }

  /// The visible path cut into the base flow and its modal layers.
  var layers: (base: [PathItem], modals: [ModalLayer]) {
    guard let path = state?.path else { return ([], []) }
    var base: [PathItem] = []
    var modals: [ModalLayer] = []
    for item in path {
      if item.presentation.isModal {
        modals.append(
          ModalLayer(
            root: item, stack: [],
            style: item.presentation == .sheet ? .sheet : .fullScreenCover))
      } else if !modals.isEmpty {
        modals[modals.count - 1].stack.append(item)
      } else if item.presentation == .tab {
        base = [item]  // the selected tab starts the base flow
      } else if item.presentation == .push {
        base.append(item)
      } else {
        base = [item]  // the root
      }
    }
    return (base, modals)
  }

  // MARK: Following the session

  /// Follows the session's live stream until it ends or the task is cancelled, keeping
  /// ``presence`` too. Followed with a share's token, it throws `sessionNotFound` once the
  /// share is revoked or expires.
  public func follow() async throws {
    following += 1
    let generation = following
    defer {
      following += 1  // a change still on its way is from a follow that is over
      isLive = false
      presence = nil
    }
    let states = session.states(
      onConnection: { [weak self] live in
        Task { @MainActor in
          if let self, self.following == generation { self.isLive = live }
        }
      },
      onPresence: { [weak self] presence in
        Task { @MainActor in
          if let self, self.following == generation { self.presence = presence }
        }
      })
    for try await state in states {
      apply(state)
    }
  }

  /// Counts calls of `follow`, so that a late connection change of an old one is ignored.
  @ObservationIgnored private var following = 0

  /// Re-reads the state.
  public func refresh() async throws(NavStateError) {
    apply(try await session.state())
  }

  /// Takes `state` if it is newer than the one held (answers and the stream may cross).
  func apply(_ newState: SessionState) {
    if let state, state.id == newState.id, newState.version <= state.version { return }
    state = newState
  }

  @discardableResult
  func run(_ call: () async throws(NavStateError) -> Mutation?) async throws(NavStateError)
    -> Mutation?
  {
    let mutation: Mutation?
    do {
      mutation = try await call()
    } catch {
      if error.code == .leaveBlocked, error.blockedOperation != nil { leaveBlocked = error }
      throw error
    }
    leaveBlocked = nil
    if let mutation { apply(mutation.state) }
    return mutation
  }

  /// For setters, which cannot be async: the call runs in a task, a refusal lands in `lastError`.
  private func perform(_ work: @escaping @MainActor (NavigationModel) async throws -> Void) {
    Task { @MainActor in
      do {
        try await work(self)
        lastError = nil
      } catch {
        lastError = NavStateError.from(error)
      }
    }
  }

  // MARK: What the user did

  /// The user went back to `newStack` (a prefix of `stack`): the first removed screen's
  /// presenter was torn down, which stops it and everything above it.
  public func setStack(_ newStack: [PathItem]) async throws(NavStateError) {
    let current = stack
    guard newStack.count < current.count, Array(current.prefix(newStack.count)) == newStack else {
      return
    }
    try await run { () throws(NavStateError) in
      try await session.tearDown(current[newStack.count].id)
    }
  }

  /// The user went back inside a modal layer to `newStack`.
  public func setStack(_ newStack: [PathItem], of layer: ModalLayer) async throws(NavStateError) {
    guard newStack.count < layer.stack.count,
      Array(layer.stack.prefix(newStack.count)) == newStack
    else { return }
    try await run { () throws(NavStateError) in
      try await session.tearDown(layer.stack[newStack.count].id)
    }
  }

  /// The user dismissed a modal layer (a swipe down).
  public func dismissLayer(_ layer: ModalLayer) async throws(NavStateError) {
    try await run { () throws(NavStateError) in try await session.dismiss(layer.root.id) }
  }

  // MARK: Operations

  public func push(_ route: String, params: Params = [:]) async throws(NavStateError) {
    try await run { () throws(NavStateError) in try await session.push(route, params: params) }
  }

  public func present(_ route: String, params: Params = [:], style: ModalStyle = .sheet)
    async throws(NavStateError)
  {
    try await run { () throws(NavStateError) in
      try await session.present(route, params: params, style: style)
    }
  }

  public func pop(count: Int = 1, result: JSONResult? = nil) async throws(NavStateError) {
    try await run { () throws(NavStateError) in try await session.pop(count: count, result: result)
    }
  }

  public func popToRoot(result: JSONResult? = nil) async throws(NavStateError) {
    try await run { () throws(NavStateError) in try await session.popToRoot(result: result) }
  }

  public func back(result: JSONResult? = nil) async throws(NavStateError) {
    try await run { () throws(NavStateError) in try await session.back(result: result) }
  }

  public func dismiss(result: JSONResult? = nil) async throws(NavStateError) {
    try await run { () throws(NavStateError) in try await session.dismiss(result: result) }
  }

  public func replace(_ route: String, params: Params = [:]) async throws(NavStateError) {
    try await run { () throws(NavStateError) in try await session.replace(route, params: params) }
  }

  public func selectTab(_ route: String) async throws(NavStateError) {
    try await run { () throws(NavStateError) in try await session.selectTab(route) }
  }

  public func deepLink(_ url: String) async throws(NavStateError) {
    try await run { () throws(NavStateError) in try await session.deepLink(url) }
  }

  public func pop(to coordinator: CoordinatorID, result: JSONResult? = nil)
    async throws(NavStateError)
  {
    try await run { () throws(NavStateError) in
      try await session.pop(to: coordinator, result: result)
    }
  }

  public func dismiss(_ coordinator: CoordinatorID, result: JSONResult? = nil)
    async throws(NavStateError)
  {
    try await run { () throws(NavStateError) in
      try await session.dismiss(coordinator, result: result)
    }
  }

  public func dismissAll(result: JSONResult? = nil) async throws(NavStateError) {
    try await run { () throws(NavStateError) in try await session.dismissAll(result: result) }
  }

  public func setPath(_ entries: [PathEntry]) async throws(NavStateError) {
    try await run { () throws(NavStateError) in try await session.setPath(entries) }
  }

  public func batch(_ operations: [BatchOperation]) async throws(NavStateError) {
    try await run { () throws(NavStateError) in try await session.batch(operations) }
  }

  /// The presenter of `coordinator` went away.
  public func tearDown(_ coordinator: CoordinatorID) async throws(NavStateError) {
    try await run { () throws(NavStateError) in try await session.tearDown(coordinator) }
  }

  // MARK: Leave guards

  /// The screen of `coordinator` holds unsaved changes: what would leave it is refused until
  /// the guard is cleared, or the user agrees to discard them.
  public func setLeaveGuard(on coordinator: CoordinatorID, reason: String)
    async throws(NavStateError)
  {
    try await run { () throws(NavStateError) in
      try await session.setLeaveGuard(on: coordinator, reason: reason)
    }
  }

  /// The changes were saved (or there are none left).
  public func clearLeaveGuard(on coordinator: CoordinatorID) async throws(NavStateError) {
    try await run { () throws(NavStateError) in try await session.clearLeaveGuard(on: coordinator) }
  }

  /// The user agreed to lose the changes: the operation in ``leaveBlocked`` is sent again with
  /// `discard`. Nothing happens when there is none.
  public func retryDiscarding() async throws(NavStateError) {
    guard let refusal = leaveBlocked else { return }
    leaveBlocked = nil
    try await run { () throws(NavStateError) in try await session.retryDiscarding(refusal) }
  }

  /// The user chose to stay: the refused operation is forgotten.
  public func keepChanges() {
    leaveBlocked = nil
  }
}
