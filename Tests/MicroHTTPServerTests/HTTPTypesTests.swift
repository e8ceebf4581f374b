import XCTest

@testable import MicroHTTPServer

final class HTTPTypesTests: XCTestCase {
  func testHeadersLookupIgnoresCaseAndKeepsOrder() {
    var headers = HTTPHeaders([("Content-Type", "text/plain")])
    headers.add("X-Tag", "a")
    headers.add("x-tag", "b")
    XCTAssertEqual(headers["content-type"], "text/plain")
    XCTAssertEqual(headers["X-TAG"], "a")
    XCTAssertEqual(headers.values("x-Tag"), ["a", "b"])
    XCTAssertNil(headers["X-Ta"])
    XCTAssertEqual(headers.pairs.map(\.0), ["Content-Type", "X-Tag", "x-tag"])
  }

  func testLogMessagesAreSortedByWhoseDoingTheyWere() {
    // Wordings libmicrohttpd 0.9.75 writes when a client goes away or a limit refuses one.
    let gone = [
      "Failed to send the footers for the request for `/x'. Error: The socket is no longer available for sending",
      "Failed to receive data: Connection reset by peer",
      "Failed to send data in request for `/x'. Error: Broken pipe",
    ]
    for text in gone { XCTAssertEqual(ServerLogMessage(text: text).kind, .clientGone, text) }
    XCTAssertEqual(
      ServerLogMessage(text: "Server reached connection limit. Closing inbound connection.").kind,
      .connectionRefused)
    XCTAssertEqual(ServerLogMessage(text: "Failed to create a thread: EAGAIN").kind, .other)
  }

  func testQueryItemsArePercentDecoded() {
    let request = HTTPRequest(
      method: "GET", path: "/a%20b", query: "q=caf%C3%A9+au+lait&flag&empty=&x=%zz&q=second",
      headers: .init(), body: [], remoteAddress: "127.0.0.1")
    XCTAssertEqual(request.queryItem("q"), "café au lait")
    XCTAssertEqual(request.queryItem("flag"), "")
    XCTAssertEqual(request.queryItem("empty"), "")
    XCTAssertEqual(request.queryItem("x"), "%zz")
    XCTAssertNil(request.queryItem("missing"))
    XCTAssertEqual(request.path, "/a%20b")
  }

  func testTargetSplitsAtFirstQuestionMark() {
    XCTAssertEqual(HTTPRequest.split(target: "/a/b?x=1?y").path, "/a/b")
    XCTAssertEqual(HTTPRequest.split(target: "/a/b?x=1?y").query, "x=1?y")
    XCTAssertNil(HTTPRequest.split(target: "/a").query)
    XCTAssertEqual(HTTPRequest.split(target: "/a?").query, "")
  }

  func testProblemDocument() {
    let response = HTTPResponse.problem(
      status: 409, code: "version_conflict", title: "Conflict", detail: "say \"hi\"\n",
      extra: [("version", "3")])
    XCTAssertEqual(response.status, 409)
    XCTAssertEqual(response.headers["Content-Type"], "application/problem+json")
    guard case .bytes(let body) = response.body else { return XCTFail("expected bytes") }
    XCTAssertEqual(
      String(decoding: body, as: UTF8.self),
      #"{"type":"https://navstate.dev/problems/version_conflict","title":"Conflict","status":409,"#
        + #""detail":"say \"hi\"\n","code":"version_conflict","version":3}"#)
  }

  func testJSONStringEscapesControlCharacters() {
    var out = ""
    JSONText.appendString("a\u{01}b\\", to: &out)
    XCTAssertEqual(out, #""a\u0001b\\""#)
  }

  func testFramingAcceptsPlainLengthsAndChunked() {
    XCTAssertEqual(
      RequestFraming.decide(contentLengths: [], transferEncodings: [], maxBodyBytes: 10),
      .readBody(expectedLength: 0))
    XCTAssertEqual(
      RequestFraming.decide(contentLengths: ["10"], transferEncodings: [], maxBodyBytes: 10),
      .readBody(expectedLength: 10))
    XCTAssertEqual(
      RequestFraming.decide(contentLengths: [], transferEncodings: ["Chunked"], maxBodyBytes: 10),
      .readBody(expectedLength: nil))
    // Spaces and tabs around the number are not part of it.
    XCTAssertEqual(
      RequestFraming.decide(contentLengths: [" \t07 "], transferEncodings: [], maxBodyBytes: 10),
      .readBody(expectedLength: 7))
  }

  func testFramingRejectsAmbiguousOrOversizeBodies() {
    func code(_ lengths: [String], _ encodings: [String] = []) -> String? {
      if case .reject(_, let code, _) = RequestFraming.decide(
        contentLengths: lengths, transferEncodings: encodings, maxBodyBytes: 10)
      {
        return code
      }
      return nil
    }
    XCTAssertEqual(code(["11"]), "payload_too_large")
    XCTAssertEqual(code(["99999999999999999999999"]), "payload_too_large")
    XCTAssertEqual(code(["5", "5"]), "bad_content_length")
    XCTAssertEqual(code(["5", "6"]), "bad_content_length")
    XCTAssertEqual(code(["5, 5"]), "bad_content_length")
    XCTAssertEqual(code(["+5"]), "bad_content_length")
    XCTAssertEqual(code(["0x5"]), "bad_content_length")
    XCTAssertEqual(code([""]), "bad_content_length")
    XCTAssertEqual(code([" \t "]), "bad_content_length")
    XCTAssertEqual(code(["-1"]), "bad_content_length")
    XCTAssertEqual(code(["1 2"]), "bad_content_length")
    XCTAssertEqual(code(["٣"]), "bad_content_length")
    XCTAssertEqual(code(["5"], ["chunked"]), "bad_content_length")
    XCTAssertEqual(code([], ["gzip, chunked"]), "unsupported_transfer_encoding")
    XCTAssertEqual(code([], ["chunked", "chunked"]), "unsupported_transfer_encoding")
  }

  func testConfigurationDefaults() {
    let configuration = HTTPServerConfiguration()
    XCTAssertGreaterThanOrEqual(configuration.connectionLimit, 1024)
    XCTAssertEqual(configuration.connectionsPerIP, 0)
    XCTAssertGreaterThan(configuration.connectionTimeoutSeconds, 0)
    XCTAssertGreaterThanOrEqual(configuration.threads, 1)
  }

  func testInvalidConfigurationIsRejected() {
    var configuration = HTTPServerConfiguration()
    configuration.port = 0
    configuration.maxBodyBytes = -1
    XCTAssertThrowsError(
      try HTTPServer(configuration: configuration, handler: Router())
    ) { error in
      guard case .invalidConfiguration = error as? HTTPServerError else {
        return XCTFail("unexpected \(error)")
      }
    }
  }
}
