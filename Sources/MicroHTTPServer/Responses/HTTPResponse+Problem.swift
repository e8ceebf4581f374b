extension HTTPResponse {
  /// The base of every problem `type` URI.
  public static let problemTypeBase = "https://navstate.dev/problems/"

  /// An RFC 9457 problem document with `Content-Type: application/problem+json`:
  /// `{"type":"https://navstate.dev/problems/<code>","title":…,"status":…,"detail":…,"code":…}`
  /// followed by the `extra` members in order. Each extra value must already be encoded JSON
  /// (e.g. `("version", "3")` or `("field", "\"name\"")`); names are escaped here.
  public static func problem(
    status: Int, code: String, title: String, detail: String, extra: [(String, String)] = []
  ) -> HTTPResponse {
    var json = "{\"type\":"
    JSONText.appendString(problemTypeBase + code, to: &json)
    json += ",\"title\":"
    JSONText.appendString(title, to: &json)
    json += ",\"status\":\(status),\"detail\":"
    JSONText.appendString(detail, to: &json)
    json += ",\"code\":"
    JSONText.appendString(code, to: &json)
    for (name, value) in extra {
      json += ","
      JSONText.appendString(name, to: &json)
      json += ":"
      json += value
    }
    json += "}"
    return HTTPResponse(
      status: status, headers: HTTPHeaders([("Content-Type", "application/problem+json")]),
      body: Array(json.utf8))
  }
}

/// The little JSON writing the server itself needs (problem documents).
enum JSONText {
  /// Appends `value` as a JSON string literal, escaping quotes, backslashes and control characters.
  static func appendString(_ value: String, to output: inout String) {
    output += "\""
    var plainStart = value.unicodeScalars.startIndex
    var index = plainStart
    while index != value.unicodeScalars.endIndex {
      let scalar = value.unicodeScalars[index]
      let escaped: String?
      switch scalar {
      case "\"": escaped = "\\\""
      case "\\": escaped = "\\\\"
      case "\n": escaped = "\\n"
      case "\r": escaped = "\\r"
      case "\t": escaped = "\\t"
      case _ where scalar.value < 0x20:
        let hex = String(scalar.value, radix: 16)
        escaped = "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
      default: escaped = nil
      }
      if let escaped {
        output.unicodeScalars.append(contentsOf: value.unicodeScalars[plainStart..<index])
        output += escaped
        plainStart = value.unicodeScalars.index(after: index)
      }
      index = value.unicodeScalars.index(after: index)
    }
    output.unicodeScalars.append(contentsOf: value.unicodeScalars[plainStart..<index])
    output += "\""
  }
}
