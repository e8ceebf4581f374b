import Logging
import MicroHTTPServer
import NavJSON
import NavStateEngine
import NavigationCore

/// HTTP details shared by the handlers: bodies, versions, preconditions.
extension NavStateService {

  /// The session a call names, if the request's `Authorization: Bearer` token is its token
  /// (read and compared where it lies in the header, without a copy). A missing token is 401; a
  /// malformed one 401; a wrong token and an unknown session the same 404.
  /// A share's token is refused here (403 `read_only`): what a share may call asks
  /// ``authorizeCaller(_:_:)`` and answers as the share sees it.
  func authorize(_ key: SessionID?, _ request: HTTPRequest) throws(APIProblem) -> SessionRecord {
    let (record, caller) = try authorizeCaller(key, request)
    guard caller.share == nil else {
      throw APIProblem(EngineRefusal.readOnly(what: "\(request.method) \(request.path)"))
    }
    return record
  }

  /// ``authorize(_:_:)``, saying who called: the session's token holder or the backend.
  func authorizeCaller(_ key: SessionID?, _ request: HTTPRequest) throws(APIProblem)
    -> (record: SessionRecord, caller: Caller)
  {
    let result = request.headers.withFirstValue("authorization") { header in
      Result { () throws(EngineRefusal) in
        try store.authorizeCaller(key: key, token: header.flatMap(BearerToken.token(in:)))
      }
    }
    return try engine { () throws(EngineRefusal) in try result.get() }
  }

  /// `If-Match: "<version>"` (or `*`): apply only at that version; nil without the header. A
  /// percent-encoded value (`%221%22`, which some generated clients send) is read as its decoded
  /// form. A tag that is no version this server issues matches none.
  static func precondition(_ request: HTTPRequest) -> VersionPrecondition? {
    guard let raw = request.headers["if-match"] else { return nil }
    let header = raw.contains("%") ? (percentDecoded(raw) ?? raw) : raw
    var matchesAny = false
    var versions: [Int] = []
    for tag in header.split(separator: ",") {
      var text = tag.trimmingWhitespace()
      if text.hasPrefix("W/") { text = text.dropFirst(2) }
      if text == "*" { matchesAny = true }
      guard text.count >= 3, text.first == "\"", text.last == "\"",
        let version = Int(text.dropFirst().dropLast()), etag(version) == text
      else { continue }
      versions.append(version)
    }
    return VersionPrecondition(matchesAny: matchesAny, versions: versions, text: header)
  }

  /// `"12"`, built from digits straight into the string (interpolation goes through generic
  /// printing; a version has at most 19 digits, so this is a small string, not an allocation).
  static func etag(_ version: Int) -> String {
    var digits = 1
    var rest = max(0, version)
    while rest >= 10 {
      rest /= 10
      digits += 1
    }
    return String(unsafeUninitializedCapacity: digits + 2) { buffer in
      buffer[0] = UInt8(ascii: "\"")
      var remaining = max(0, version)
      for position in stride(from: digits, through: 1, by: -1) {
        buffer[position] = UInt8(ascii: "0") + UInt8(remaining % 10)
        remaining /= 10
      }
      buffer[digits + 1] = UInt8(ascii: "\"")
      return digits + 2
    }
  }

  static func json(_ status: Int, _ body: [UInt8], etag version: Int? = nil) -> HTTPResponse {
    HTTPResponse(status: status, headers: jsonHeaders(etag: version), body: body)
  }

  /// What `writer` wrote as the body, sent from its buffer without a copy.
  static func json(_ status: Int, _ writer: consuming JSONWriter, etag version: Int? = nil)
    -> HTTPResponse
  {
    HTTPResponse(status: status, headers: jsonHeaders(etag: version), body: BodyBuffer(writer))
  }

  /// A body already handed over as a buffer (the state, encoded under its session's lock).
  static func json(_ status: Int, _ body: BodyBuffer, etag version: Int? = nil) -> HTTPResponse {
    HTTPResponse(status: status, headers: jsonHeaders(etag: version), body: body)
  }

  private static func jsonHeaders(etag version: Int?) -> HTTPHeaders {
    if let version {
      HTTPHeaders([("Content-Type", "application/json"), ("ETag", etag(version))])
    } else {
      HTTPHeaders([("Content-Type", "application/json")])
    }
  }

  /// Refuses a body that is not declared JSON (415), with or without a Content-Type: a form
  /// another site posts from a browser comes without a preflight, and must not be read as a
  /// command.
  static func requireJSONMediaType(_ request: HTTPRequest) throws(APIProblem) {
    // Read in place: a String is made only to word a refusal.
    let isJSON = request.headers.withFirstValue("content-type") { $0.map(isJSONMediaType) }
    guard isJSON != true else { return }
    let type = request.headers["content-type"]
    throw APIProblem(
      status: 415, code: "unsupported_media_type", title: "Unsupported media type",
      detail: type.map { "send the body as application/json, not \(quoted($0))" }
        ?? "send the body with Content-Type: application/json",
      headers: [("Accept", "application/json")])
  }

  /// The body as JSON, or nil when there is none; not declared JSON is 415 (see
  /// ``requireJSONMediaType(_:)``), malformed JSON is 400.
  static func jsonBody(_ request: HTTPRequest) throws(APIProblem) -> JSONValue? {
    guard !request.body.isEmpty else { return nil }
    try requireJSONMediaType(request)
    do {
      return try JSONParser.parse(request.body)
    } catch {
      throw APIProblem(
        status: 400, code: "malformed_json", title: "Malformed JSON", detail: "\(error)")
    }
  }
}

/// Whether a Content-Type names JSON: `application/json` or any `+json` type, in any case, with
/// or without parameters (`; charset=utf-8`). Read on bytes: it runs for every command.
func isJSONMediaType(_ contentType: String) -> Bool {
  var contentType = contentType
  return contentType.withUTF8 { isJSONMediaType($0) }
}

func isJSONMediaType(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
  func isBlank(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
  var end = bytes.firstIndex(of: UInt8(ascii: ";")) ?? bytes.count
  var start = 0
  while start < end && isBlank(bytes[start]) { start += 1 }
  while end > start && isBlank(bytes[end - 1]) { end -= 1 }
  // Constants from here: a nested function that captured the variables would check exclusive
  // access to them on every read.
  let type = UnsafeBufferPointer(rebasing: bytes[start..<end])
  return (type.count == 16 && type.hasSuffixIgnoringASCIICase("application/json"))
    || type.hasSuffixIgnoringASCIICase("+json")
}

extension UnsafeBufferPointer<UInt8> {
  /// Whether the bytes end with `suffix` (lower-case ASCII), ignoring ASCII case.
  fileprivate func hasSuffixIgnoringASCIICase(_ suffix: StaticString) -> Bool {
    let length = suffix.utf8CodeUnitCount
    guard count >= length else { return false }
    let tail = count - length
    for offset in 0..<length {
      var byte = self[tail + offset]
      if byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") { byte |= 0x20 }
      guard byte == suffix.utf8Start[offset] else { return false }
    }
    return true
  }
}

extension Substring {
  func trimmingWhitespace() -> Substring {
    var text = self
    while text.first == " " || text.first == "\t" { text = text.dropFirst() }
    while text.last == " " || text.last == "\t" { text = text.dropLast() }
    return text
  }
}
