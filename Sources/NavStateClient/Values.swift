public import Foundation
public import OpenAPIRuntime

/// A result handed back by pop, dismiss and back: any JSON value.
public typealias JSONResult = OpenAPIValueContainer

/// A coordinator id as the service writes it: `c1`, `c2`, ...
public typealias CoordinatorID = String

/// A route param, of the type the graph declares.
public enum ParamValue: Sendable, Hashable, ExpressibleByIntegerLiteral,
  ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByBooleanLiteral
{
  case int(Int64)
  case number(Double)
  case string(String)
  case bool(Bool)

  public init(integerLiteral value: Int64) { self = .int(value) }
  public init(floatLiteral value: Double) { self = .number(value) }
  public init(stringLiteral value: String) { self = .string(value) }
  public init(booleanLiteral value: Bool) { self = .bool(value) }
}

/// The JSON of a param. The contract gives params no type (generators make them "any JSON
/// value"), and the generated client uses this type for them (`typeOverrides` in
/// openapi-generator-config.yaml): an integer is read as an exact `Int64`, before a `Double`
/// could round it.
extension ParamValue: Codable {
  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    if let value = try? container.decode(Bool.self) {
      self = .bool(value)
    } else if let value = try? container.decode(Int64.self) {
      self = .int(value)
    } else if let value = try? container.decode(Double.self) {
      self = .number(value)
    } else if let value = try? container.decode(String.self) {
      self = .string(value)
    } else {
      throw DecodingError.dataCorruptedError(
        in: container, debugDescription: "a param is an integer, a number, a string or a boolean")
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    switch self {
    case .int(let value): try container.encode(value)
    case .number(let value): try container.encode(value)
    case .string(let value): try container.encode(value)
    case .bool(let value): try container.encode(value)
    }
  }
}

public typealias Params = [String: ParamValue]

public enum Presentation: String, Sendable, Hashable {
  case root, push, sheet, fullScreenCover, tab

  public var isModal: Bool { self == .sheet || self == .fullScreenCover }
}

public enum ModalStyle: String, Sendable, Hashable {
  case sheet, fullScreenCover
}

/// One coordinator of the visible path: what a NavigationStack binds to.
public struct PathItem: Sendable, Hashable, Identifiable {
  public var id: CoordinatorID
  public var route: String
  public var params: Params
  public var presentation: Presentation

  public init(id: CoordinatorID, route: String, params: Params = [:], presentation: Presentation) {
    self.id = id
    self.route = route
    self.params = params
    self.presentation = presentation
  }
}

/// One coordinator of the tree, with its children.
public struct TreeNode: Sendable, Hashable, Identifiable {
  public var id: CoordinatorID
  public var route: String
  public var params: Params
  public var presentation: Presentation
  public var selectedTab: Int?
  /// The reason of the coordinator's leave guard, when it has one.
  public var leaveGuard: String?
  public var children: [TreeNode]
}

/// What the service would accept now, for the active coordinator: draw controls from it.
public struct Affordances: Sendable, Hashable {
  public var push: [String] = []
  public var sheet: [String] = []
  public var fullScreenCover: [String] = []
  public var replace: [String] = []
  public var tabs: [String] = []
  public var pop = false
  public var back = false
  public var dismiss = false
  public var teardown: [CoordinatorID] = []
  /// Closed routes listed above because they have a redirect: route to the route shown instead.
  public var redirects: [String: String] = [:]
  /// The leave guard that makes `pop`, `back` or `dismiss` false, when one does: those calls
  /// are accepted with `discard` (after the user agrees to lose the changes).
  public var leaveGuard: LeaveGuard?

  public init() {}
}

/// An unsaved-changes veto on a coordinator: an operation that would stop it is refused with
/// `leaveBlocked` unless it says `discard`.
public struct LeaveGuard: Sendable, Hashable {
  public var coordinator: CoordinatorID
  public var reason: String

  public init(coordinator: CoordinatorID, reason: String) {
    self.coordinator = coordinator
    self.reason = reason
  }
}

/// A value of a session's context, as the app's backend sets it.
public enum ContextValue: Sendable, Hashable, ExpressibleByStringLiteral,
  ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral
{
  case string(String)
  case int(Int64)
  case bool(Bool)
  case strings([String])

  public init(stringLiteral value: String) { self = .string(value) }
  public init(integerLiteral value: Int64) { self = .int(value) }
  public init(booleanLiteral value: Bool) { self = .bool(value) }
  public init(arrayLiteral elements: String...) { self = .strings(elements) }
}

/// The JSON of a context value; the generated client uses this type for them (`typeOverrides`
/// in openapi-generator-config.yaml), as it does for params.
extension ContextValue: Codable {
  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    if let value = try? container.decode(Bool.self) {
      self = .bool(value)
    } else if let value = try? container.decode(Int64.self) {
      self = .int(value)
    } else if let value = try? container.decode(String.self) {
      self = .string(value)
    } else if let value = try? container.decode([String].self) {
      self = .strings(value)
    } else {
      throw DecodingError.dataCorruptedError(
        in: container,
        debugDescription: "a context value is a string, an integer, a boolean or strings")
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    switch self {
    case .string(let value): try container.encode(value)
    case .int(let value): try container.encode(value)
    case .bool(let value): try container.encode(value)
    case .strings(let value): try container.encode(value)
    }
  }
}

/// What the app's backend says about the session's user; route guards are judged against it.
public typealias SessionContext = [String: ContextValue]

/// A request a redirect holds back until the context opens its route (then it is applied), or
/// until the user leaves the redirect's coordinator (then it is dropped).
public struct PendingRequest: Sendable, Hashable {
  /// The kind of call that was redirected, as the service names it: `push`, `present`,
  /// `replace`, `state`, `deeplink`, or `create` (a session created at a closed root).
  public var op: String
  /// The closed route that was asked for.
  public var route: String
  /// For a deep link: the link.
  public var url: String?
  /// The redirect's coordinator (the login screen, say).
  public var coordinator: CoordinatorID

  public init(op: String, route: String, url: String? = nil, coordinator: CoordinatorID) {
    self.op = op
    self.route = route
    self.url = url
    self.coordinator = coordinator
  }
}

/// A session's state at one version.
public struct SessionState: Sendable, Hashable {
  public var id: String
  public var graph: String
  public var version: Int
  public var createdAt: Date
  public var updatedAt: Date
  public var expiresAt: Date
  public var active: CoordinatorID
  public var root: TreeNode
  /// The visible path, root first.
  public var path: [PathItem]
  public var allowed: Affordances
  /// What the app's backend says about the user (`[:]` until it says something). Always `[:]`
  /// as a follow share's token reads it: it never sees the context.
  public var context: SessionContext = [:]
  /// The request a redirect holds back, when there is one.
  public var pending: PendingRequest?
  /// The session's live shares, oldest first, with how many event streams watch through each
  /// (`[]` when none). A share's token sees only its own entry.
  public var shares: [ShareEntry] = []
  /// Where the session was forked from, for a session made by ``NavStateSession/fork(at:)``.
  public var forkedFrom: ForkOrigin?

  /// Every leave guard of the session: coordinator to reason. (Kept out of `PathItem`, so that
  /// setting a guard does not change a NavigationStack's path values.)
  public var leaveGuards: [CoordinatorID: String] {
    var guards: [CoordinatorID: String] = [:]
    var nodes = [root]
    while let node = nodes.popLast() {
      if let reason = node.leaveGuard { guards[node.id] = reason }
      nodes += node.children
    }
    return guards
  }
}

/// What a share's token may do: `follow` only reads (sensitive params `"[redacted]"`, no
/// context), `drive` does what the session's token does but share the session or delete it.
public enum ShareMode: String, Sendable, Hashable {
  case follow, drive
}

/// A live share of the session, as its state lists it.
public struct ShareEntry: Sendable, Hashable, Identifiable {
  /// The share's id, for ``NavStateSession/revokeShare(_:)``.
  public var id: String
  public var mode: ShareMode
  /// Who the share is for (`Support: Ana`), to show the user.
  public var label: String
  /// When the server revokes it (a `share.revoked` event with reason `expired`).
  public var expiresAt: Date
  /// How many event streams are open now with the share's token.
  public var watching: Int

  public init(id: String, mode: ShareMode, label: String, expiresAt: Date, watching: Int) {
    self.id = id
    self.mode = mode
    self.label = label
    self.expiresAt = expiresAt
    self.watching = watching
  }
}

/// The session and version a forked session was copied from.
public struct ForkOrigin: Sendable, Hashable {
  /// The source session's id.
  public var session: String
  /// The source's version the fork copied.
  public var version: Int

  public init(session: String, version: Int) {
    self.session = session
    self.version = version
  }
}

/// Why a coordinator stopped or a session ended, as the service says it.
public typealias Reason = String

/// One event of a session, in `seq` order.
public enum NavigationEvent: Sendable, Hashable {
  case started(
    seq: Int, version: Int, coordinator: CoordinatorID, route: String, params: Params,
    presentation: Presentation, parent: CoordinatorID?)
  case stopped(seq: Int, version: Int, coordinator: CoordinatorID, reason: Reason)
  case resumed(seq: Int, version: Int, coordinator: CoordinatorID, result: JSONResult)
  case tabSelected(seq: Int, version: Int, container: CoordinatorID, tab: Int)
  case sessionEnded(seq: Int, version: Int, reason: Reason)
  /// The session moved to a newer version of its graph.
  case migrated(seq: Int, version: Int, from: Int, to: Int)
  /// The backend changed the context (the whole new one).
  case contextChanged(seq: Int, version: Int, context: SessionContext)
  /// `route` was closed: `redirect` started instead as `coordinator`, the request is pending.
  case redirected(
    seq: Int, version: Int, coordinator: CoordinatorID, route: String, redirect: String)
  /// The context opened the pending request's route, and it was applied.
  case pendingApplied(seq: Int, version: Int, route: String)
  /// The pending request was given up: `replaced`, `cancelled` or `invalid` (then `code` says
  /// why).
  case pendingDropped(seq: Int, version: Int, route: String, reason: Reason, code: String?)
  /// A leave guard was set (`reason`) or cleared (nil).
  case leaveGuardChanged(seq: Int, version: Int, coordinator: CoordinatorID, reason: String?)
  /// The visible path was made what it was at session version `from` (a restore).
  case restored(seq: Int, version: Int, from: Int)
  /// A share of the session was handed out (``NavStateSession/share(mode:label:ttlSeconds:code:)``).
  case shareCreated(seq: Int, version: Int, share: String, mode: ShareMode, label: String)
  /// A share ended: `revoked`, or `expired` (the server revoked it at its `expiresAt`). The
  /// event streams opened with its token end after this event.
  case shareRevoked(seq: Int, version: Int, share: String, reason: Reason)

  public var seq: Int {
    switch self {
    case .started(let seq, _, _, _, _, _, _), .stopped(let seq, _, _, _),
      .resumed(let seq, _, _, _), .tabSelected(let seq, _, _, _), .sessionEnded(let seq, _, _),
      .migrated(let seq, _, _, _), .contextChanged(let seq, _, _),
      .redirected(let seq, _, _, _, _), .pendingApplied(let seq, _, _),
      .pendingDropped(let seq, _, _, _, _), .leaveGuardChanged(let seq, _, _, _),
      .restored(let seq, _, _), .shareCreated(let seq, _, _, _, _),
      .shareRevoked(let seq, _, _, _):
      return seq
    }
  }

  public var version: Int {
    switch self {
    case .started(_, let version, _, _, _, _, _), .stopped(_, let version, _, _),
      .resumed(_, let version, _, _), .tabSelected(_, let version, _, _),
      .sessionEnded(_, let version, _), .migrated(_, let version, _, _),
      .contextChanged(_, let version, _), .redirected(_, let version, _, _, _),
      .pendingApplied(_, let version, _), .pendingDropped(_, let version, _, _, _),
      .leaveGuardChanged(_, let version, _, _), .restored(_, let version, _),
      .shareCreated(_, let version, _, _, _), .shareRevoked(_, let version, _, _):
      return version
    }
  }
}

/// What a mutation answers: the new state and the events it caused (none when nothing changed).
public struct Mutation: Sendable, Hashable {
  public var state: SessionState
  public var events: [NavigationEvent]
}

/// The events after a sequence number, or the whole state when those are no longer kept.
public struct EventPage: Sendable, Hashable {
  public var events: [NavigationEvent]
  public var lastSeq: Int
  public var reset: SessionState?
}

/// One entry of a visible path asked for with `setPath`.
public struct PathEntry: Sendable, Hashable {
  public var route: String
  public var params: Params
  public var presentation: Presentation?

  public init(_ route: String, params: Params = [:], presentation: Presentation? = nil) {
    self.route = route
    self.params = params
    self.presentation = presentation
  }
}

/// One operation of a batch.
public enum BatchOperation: Sendable, Hashable {
  case push(String, params: Params = [:])
  case pop(count: Int = 1)
  case popToRoot
  case present(String, params: Params = [:], style: ModalStyle = .sheet)
  case dismiss
  case back
  case replace(String, params: Params = [:])
  case selectTab(String)
  case deepLink(String)
  case tearDown(CoordinatorID)
}

/// An operation that a leave guard may refuse (`leaveBlocked`). The refusal carries it, so that
/// it can be sent again with `discard` once the user agrees to lose the changes.
public enum GuardedOperation: Sendable, Hashable {
  case pop(count: Int, result: JSONResult?)
  case popTo(CoordinatorID, result: JSONResult?)
  case popToRoot(result: JSONResult?)
  case dismiss(CoordinatorID?, result: JSONResult?)
  case dismissAll(result: JSONResult?)
  case back(result: JSONResult?)
  case replace(String, params: Params)
  case setPath([PathEntry])
  case deepLink(String)
  case batch([BatchOperation])
  case restore(version: Int)
}

/// What migrating a graph's live sessions to its newest version does (a dry run) or did.
public struct MigrationReport: Sendable, Hashable {
  /// Live sessions of the graph that were behind.
  public var sessions: Int
  /// Sessions whose coordinators all stay; only their graph version moves.
  public var unchanged: Int
  /// The others (the restarted included).
  public var migrated: Int
  /// Coordinators stopped, by route.
  public var stopped: [String: Int]
  /// Sessions whose root could not stay, restarted at the graph's root.
  public var restarted: Int
}
