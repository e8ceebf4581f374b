public import NavJSON
public import NavigationCore

/// Reads operation bodies into core commands. Unknown members are refused rather than ignored,
/// so a typo such as `singletop` is reported instead of silently doing something else.
public enum CommandDecoder {
  public static func command(_ operation: Operation, body: JSONValue) throws(NavigationError)
    -> Command
  {
    var fields = try Fields(body, context: operation.rawValue)
    return try command(operation, &fields)
  }

  /// The command named `name` (as a format-1 journal record or a batch element names it).
  public static func command(_ name: String, body: JSONValue) throws(NavigationError) -> Command {
    guard let operation = Operation(name: name) else {
      throw NavigationError(.invalidRequest, "unknown operation \(quoted(name))")
    }
    return try command(operation, body: body)
  }

  /// The command `operation` with its members read from `fields`; any left unread is refused.
  static func command(_ operation: Operation, _ fields: inout Fields) throws(NavigationError)
    -> Command
  {
    let command: Command
    switch operation {
    case .push:
      let request = try fields.routeRequest()
      let target = try fields.coordinator("target")
      let singleTop = try fields.bool("singleTop") ?? false
      command = .push(request, target: target, singleTop: singleTop)
    case .pop:
      let count = try fields.int("count")
      let to = try fields.coordinator("to")
      let toRoot = try fields.bool("toRoot") ?? false
      let result = fields.any("result")
      let chosen = [count != nil, to != nil, toRoot].filter { $0 }.count
      guard chosen <= 1 else {
        throw NavigationError(.invalidRequest, "pop takes one of 'count', 'to' and 'toRoot'")
      }
      let amount: PopAmount =
        if let to { .to(to) } else if toRoot { .toRoot } else { .count(count ?? 1) }
      command = .pop(amount, result: result)
    case .present:
      let request = try fields.routeRequest()
      let styleName = try fields.string("style") ?? ModalStyle.sheet.rawValue
      guard let style = ModalStyle(rawValue: styleName) else {
        throw NavigationError(.invalidRequest, "'style' must be sheet or fullScreenCover")
      }
      command = .present(request, style: style)
    case .dismiss:
      let target = try fields.coordinator("coordinator")
      let all = try fields.bool("all") ?? false
      let result = fields.any("result")
      guard target == nil || !all else {
        throw NavigationError(.invalidRequest, "dismiss takes 'coordinator' or 'all', not both")
      }
      command = .dismiss(
        target.map(DismissTarget.coordinator) ?? (all ? .all : .current), result: result)
    case .back:
      command = .back(result: fields.any("result"))
    case .replace:
      command = .replace(try fields.routeRequest())
    case .selectTab:
      let selector: TabSelector
      switch fields.any("tab") {
      case .some(.string(let name)): selector = .route(name)
      case .some(let value) where value.intValue != nil: selector = .index(value.intValue ?? 0)
      default:
        throw NavigationError(.invalidRequest, "'tab' must be a tab index or a tab route name")
      }
      command = .selectTab(selector, container: try fields.coordinator("container"))
    case .deeplink:
      guard let url = try fields.string("url") else {
        throw NavigationError(.invalidRequest, "'url' is required")
      }
      command = .deepLink(url)
    case .state:
      command = .setPath(try fields.path())
    case .teardown:
      guard let id = try fields.coordinator("coordinator") else {
        throw NavigationError(.invalidRequest, "'coordinator' is required")
      }
      command = .teardown(id)
    case .batch:
      guard let list = fields.any("ops")?.arrayValue else {
        throw NavigationError(.invalidRequest, "'ops' must be an array of operations")
      }
      var ops: [Command] = []
      for (index, element) in list.enumerated() {
        do throws(NavigationError) {
          ops.append(try batchOp(element))
        } catch {
          var refusal = error
          refusal.opIndex = index
          throw refusal
        }
      }
      command = .batch(ops)
    }
    // `discard: true`: go ahead even if a coordinator it stops has a leave guard (docs/behaviour.md section 11).
    var decided = command
    if operation.isDiscardable, try fields.bool("discard") == true {
      decided = .discarding(command)
    }
    try fields.rejectUnread()
    return decided
  }

  /// A batch element: `{"op": "push", ...the fields of that operation}`.
  public static func batchOp(_ element: JSONValue) throws(NavigationError) -> Command {
    guard element.objectValue != nil else {
      throw NavigationError(.invalidRequest, "each op must be an object with an 'op'")
    }
    var fields = try Fields(element, context: "op")
    guard let name = fields.any("op")?.stringValue else {
      throw NavigationError(.invalidRequest, "each op needs an 'op' naming the operation")
    }
    guard let operation = Operation(name: name) else {
      throw NavigationError(.invalidRequest, "unknown operation \(quoted(name))")
    }
    guard operation != .batch else {
      throw NavigationError(.invalidRequest, "a batch may not contain a batch")
    }
    fields.context = name
    return try command(operation, &fields)
  }

  /// The optional root of `POST /v1/sessions`.
  public static func rootRequest(_ value: JSONValue) throws(NavigationError) -> RouteRequest {
    var fields = try Fields(value, context: "root")
    let request = try fields.routeRequest()
    try fields.rejectUnread()
    return request
  }
}

/// The members of a body, read one at a time; what is left unread at the end is refused.
struct Fields {
  private let members: [JSONObject.Member]
  /// Which members have been read, by position (the parser refuses repeated names, so a name
  /// has one position).
  private var read: [Bool]
  var context: String

  init(_ value: JSONValue, context: String) throws(NavigationError) {
    guard let object = value.objectValue else {
      throw NavigationError(.invalidRequest, "the body of \(context) must be a JSON object")
    }
    self.members = object.members
    self.read = Array(repeating: false, count: object.members.count)
    self.context = context
  }

  mutating func any(_ key: String) -> JSONValue? {
    // The last of equal names wins, as in JSONObject (only built values can repeat one).
    guard let position = members.lastIndex(where: { $0.key == key }) else { return nil }
    read[position] = true
    return members[position].value
  }

  // A member that is present must have its type: `null` is not taken to mean "absent".

  mutating func string(_ key: String) throws(NavigationError) -> String? {
    guard let value = any(key) else { return nil }
    guard let text = value.stringValue else { throw mistyped(key, "a string", value) }
    return text
  }

  mutating func int(_ key: String) throws(NavigationError) -> Int? {
    guard let value = any(key) else { return nil }
    guard let number = value.intValue else { throw mistyped(key, "an integer", value) }
    return number
  }

  mutating func bool(_ key: String) throws(NavigationError) -> Bool? {
    guard let value = any(key) else { return nil }
    guard let flag = value.boolValue else { throw mistyped(key, "true or false", value) }
    return flag
  }

  mutating func coordinator(_ key: String) throws(NavigationError) -> CoordinatorID? {
    guard let text = try string(key) else { return nil }
    guard let id = CoordinatorID(text) else {
      throw NavigationError(
        .unknownCoordinator, "\(quoted(text)) is not a coordinator id (c1, c2, ...)")
    }
    return id
  }

  mutating func params() throws(NavigationError) -> JSONObject {
    guard let value = any("params") else { return JSONObject() }
    guard let params = value.objectValue else { throw mistyped("params", "an object", value) }
    return params
  }

  mutating func routeRequest() throws(NavigationError) -> RouteRequest {
    guard let route = try string("route") else {
      throw NavigationError(.invalidRequest, "'route' is required")
    }
    return RouteRequest(route: route, params: try params())
  }

  mutating func path() throws(NavigationError) -> [PathEntry] {
    guard let list = any("path")?.arrayValue else {
      throw NavigationError(
        .invalidRequest, "'path' must be an array of {route, params, presentation}")
    }
    var entries: [PathEntry] = []
    for (position, element) in list.enumerated() {
      var entry = try Fields(element, context: "path entry \(position)")
      let request = try entry.routeRequest()
      let name = try entry.string("presentation") ?? (position == 0 ? "root" : "push")
      guard let presentation = Presentation(rawValue: name) else {
        throw NavigationError(
          .invalidRequest, "path entry \(position): unknown presentation \(quoted(name))")
      }
      try entry.rejectUnread()
      entries.append(
        PathEntry(route: request.route, params: request.params, presentation: presentation))
    }
    return entries
  }

  func rejectUnread() throws(NavigationError) {
    for (position, member) in members.enumerated() where !read[position] {
      // A repeated name read through its last occurrence counts as read.
      guard members[(position + 1)...].contains(where: { $0.key == member.key }) else {
        throw NavigationError(.invalidRequest, "\(context) has no field \(quoted(member.key))")
      }
    }
  }

  private func mistyped(_ key: String, _ expected: String, _ value: JSONValue) -> NavigationError {
    NavigationError(.invalidRequest, "'\(key)' must be \(expected), not \(value.kindName)")
  }
}
