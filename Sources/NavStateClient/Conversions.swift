import Foundation
import OpenAPIRuntime

// The generated types (internal, named by the generator) to the public ones and back.

// The generated client's ParamValue is ours (see openapi-generator-config.yaml), so params pass
// through as they are.
func decodedParams(_ generated: Components.Schemas.Params?) -> Params {
  generated?.additionalProperties ?? [:]
}

func generatedParams(_ params: Params) -> Components.Schemas.Params? {
  params.isEmpty ? nil : .init(additionalProperties: params)
}

extension Presentation {
  init(_ value: Components.Schemas.Presentation) {
    self = Presentation(rawValue: value.rawValue) ?? .push
  }
}

extension PathItem {
  init(_ item: Components.Schemas.PathItem) {
    self.init(
      id: item.id, route: item.route, params: decodedParams(item.params),
      presentation: Presentation(item.presentation))
  }
}

extension TreeNode {
  init(_ node: Components.Schemas.TreeNode) {
    self.init(
      id: node.id, route: node.route, params: decodedParams(node.params),
      presentation: Presentation(node.presentation), selectedTab: node.selectedTab,
      leaveGuard: node.leaveGuard?.reason, children: node.children.map(TreeNode.init))
  }
}

extension Affordances {
  init(_ value: Components.Schemas.Affordances) {
    self.init()
    push = value.push
    sheet = value.sheet
    fullScreenCover = value.fullScreenCover
    replace = value.replace
    tabs = value.tabs
    pop = value.pop
    back = value.back
    dismiss = value.dismiss
    teardown = value.teardown
    redirects = value.redirects?.additionalProperties ?? [:]
    leaveGuard = value.leaveGuard.map { LeaveGuard(coordinator: $0.coordinator, reason: $0.reason) }
  }
}

extension PendingRequest {
  init(_ value: Components.Schemas.PendingRequest) {
    self.init(
      op: value.op.rawValue, route: value.route, url: value.url, coordinator: value.coordinator)
  }
}

extension MigrationReport {
  init(_ value: Components.Schemas.MigrationReport) {
    self.init(
      sessions: value.sessions, unchanged: value.unchanged, migrated: value.migrated,
      stopped: value.stopped.additionalProperties, restarted: value.restarted)
  }
}

func decodedContext(_ generated: Components.Schemas.SessionContext?) -> SessionContext {
  generated?.additionalProperties ?? [:]
}

extension ShareMode {
  init(_ value: Components.Schemas.ShareMode) {
    self = ShareMode(rawValue: value.rawValue) ?? .follow
  }

  var generated: Components.Schemas.ShareMode {
    Components.Schemas.ShareMode(rawValue: rawValue) ?? .follow
  }
}

extension ShareEntry {
  init(_ entry: Components.Schemas.ShareEntry) {
    self.init(
      id: entry.id, mode: ShareMode(entry.mode), label: entry.label, expiresAt: entry.expiresAt,
      watching: entry.watching)
  }
}

extension Share {
  init(_ share: Components.Schemas.Share) {
    self.init(
      id: share.id, mode: ShareMode(share.mode), label: share.label, createdAt: share.createdAt,
      expiresAt: share.expiresAt)
  }
}

extension Presence {
  init(_ presence: Components.Schemas.Presence) {
    self.init(
      clients: presence.clients.map { client in
        PresenceClient(
          kind: PresenceClient.Kind(rawValue: client.kind.rawValue) ?? .share,
          share: client.share, label: client.label, streams: client.streams, since: client.since)
      })
  }
}

extension SessionState {
  /// A follow share's state has no `context`: it reads as `[:]`.
  init(_ state: Components.Schemas.SessionState) {
    self.init(
      id: state.id, graph: state.graph, version: state.version, createdAt: state.createdAt,
      updatedAt: state.updatedAt, expiresAt: state.expiresAt, active: state.active,
      root: TreeNode(state.root), path: state.path.map(PathItem.init),
      allowed: Affordances(state.allowed), context: decodedContext(state.context),
      pending: state.pending.map(PendingRequest.init), shares: state.shares.map(ShareEntry.init),
      forkedFrom: state.forkedFrom.map { ForkOrigin(session: $0.session, version: $0.version) })
  }
}

extension NavigationEvent {
  init(_ event: Components.Schemas.Event) {
    switch event {
    case .coordinatorStarted(let started):
      self = .started(
        seq: Int(started.seq), version: Int(started.version), coordinator: started.coordinator,
        route: started.route, params: decodedParams(started.params),
        presentation: Presentation(started.presentation), parent: started.parent)
    case .coordinatorStopped(let stopped):
      self = .stopped(
        seq: Int(stopped.seq), version: Int(stopped.version), coordinator: stopped.coordinator,
        reason: stopped.reason.rawValue)
    case .coordinatorResumed(let resumed):
      self = .resumed(
        seq: Int(resumed.seq), version: Int(resumed.version), coordinator: resumed.coordinator,
        result: resumed.result)
    case .tabSelected(let selected):
      self = .tabSelected(
        seq: Int(selected.seq), version: Int(selected.version), container: selected.coordinator,
        tab: selected.tab)
    case .sessionEnded(let ended):
      self = .sessionEnded(
        seq: Int(ended.seq), version: Int(ended.version), reason: ended.reason.rawValue)
    case .sessionMigrated(let migrated):
      self = .migrated(
        seq: Int(migrated.seq), version: Int(migrated.version), from: migrated.from,
        to: migrated.to)
    case .contextChanged(let changed):
      self = .contextChanged(
        seq: Int(changed.seq), version: Int(changed.version),
        context: decodedContext(changed.context))
    case .navigationRedirected(let redirected):
      self = .redirected(
        seq: Int(redirected.seq), version: Int(redirected.version),
        coordinator: redirected.coordinator, route: redirected.route,
        redirect: redirected.redirect)
    case .pendingApplied(let applied):
      self = .pendingApplied(
        seq: Int(applied.seq), version: Int(applied.version), route: applied.route)
    case .pendingDropped(let dropped):
      self = .pendingDropped(
        seq: Int(dropped.seq), version: Int(dropped.version), route: dropped.route,
        reason: dropped.reason.rawValue, code: dropped.code)
    case .leaveGuardChanged(let changed):
      self = .leaveGuardChanged(
        seq: Int(changed.seq), version: Int(changed.version), coordinator: changed.coordinator,
        reason: changed.reason)
    case .sessionRestored(let restored):
      self = .restored(seq: Int(restored.seq), version: Int(restored.version), from: restored.from)
    case .shareCreated(let created):
      self = .shareCreated(
        seq: Int(created.seq), version: Int(created.version), share: created.share,
        mode: ShareMode(created.mode), label: created.label)
    case .shareRevoked(let revoked):
      self = .shareRevoked(
        seq: Int(revoked.seq), version: Int(revoked.version), share: revoked.share,
        reason: revoked.reason.rawValue)
    }
  }
}

extension Mutation {
  /// Nil when the answer has no state (`Prefer: return=minimal`, which this client never sends).
  init?(_ result: Components.Schemas.MutationResult) {
    guard let session = result.session else { return nil }
    self.init(state: SessionState(session), events: result.events.map(NavigationEvent.init))
  }
}

extension BatchOperation {
  var generated: Components.Schemas.BatchOp {
    switch self {
    case .push(let route, let values):
      return .push(.init(op: .push, route: route, params: generatedParams(values)))
    case .pop(let count):
      return .pop(.init(op: .pop, count: count))
    case .popToRoot:
      return .pop(.init(op: .pop, toRoot: true))
    case .present(let route, let values, let style):
      return .present(
        .init(
          op: .present, route: route, params: generatedParams(values),
          style: Components.Schemas.ModalStyle(rawValue: style.rawValue)))
    case .dismiss:
      return .dismiss(.init(op: .dismiss))
    case .back:
      return .back(.init(op: .back))
    case .replace(let route, let values):
      return .replace(.init(op: .replace, route: route, params: generatedParams(values)))
    case .selectTab(let name):
      return .selectTab(.init(op: .selectTab, tab: .case2(name)))
    case .deepLink(let url):
      return .deeplink(.init(op: .deeplink, url: url))
    case .tearDown(let id):
      return .teardown(.init(op: .teardown, coordinator: id))
    }
  }
}
