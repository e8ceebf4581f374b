import NavJSON
package import NavigationCore

/// The commands clients send most (push, pop, present, dismiss, back, and batches of them),
/// read straight from the body's bytes, with no `JSONValue` tree and no `Fields`.
///
/// Only the plain, well-formed shapes are read here; for anything else (an unknown member, a
/// wrong type, a `result`, an escape in a string, a repeated name, an invalid id or style) it
/// answers nil, and the body goes through `JSONParser` and ``CommandDecoder``, which refuse it
/// with their usual problem and code. So every refusal stays what it was, and every command read
/// here equals the one the general path would read (a property test checks this).
package enum HotCommandDecoder {
  package static func command(_ operation: Operation, body: UnsafeBufferPointer<UInt8>)
    -> Command?
  {
    var scanner = JSONScanner(body)
    let command: Command?
    switch operation {
    case .push, .present, .pop, .dismiss, .back:
      guard var fields = SimpleFields(&scanner, opMember: false) else { return nil }
      command = Self.command(named: operation, from: &fields)
    case .batch:
      command = batch(&scanner)
    case .replace, .selectTab, .deeplink, .state, .teardown:
      return nil
    }
    return scanner.isAtEnd ? command : nil
  }

  private static func command(named name: Operation, from fields: inout SimpleFields) -> Command? {
    switch name {
    case .push:
      guard let route = fields.route, fields.style == nil, fields.popOnly == false,
        fields.dismissOnly == false
      else { return nil }
      return .push(
        RouteRequest(route: route, params: fields.params ?? JSONObject()), target: fields.target,
        singleTop: fields.singleTop ?? false)
    case .present:
      guard let route = fields.route, fields.target == nil, fields.singleTop == nil,
        fields.popOnly == false, fields.dismissOnly == false
      else { return nil }
      let style = fields.style ?? .sheet
      return .present(
        RouteRequest(route: route, params: fields.params ?? JSONObject()), style: style)
    case .pop:
      guard fields.hasNoRouteMembers, fields.dismissOnly == false, fields.target == nil else {
        return nil
      }
      let chosen =
        (fields.count != nil ? 1 : 0) + (fields.to != nil ? 1 : 0)
        + (fields.toRoot == true ? 1 : 0)
      guard chosen <= 1 else { return nil }
      if let to = fields.to { return .pop(.to(to)) }
      if fields.toRoot == true { return .pop(.toRoot) }
      return .pop(.count(fields.count ?? 1))
    case .dismiss:
      guard fields.hasNoRouteMembers, fields.popOnly == false, fields.target == nil else {
        return nil
      }
      if let coordinator = fields.coordinator {
        guard fields.all != true else { return nil }
        return .dismiss(.coordinator(coordinator))
      }
      return .dismiss(fields.all == true ? .all : .current)
    case .back:
      guard fields.hasNoRouteMembers, fields.popOnly == false, fields.dismissOnly == false,
        fields.target == nil
      else { return nil }
      return .back()
    case .replace, .selectTab, .deeplink, .state, .teardown, .batch:
      return nil
    }
  }

  /// `{"ops": [op, ...]}`, every op one of the commands above.
  private static func batch(_ scanner: inout JSONScanner) -> Command? {
    guard scanner.take(UInt8(ascii: "{")), let key = scanner.plainStringBytes(), key.spells("ops"),
      scanner.take(UInt8(ascii: ":")), scanner.take(UInt8(ascii: "["))
    else { return nil }
    var ops: [Command] = []
    if !scanner.take(UInt8(ascii: "]")) {
      // Room for a usual batch at once, rather than growing from one op to two to four.
      ops.reserveCapacity(4)
      repeat {
        guard var fields = SimpleFields(&scanner, opMember: true), let name = fields.op,
          let op = command(named: name, from: &fields)
        else { return nil }
        ops.append(op)
      } while scanner.take(UInt8(ascii: ","))
      guard scanner.take(UInt8(ascii: "]")) else { return nil }
    }
    guard scanner.take(UInt8(ascii: "}")) else { return nil }
    return .batch(ops)
  }
}

/// The members the hot commands take, read from one flat object; nil on anything else.
private struct SimpleFields {
  var op: Operation?
  var route: String?
  var params: JSONObject?
  var target: CoordinatorID?
  var singleTop: Bool?
  var style: ModalStyle?
  var count: Int?
  var to: CoordinatorID?
  var toRoot: Bool?
  var coordinator: CoordinatorID?
  var all: Bool?

  var hasNoRouteMembers: Bool { route == nil && params == nil && style == nil && singleTop == nil }
  /// Members only pop takes.
  var popOnly: Bool { count != nil || to != nil || toRoot != nil }
  /// Members only dismiss takes.
  var dismissOnly: Bool { coordinator != nil || all != nil }

  init?(_ scanner: inout JSONScanner, opMember: Bool) {
    guard scanner.take(UInt8(ascii: "{")) else { return nil }
    if scanner.take(UInt8(ascii: "}")) { return }
    repeat {
      guard let key = scanner.plainStringBytes(), scanner.take(UInt8(ascii: ":")),
        read(key, &scanner, opMember: opMember)
      else { return nil }
    } while scanner.take(UInt8(ascii: ","))
    guard scanner.take(UInt8(ascii: "}")) else { return nil }
  }

  /// Reads the value of `key`; false for an unknown or repeated member or a value not plain.
  private mutating func read(
    _ key: UnsafeBufferPointer<UInt8>, _ scanner: inout JSONScanner, opMember: Bool
  ) -> Bool {
    func set<Value>(_ field: inout Value?, _ value: Value?) -> Bool {
      guard field == nil, let value else { return false }
      field = value
      return true
    }
    func id() -> CoordinatorID? { scanner.plainString().flatMap(CoordinatorID.init) }
    if opMember && key.spells("op") {
      return set(&op, scanner.plainStringBytes().flatMap(Self.opName))
    }
    if key.spells("route") { return set(&route, scanner.plainString()) }
    if key.spells("params") { return set(&params, Self.params(&scanner)) }
    if key.spells("target") { return set(&target, id()) }
    if key.spells("singleTop") { return set(&singleTop, scanner.bool()) }
    if key.spells("style") {
      return set(&style, scanner.plainString().flatMap(ModalStyle.init(rawValue:)))
    }
    if key.spells("count") { return set(&count, scanner.plainInt()) }
    if key.spells("to") { return set(&to, id()) }
    if key.spells("toRoot") { return set(&toRoot, scanner.bool()) }
    if key.spells("coordinator") { return set(&coordinator, id()) }
    if key.spells("all") { return set(&all, scanner.bool()) }
    return false
  }

  /// The hot operations by name, as constants (no `String` made from the body).
  private static func opName(_ bytes: UnsafeBufferPointer<UInt8>) -> Operation? {
    if bytes.spells("push") { return .push }
    if bytes.spells("pop") { return .pop }
    if bytes.spells("present") { return .present }
    if bytes.spells("dismiss") { return .dismiss }
    if bytes.spells("back") { return .back }
    return nil
  }

  /// A flat object of plain values, names unrepeated.
  private static func params(_ scanner: inout JSONScanner) -> JSONObject? {
    guard scanner.take(UInt8(ascii: "{")) else { return nil }
    var members: [JSONObject.Member] = []
    if scanner.take(UInt8(ascii: "}")) { return JSONObject(members) }
    repeat {
      guard let name = scanner.plainString(), scanner.take(UInt8(ascii: ":")),
        let value = scanner.plainValue(), !members.contains(where: { $0.key == name })
      else { return nil }
      members.append(JSONObject.Member(key: name, value: value))
    } while scanner.take(UInt8(ascii: ","))
    guard scanner.take(UInt8(ascii: "}")) else { return nil }
    return JSONObject(members)
  }
}
