import MicroHTTPServer
import NavJSON
import NavStateEngine
import NavigationCore

/// A refusal at the HTTP level, shown as an RFC 9457 problem document.
public struct APIProblem: Error, Sendable {
  public var status: Int
  public var code: String
  public var title: String
  public var detail: String
  /// Extra members, each already encoded as JSON.
  public var extra: [(String, String)] = []
  public var headers: [(String, String)] = []

  public init(
    status: Int, code: String, title: String, detail: String, extra: [(String, String)] = [],
    headers: [(String, String)] = []
  ) {
    self.status = status
    self.code = code
    self.title = title
    self.detail = detail
    self.extra = extra
    self.headers = headers
  }

  /// A wrong token and an unknown session answer alike, so ids cannot be probed.
  static let sessionNotFound = APIProblem(
    status: 404, code: "session_not_found", title: "Session not found",
    detail: "no session with this id is open for this token")

  /// The session ended while its token holder was away (see `EndedSessions`).
  static func sessionEnded(_ reason: SessionEndReason) -> APIProblem {
    APIProblem(
      status: 410, code: "session_ended", title: "Session ended",
      detail: reason == .expired
        ? "the session expired: it had no call for its time to live"
        : "the session was deleted",
      extra: [("reason", "\"\(reason.rawValue)\"")])
  }

  /// `--data-dir` could not record a change: it is not made, since a restart would lose it.
  static let journalUnavailable = APIProblem(
    status: 503, code: "journal_unavailable", title: "Journal unavailable",
    detail: "the server cannot record changes in its data directory; retry later",
    headers: [("Retry-After", "30")])

  static let missingToken = APIProblem(
    status: 401, code: "unauthorized", title: "Unauthorized",
    detail: "send the session token as 'Authorization: Bearer <token>'",
    headers: [("WWW-Authenticate", "Bearer")])

  /// Not a token this service could have issued (RFC 6750 `invalid_token`).
  static let malformedToken = APIProblem(
    status: 401, code: "invalid_token", title: "Unauthorized",
    detail: "the bearer token is not one this service issues (43 base64url characters)",
    headers: [("WWW-Authenticate", #"Bearer error="invalid_token""#)])

  init(_ error: NavigationError) {
    let status: Int
    let title: String
    switch error.kind {
    case .unprocessable: (status, title) = (422, "Operation refused")
    case .conflict: (status, title) = (409, "Operation conflicts with the session state")
    case .notFound: (status, title) = (404, "Not found")
    case .forbidden: (status, title) = (403, "Requirement not met")
    }
    var extra: [(String, String)] = []
    if let index = error.opIndex { extra.append(("opIndex", String(index))) }
    switch error.details {
    case .requirementNotMet(let route, let missing):
      extra.append(("route", JSONValue.string(route).encodedString))
      extra.append(("missing", JSONValue.array(missing.map(JSONValue.string)).encodedString))
    case .leaveBlocked(let coordinator, let reason):
      extra.append(("coordinator", JSONValue.string(coordinator.description).encodedString))
      extra.append(("reason", JSONValue.string(reason).encodedString))
    case nil: break
    }
    self.init(
      status: status, code: error.code.rawValue, title: title, detail: error.detail, extra: extra)
  }

  var response: HTTPResponse {
    // Inputs are quoted in part where details are made; this bounds whatever slipped through.
    let bounded = detail.utf8.count > 1000 ? String(truncatedInput(detail).prefix(1000)) : detail
    var response = HTTPResponse.problem(
      status: status, code: code, title: title, detail: bounded, extra: extra)
    for (name, value) in headers { response.headers.add(name, value) }
    return response
  }
}
