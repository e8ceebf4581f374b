import Foundation

/// What a `--postgres` value may be shown as in logs: its password replaced.
package enum PostgresURL {
  package static func redacted(_ url: String) -> String {
    if let scheme = url.range(of: "://"), let at = url[scheme.upperBound...].firstIndex(of: "@") {
      let credentials = url[scheme.upperBound..<at]
      if let colon = credentials.firstIndex(of: ":") {
        return String(url[..<colon]) + ":***" + String(url[at...])
      }
      return url
    }
    // Keyword form: hide password=... .
    return url.split(separator: " ").map {
      $0.hasPrefix("password=") ? "password=***" : String($0)
    }.joined(separator: " ")
  }
}
