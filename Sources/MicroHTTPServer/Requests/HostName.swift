/// A Host field's name, as compared with `--allowed-host`: lowercased, without its port.
enum HostName {
  static func normalized(_ field: String) -> String {
    var host = Substring(field.lowercased())
    if host.hasPrefix("[") {
      // An IPv6 literal: "[::1]:8080" → "[::1]".
      if let close = host.firstIndex(of: "]") { host = host[...close] }
    } else if let colon = host.lastIndex(of: ":") {
      host = host[..<colon]
    }
    return String(host)
  }
}
