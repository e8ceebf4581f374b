import MicroHTTPServer
import NavJSON
import NavStateEngine
import NavStateWire
import NavigationCore

/// A session's history (`GET .../history`), its state at a kept version (`GET ...?at=V`, in
/// `getSession`) and a restore of that version's path (`POST .../restore`).
extension NavStateService {
  func getHistory(_ request: HTTPRequest, key: SessionID?) throws(APIProblem) -> HTTPResponse {
    let (record, caller) = try authorizeCaller(key, request)
    // Checked whatever the format (breadcrumbs are all the kept versions, and take neither).
    let after = try Self.naturalQuery(request, "after", default: 0, max: Int.max)
    let limit = try Self.naturalQuery(request, "limit", default: 100, max: 1000, min: 1)
    if let format = request.queryItem("format") {
      guard format == "breadcrumbs" else {
        throw APIProblem(
          status: 400, code: "invalid_query", title: "Invalid query",
          detail: "'format' may only be breadcrumbs (or absent)")
      }
      let body = try engine { () throws(EngineRefusal) in try store.breadcrumbs(of: record) }
      return Self.json(200, body)
    }
    let body = try engine { () throws(EngineRefusal) in
      try store.history(of: record, after: after, limit: limit, viewer: caller.viewer)
    }
    return Self.json(200, body)
  }

  func restore(
    _ request: HTTPRequest, _ authorized: Authorized, idempotency: IdempotencyClaim?
  ) throws(APIProblem) -> HTTPResponse {
    let body = try Self.jsonBody(request) ?? .object(JSONObject())
    guard let object = body.objectValue else {
      throw APIProblem.invalidRestore("the body must be an object {version, discard?}")
    }
    for member in object.members where member.key != "version" && member.key != "discard" {
      throw APIProblem.invalidRestore("unknown member '\(member.key)'")
    }
    guard let value = object["version"] else {
      throw APIProblem.invalidRestore("'version' is required")
    }
    guard let version = value.intValue else {
      throw APIProblem(EngineRefusal.invalidVersion(current: 0)).withDetail(
        "'version' must be an integer, a version of the session")
    }
    var discard = false
    if let flag = object["discard"] {
      guard let bool = flag.boolValue else {
        throw APIProblem.invalidRestore("'discard' must be a boolean")
      }
      discard = bool
    }
    let minimal = ReturnPreference.prefersMinimal(request.headers)
    let precondition = Self.precondition(request)
    let applied = try engine { () throws(EngineRefusal) in
      try store.restore(
        authorized.record, to: version, discard: discard, by: authorized.caller,
        precondition: precondition, minimal: minimal, idempotency: idempotency)
    }
    if let replay = applied.replay { return Self.replayed(replay) }
    let changed = applied.version
    var response = Self.json(200, applied.takeAnswer(), etag: changed)
    Self.addChangeHeaders(to: &response.headers, minimal: minimal)
    return response
  }

  /// `GET .../recording`: NDJSON, the state at the oldest kept version and every later entry;
  /// sensitive params redacted unless the backend asks `?redact=false`.
  func getRecording(_ request: HTTPRequest, key: SessionID?) throws(APIProblem) -> HTTPResponse {
    let (record, caller) = try authorizeCaller(key, request)
    if caller.follows {
      throw APIProblem(EngineRefusal.readOnly(what: "a recording"))
    }
    var redacted = true
    if let flag = request.queryItem("redact") {
      guard flag == "true" || flag == "false" else {
        throw APIProblem(
          status: 400, code: "invalid_query", title: "Invalid query",
          detail: "'redact' must be true or false")
      }
      redacted = flag == "true"
    }
    if !redacted, caller != .backend {
      throw APIProblem(EngineRefusal.backendOnly(what: "a recording with sensitive params shown"))
    }
    let recording = try engine { () throws(EngineRefusal) in try store.recording(of: record) }
    var body: [UInt8] = []
    for line in recording.lines {
      guard redacted, recording.graph.hasSensitiveParams else {
        body += line
        body.append(UInt8(ascii: "\n"))
        continue
      }
      // Deep enough for any tree a session holds (two levels a coordinator); a line that could
      // not be read is written as null rather than sent unredacted.
      if let value = try? JSONParser.parse(line, maxDepth: 4096) {
        var writer = JSONWriter(capacity: line.count + 64)
        writer.value(Redaction.redact(value, in: recording.graph))
        body += writer.bytes
      } else {
        body += Array("null".utf8)
      }
      body.append(UInt8(ascii: "\n"))
    }
    return HTTPResponse(
      status: 200, headers: HTTPHeaders([("Content-Type", "application/x-ndjson")]), body: body)
  }

  /// `?at=V`: a version of the session, a positive integer (400 `invalid_version` otherwise).
  static func version(_ text: String) throws(APIProblem) -> Int {
    guard let version = Int(text), version >= 1 else {
      throw APIProblem(EngineRefusal.invalidVersion(current: 0)).withDetail(
        "'at' must be a version of the session, an integer from 1")
    }
    return version
  }

  /// A whole-number query parameter from `min` to `max`, `fallback` when absent.
  static func naturalQuery(
    _ request: HTTPRequest, _ name: String, default fallback: Int, max: Int, min: Int = 0
  ) throws(APIProblem) -> Int {
    guard let text = request.queryItem(name) else { return fallback }
    guard let value = Int(text), value >= min, value <= max else {
      throw APIProblem(
        status: 400, code: "invalid_query", title: "Invalid query",
        detail: "'\(name)' must be an integer from \(min) to \(max)")
    }
    return value
  }
}

extension APIProblem {
  static func invalidRestore(_ detail: String) -> APIProblem {
    APIProblem(status: 400, code: "invalid_request", title: "Invalid request", detail: detail)
  }

  /// The same problem, worded for where it was found.
  func withDetail(_ detail: String) -> APIProblem {
    var problem = self
    problem.detail = detail
    return problem
  }
}
