public import NavJSON
public import NavigationCore

/// What a `follow` share reads of any JSON about its session (a state, an event, a history
/// entry): sensitive params `"[redacted]"`, as ``Redaction`` does, no `context` member
/// anywhere (the backend's word about the user is not for onlookers), and a state's `allowed`
/// with nothing allowed (a follow share may not move the session, so a client that draws its
/// controls from `allowed` draws none). In a graph with sensitive params, a deep link's `url`
/// (an op's, a pending request's) is `"[redacted]"` too: it holds its params in the clear. A
/// route the graph no longer has (from before a migration) has every param redacted.
/// Params and results are the client's values, not the server's shapes: a member named
/// `context` inside them stays.
public enum FollowView {
  public static func filter(_ value: JSONValue, in graph: RouteGraph) -> JSONValue {
    withoutContext(value, graph: graph)
  }

  /// ``filter(_:in:)`` over encoded JSON; bytes that are not JSON (never what the server
  /// wrote) become `null` rather than pass unfiltered.
  public static func filter(json bytes: [UInt8], in graph: RouteGraph) -> [UInt8] {
    // Events with nothing to take out (no params, context, affordances or URL) pass as they are
    // (a stream's fan-out reaches here once per event).
    guard Self.keys.contains(where: { contains(bytes, $0) }) else { return bytes }
    // Each nested coordinator is two levels of JSON: deep enough for any tree a session holds.
    guard let value = try? JSONParser.parse(bytes, maxDepth: 4096) else {
      return Array("null".utf8)
    }
    var writer = JSONWriter(capacity: bytes.count + 16)
    writer.value(filter(value, in: graph))
    return writer.bytes
  }

  private static let keys = [#""context""#, #""allowed""#, #""params""#, #""url""#].map {
    Array($0.utf8)
  }

  private static func contains(_ bytes: [UInt8], _ needle: [UInt8]) -> Bool {
    guard bytes.count >= needle.count, let first = needle.first else { return false }
    var index = 0
    let last = bytes.count - needle.count
    while index <= last {
      if bytes[index] == first, bytes[index..<index + needle.count].elementsEqual(needle) {
        return true
      }
      index += 1
    }
    return false
  }

  /// A route's params with those it declares sensitive as `"[redacted]"`; all of them for a
  /// route the graph no longer has (an event or entry from before a migration renamed or
  /// dropped it), whose declarations are not known here.
  private static func redacted(_ params: JSONValue, of route: String?, in graph: RouteGraph)
    -> JSONValue
  {
    guard case .object(let members) = params, let route else { return params }
    let known = graph.route(named: route) != nil
    guard !known || graph.hasSensitiveParams else { return params }
    return .object(
      JSONObject(
        members.members.map { param in
          !known || graph.isSensitive(route: route, param: param.key)
            ? JSONObject.Member(key: param.key, value: .string(Redaction.placeholder)) : param
        }))
  }

  /// Affordances with every list empty and every flag false, in the same shape.
  private static func nothingAllowed(_ value: JSONValue) -> JSONValue {
    guard case .object(let object) = value else { return value }
    return .object(
      JSONObject(
        object.members.map { member in
          switch member.value {
          case .array: JSONObject.Member(key: member.key, value: .array([]))
          case .bool: JSONObject.Member(key: member.key, value: .bool(false))
          case .object: JSONObject.Member(key: member.key, value: .object(JSONObject()))
          default: member
          }
        }))
  }

  private static func withoutContext(_ value: JSONValue, graph: RouteGraph) -> JSONValue {
    switch value {
    case .array(let elements):
      return .array(elements.map { withoutContext($0, graph: graph) })
    case .object(let object):
      let route = object["route"]?.stringValue
      var members: [JSONObject.Member] = []
      members.reserveCapacity(object.members.count)
      for member in object.members where member.key != "context" {
        let kept: JSONValue
        switch member.key {
        case "params":
          kept = redacted(member.value, of: route, in: graph)
        case "result": kept = member.value
        case "allowed": kept = nothingAllowed(member.value)
        case "url" where graph.hasSensitiveParams && member.value.stringValue != nil:
          kept = .string(Redaction.placeholder)
        default: kept = withoutContext(member.value, graph: graph)
        }
        members.append(JSONObject.Member(key: member.key, value: kept))
      }
      return .object(JSONObject(members))
    default:
      return value
    }
  }
}
