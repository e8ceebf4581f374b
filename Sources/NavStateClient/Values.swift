import Foundation
import OpenAPIRuntime

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

  public init() {}
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

  public var seq: Int {
    switch self {
    case .started(let seq, _, _, _, _, _, _), .stopped(let seq, _, _, _),
      .resumed(let seq, _, _, _), .tabSelected(let seq, _, _, _), .sessionEnded(let seq, _, _):
      return seq
    }
  }

  public var version: Int {
    switch self {
    case .started(_, let version, _, _, _, _, _), .stopped(_, let version, _, _),
      .resumed(_, let version, _, _), .tabSelected(_, let version, _, _),
      .sessionEnded(_, let version, _):
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
