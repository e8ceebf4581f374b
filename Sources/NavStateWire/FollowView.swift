public import NavJSON
public import NavigationCore

/// What a `follow` share reads of any JSON about its session (a state, an event, a history
/// entry): sensitive params `"[redacted]"`, as ``Redaction`` does, and no `context` member
/// anywhere (the backend's word about the user is not for onlookers). Params and results are
/// the client's values, not the server's shapes: a member named `context` inside them stays.
public enum FollowView {
  public static func filter(_ value: JSONValue, in graph: RouteGraph) -> JSONValue {
    let stripped = withoutContext(value)
    return graph.hasSensitiveParams ? Redaction.redact(stripped, in: graph) : stripped
  }

  /// ``filter(_:in:)`` over encoded JSON; bytes that are not JSON (never what the server
  /// wrote) become `null` rather than pass unfiltered.
  public static func filter(json bytes: [UInt8], in graph: RouteGraph) -> [UInt8] {
    // Most events of most graphs have nothing to take out: no sensitive param, no `"context"`
    // anywhere (a stream's fan-out reaches here once per event).
    guard graph.hasSensitiveParams || contains(bytes, Self.contextKey) else { return bytes }
    guard let value = try? JSONParser.parse(bytes) else { return Array("null".utf8) }
    var writer = JSONWriter(capacity: bytes.count + 16)
    writer.value(filter(value, in: graph))
    return writer.bytes
  }

  private static let contextKey = Array(#""context""#.utf8)

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

  private static func withoutContext(_ value: JSONValue) -> JSONValue {
    switch value {
    case .array(let elements):
      return .array(elements.map(withoutContext))
    case .object(let object):
      var members: [JSONObject.Member] = []
      members.reserveCapacity(object.members.count)
      for member in object.members where member.key != "context" {
        let kept =
          member.key == "params" || member.key == "result"
          ? member.value : withoutContext(member.value)
        members.append(JSONObject.Member(key: member.key, value: kept))
      }
      return .object(JSONObject(members))
    default:
      return value
    }
  }
}
