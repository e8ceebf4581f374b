public import NavJSON
public import NavigationCore

/// What a `follow` share reads of any JSON about its session (a state, an event, a history
/// entry): sensitive params `"[redacted]"`, as ``Redaction`` does, no `context` member
/// anywhere (the backend's word about the user is not for onlookers), and a state's `allowed`
/// with nothing allowed (a follow share may not move the session, so a client that draws its
/// controls from `allowed` draws none). In a graph with sensitive params, a deep link's `url`
/// (an op's, a pending request's) is `"[redacted]"` too: it holds its params in the clear.
/// Params and results are the client's values, not the server's shapes: a member named
/// `context` inside them stays.
public enum FollowView {
  public static func filter(_ value: JSONValue, in graph: RouteGraph) -> JSONValue {
    let stripped = withoutContext(value, redactsURLs: graph.hasSensitiveParams)
    return graph.hasSensitiveParams ? Redaction.redact(stripped, in: graph) : stripped
  }

  /// ``filter(_:in:)`` over encoded JSON; bytes that are not JSON (never what the server
  /// wrote) become `null` rather than pass unfiltered.
  public static func filter(json bytes: [UInt8], in graph: RouteGraph) -> [UInt8] {
    // Most events of most graphs have nothing to take out: no sensitive param, no `"context"`
    // or `"allowed"` anywhere (a stream's fan-out reaches here once per event).
    guard
      graph.hasSensitiveParams || contains(bytes, Self.contextKey)
        || contains(bytes, Self.allowedKey)
    else { return bytes }
    guard let value = try? JSONParser.parse(bytes) else { return Array("null".utf8) }
    var writer = JSONWriter(capacity: bytes.count + 16)
    writer.value(filter(value, in: graph))
    return writer.bytes
  }

  private static let contextKey = Array(#""context""#.utf8)
  private static let allowedKey = Array(#""allowed""#.utf8)

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

  /// Affordances with every list empty and every flag false, in the same shape.
  private static func nothingAllowed(_ value: JSONValue) -> JSONValue {
    guard case .object(let object) = value else { return value }
    return .object(
      JSONObject(
        object.members.map { member in
          switch member.value {
          case .array: JSONObject.Member(key: member.key, value: .array([]))
          case .bool: JSONObject.Member(key: member.key, value: .bool(false))
          default: member
          }
        }))
  }

  private static func withoutContext(_ value: JSONValue, redactsURLs: Bool) -> JSONValue {
    switch value {
    case .array(let elements):
      return .array(elements.map { withoutContext($0, redactsURLs: redactsURLs) })
    case .object(let object):
      var members: [JSONObject.Member] = []
      members.reserveCapacity(object.members.count)
      for member in object.members where member.key != "context" {
        let kept: JSONValue
        switch member.key {
        case "params", "result": kept = member.value
        case "allowed": kept = nothingAllowed(member.value)
        case "url" where redactsURLs && member.value.stringValue != nil:
          kept = .string(Redaction.placeholder)
        default: kept = withoutContext(member.value, redactsURLs: redactsURLs)
        }
        members.append(JSONObject.Member(key: member.key, value: kept))
      }
      return .object(JSONObject(members))
    default:
      return value
    }
  }
}
