/// One line that libmicrohttpd wrote to its error log, sorted by whose doing it was, so that the
/// application can log a client's normal behaviour quietly and the server's own trouble loudly.
public struct ServerLogMessage: Sendable, Equatable {
  public enum Kind: Sendable, Hashable {
    /// The client closed or reset its connection (a closed browser tab, a killed curl): normal.
    case clientGone
    /// A connection was refused at a limit (connections in total or per address).
    case connectionRefused
    /// Anything else.
    case other
  }

  public var text: String
  public var kind: Kind

  public init(text: String, kind: Kind) {
    self.text = text
    self.kind = kind
  }

  /// Sorts libmicrohttpd 0.9.75's messages by their wording, the only thing the log callback has.
  public init(text: String) {
    self.text = text
    self.kind = Self.kind(of: text)
  }

  private static let clientGoneMarks = [
    "no longer available", "reset by peer", "broken pipe", "closed by remote",
    "disconnected", "not connected", "closed the connection",
  ]
  private static let refusedMarks = [
    "connection limit", "too many connections", "rejected by application",
    "limit of connections", "per ip",
  ]

  static func kind(of text: String) -> Kind {
    let lowered = text.lowercased()
    if clientGoneMarks.contains(where: lowered.contains) { return .clientGone }
    if refusedMarks.contains(where: lowered.contains) { return .connectionRefused }
    return .other
  }
}
