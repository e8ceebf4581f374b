public import NavJSON
public import NavigationCore

/// Sensitive params (`"sensitive": true` in a graph) shown as `"[redacted]"`: in any JSON the
/// server writes about a session (a state, a history entry's `op`), every object with a `route`
/// and `params` has the params its route declares sensitive replaced.
public enum Redaction {
  public static let placeholder = "[redacted]"

  public static func redact(_ value: JSONValue, in graph: RouteGraph) -> JSONValue {
    switch value {
    case .array(let elements):
      return .array(elements.map { redact($0, in: graph) })
    case .object(let object):
      var members = object.members.map { member in
        JSONObject.Member(key: member.key, value: redact(member.value, in: graph))
      }
      if let route = object["route"]?.stringValue,
        let index = members.firstIndex(where: { $0.key == "params" }),
        case .object(let params) = members[index].value
      {
        members[index].value = .object(
          JSONObject(
            params.members.map { param in
              graph.isSensitive(route: route, param: param.key)
                ? JSONObject.Member(key: param.key, value: .string(placeholder)) : param
            }))
      }
      return .object(JSONObject(members))
    default:
      return value
    }
  }
}
