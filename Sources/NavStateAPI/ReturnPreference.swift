import MicroHTTPServer
import NavigationCore

/// The `return` preference of RFC 7240 (`Prefer: return=minimal`).
enum ReturnPreference {
  /// Whether any `Prefer` field asks for `return=minimal`. Preference names are compared without
  /// regard to case; the value may be quoted; parameters after ";" are ignored, as is any other
  /// preference (`respond-async`, `wait=5`). A percent-encoded field (`return%3Dminimal`, as
  /// swift-openapi-generator's clients send it) is read decoded, as If-Match is.
  static func prefersMinimal(_ headers: HTTPHeaders) -> Bool {
    // Most requests carry no Prefer at all: one lookup, no list.
    guard headers["prefer"] != nil else { return false }
    return headers.values("prefer").contains { raw in
      let field = raw.contains("%") ? (percentDecoded(raw) ?? raw) : raw
      return field.split(separator: ",").contains { preference in
        let nameAndValue = preference.split(separator: ";", maxSplits: 1).first ?? ""
        let parts = nameAndValue.split(separator: "=", maxSplits: 1)
        guard parts.count == 2 else { return false }
        var value = parts[1].trimmingWhitespace()
        if value.count >= 2, value.first == "\"", value.last == "\"" {
          value = value.dropFirst().dropLast()
        }
        return parts[0].trimmingWhitespace().lowercased() == "return"
          && value.lowercased() == "minimal"
      }
    }
  }
}
