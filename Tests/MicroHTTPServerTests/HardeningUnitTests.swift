import XCTest

@testable import MicroHTTPServer

/// The pure parts of the hardening: the header-block audit, the deadline state machine and the
/// log throttle. Their behaviour on real sockets is tested by Tests/adversarial.
final class HardeningUnitTests: XCTestCase {
  /// A header block as libmicrohttpd leaves it after parsing: every CR, LF, the spaces of the
  /// request line and each field's colon overwritten with NUL.
  struct ParsedBlock {
    var bytes: [UInt8]
    var method: HeaderBlockAudit.Span
    var target: HeaderBlockAudit.Span
    var targetText: String
    var version: HeaderBlockAudit.Span
    var fields: [HeaderBlockAudit.Field]

    /// Builds the block for a well-formed request; the tests then break it the way a client can.
    init(method: String = "GET", target: String = "/x?a=1", fields: [(String, String)]) {
      var bytes: [UInt8] = []
      func append(_ text: String) -> HeaderBlockAudit.Span {
        let span = HeaderBlockAudit.Span(offset: bytes.count, length: text.utf8.count)
        bytes += Array(text.utf8)
        return span
      }
      self.method = append(method)
      bytes.append(0)
      self.target = append(target)
      self.targetText = target
      bytes.append(0)
      self.version = append("HTTP/1.1")
      bytes += [0, 0]
      self.fields = []
      for (name, value) in fields {
        let nameSpan = append(name)
        bytes += [0, 0x20]
        let valueSpan = append(value)
        bytes += [0, 0]
        self.fields.append(.init(name: nameSpan, value: valueSpan))
      }
      bytes += [0, 0]
      self.bytes = bytes
    }

    var problem: String? {
      bytes.withUnsafeBytes { block in
        HeaderBlockAudit.problem(
          in: block, method: method, target: target, targetText: targetText, version: version,
          fields: fields)
      }
    }
  }

  func testAWellFormedBlockPasses() {
    XCTAssertNil(ParsedBlock(fields: [("Host", "x"), ("Accept", "*/*"), ("X-Empty", "")]).problem)
    XCTAssertNil(ParsedBlock(fields: []).problem)
    XCTAssertNil(ParsedBlock(fields: [("Host", "x"), ("X-Tab", "a\tb"), ("X-UTF8", "é")]).problem)
  }

  func testWhitespaceBeforeTheColonIsRefused() {
    // libmicrohttpd keeps "Content-Length " as a field name of its own.
    XCTAssertNotNil(ParsedBlock(fields: [("Host", "x"), ("Content-Length ", "5")]).problem)
  }

  func testNulAndControlBytesInAValueAreRefused() {
    var block = ParsedBlock(fields: [("Host", "x"), ("Authorization", "Bearer t")])
    // "Bearer t\0junk": MHD's length stops at the NUL, so "junk" sits where the CRLF should be.
    block.bytes.insert(contentsOf: Array("junk".utf8), at: block.fields[1].value.offset + 8 + 1)
    XCTAssertNotNil(block.problem)
    XCTAssertNotNil(ParsedBlock(fields: [("Host", "x"), ("X-Bell", "a\u{07}b")]).problem)
  }

  func testAFoldedOrBareLFLineIsRefused() {
    // After obs-fold the next field does not start right after the previous line's CRLF.
    var folded = ParsedBlock(fields: [("Host", "x"), ("X-A", "a"), ("Accept", "*/*")])
    folded.bytes.insert(contentsOf: Array(" b".utf8) + [0, 0], at: folded.fields[2].name.offset)
    folded.fields[2].name.offset += 4
    folded.fields[2].value.offset += 4
    XCTAssertNotNil(folded.problem)
    // A bare LF leaves one NUL where CRLF leaves two.
    var bare = ParsedBlock(fields: [("Host", "x"), ("Accept", "*/*")])
    bare.bytes.remove(at: bare.fields[0].value.offset + 1)
    bare.fields[1].name.offset -= 1
    bare.fields[1].value.offset -= 1
    XCTAssertNotNil(bare.problem)
  }

  func testANulOrControlByteInTheTargetIsRefused() {
    // "/healthz\0/../v1": MHD's C string stops at the NUL, short of the version.
    var block = ParsedBlock(target: "/healthz", fields: [("Host", "x")])
    block.bytes.insert(contentsOf: [0] + Array("/../v1".utf8), at: block.target.offset + 8)
    block.version.offset += 7
    block.fields[0].name.offset += 7
    block.fields[0].value.offset += 7
    XCTAssertNotNil(block.problem)
    XCTAssertNotNil(ParsedBlock(target: "/a\u{01}b", fields: [("Host", "x")]).problem)
    XCTAssertNotNil(ParsedBlock(target: "/a b", fields: [("Host", "x")]).problem)
  }

  /// Values and targets are checked eight bytes at a time where they can be: for random bytes
  /// at random places the verdict is the byte-by-byte one.
  func testWordAtATimeChecksAgreeWithTheBytePredicates() {
    var generator = SystemRandomNumberGenerator()
    let interesting: [UInt8] = [
      0x00, 0x01, 0x09, 0x0A, 0x0D, 0x1F, 0x20, 0x21, 0x7E, 0x7F, 0x80, 0xFF,
    ]
    func randomBytes(_ count: Int) -> [UInt8] {
      (0..<count).map { _ in
        Int.random(in: 0..<4, using: &generator) == 0
          ? interesting.randomElement(using: &generator)!
          : UInt8.random(in: 0x21...0x7E, using: &generator)
      }
    }
    for _ in 0..<5_000 {
      let value = randomBytes(Int.random(in: 0...40, using: &generator))
      var block = ParsedBlock(
        fields: [("Host", "x"), ("X-V", String(repeating: "a", count: value.count))])
      block.bytes.replaceSubrange(
        block.fields[1].value.offset..<block.fields[1].value.offset + value.count, with: value)
      let clean = value.allSatisfy(HeaderBlockAudit.isFieldValueByte)
      XCTAssertEqual(block.problem == nil, clean, "\(value)")

      // Bytes from 0x80 up stand for UTF-8 (a stray one decodes to U+FFFD, also such bytes).
      let target =
        "/"
        + String(decoding: randomBytes(Int.random(in: 0...40, using: &generator)), as: UTF8.self)
      let targetClean = target.utf8.allSatisfy(HeaderBlockAudit.isTargetByte)
      XCTAssertEqual(
        ParsedBlock(target: target, fields: [("Host", "x")]).problem == nil, targetClean,
        target.debugDescription)
    }
    // Each test the audit makes of a word, against the bytes: below a space (values), below
    // "!" (targets), and DEL (the word XORed with 0x7F, then a byte below 1).
    for _ in 0..<20_000 {
      let bytes = randomBytes(8)
      let word = bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
      XCTAssertEqual(
        HeaderBlockAudit.hasByte(in: word, below: 0x2020_2020_2020_2020),
        bytes.contains { $0 < 0x20 })
      XCTAssertEqual(
        HeaderBlockAudit.hasByte(in: word, below: 0x2121_2121_2121_2121),
        bytes.contains { $0 < 0x21 })
      XCTAssertEqual(
        HeaderBlockAudit.hasByte(
          in: word ^ 0x7F7F_7F7F_7F7F_7F7F, below: 0x0101_0101_0101_0101),
        bytes.contains(0x7F))
    }
  }

  /// Methods are read from the C string MHD hands over: the common ones as literals, anything
  /// else (a longer or shorter word, another case) as it was sent.
  func testMethodNamesAreReadExactly() {
    let cases = [
      "GET", "POST", "PUT", "PATCH", "HEAD", "DELETE", "OPTIONS", "GETS", "GE", "PUTS", "P", "get",
      "PROPFIND", "DELETED", "O", "",
    ]
    for method in cases {
      XCTAssertEqual(method.withCString { Exchange.methodName($0) }, method)
    }
  }

  func testTheDeadlineSweeperAndTheWorkerNeverBothWin() {
    let state = ConnectionState(descriptor: -1, deadline: 1000)
    XCTAssertNil(state.expire(now: 999))
    XCTAssertEqual(state.expire(now: 1000), .awaitingRequest)
    XCTAssertEqual(state.phase, .timedOut)
    // No request had begun: it is closed without a 408 (which the client would read as the
    // answer to the request it sends next).
    XCTAssertFalse(ConnectionState.Phase.awaitingRequest.hasRequest)
    XCTAssertFalse(ConnectionState.Phase.idle.hasRequest)
    XCTAssertTrue(ConnectionState.Phase.awaitingHeaders.hasRequest)
    // The worker, arriving late, is told to drop the connection.
    XCTAssertFalse(state.advance(to: .readingBody, deadline: 5000))

    let busy = ConnectionState(descriptor: -1, deadline: 1000)
    XCTAssertTrue(busy.advance(to: .processing, deadline: 0))
    // A handler or a stream may take as long as it likes.
    XCTAssertNil(busy.expire(now: 1_000_000))
    // Kept alive: the next request line restarts the header deadline.
    XCTAssertTrue(busy.advance(to: .idle, deadline: 70_000))
    busy.requestLineArrived(now: 2000, headerTimeout: 10_000)
    XCTAssertEqual(busy.phase, .awaitingHeaders)
    XCTAssertNil(busy.expire(now: 11_999))
    XCTAssertEqual(busy.expire(now: 12_000), .awaitingHeaders)
  }

  func testTheBodyDeadlineGrowsWithItsDeclaredLength() {
    let timing = RequestDeadlines(headers: 10_000, minimumBodyBytesPerSecond: 4096, idle: 60_000)
    XCTAssertEqual(timing.body(expectedLength: 0), 10_000)
    XCTAssertEqual(timing.body(expectedLength: 4096), 11_000)
    XCTAssertEqual(timing.body(expectedLength: 65_536), 26_000)
  }

  func testTheLogThrottleWritesOneLinePerKindPerIntervalAndCountsTheRest() {
    let throttle = LogThrottle<String>(intervalSeconds: 10)
    XCTAssertTrue(throttle.admit("refused", now: 0).write)
    for second in 1...999 {
      XCTAssertFalse(throttle.admit("refused", now: Double(second) / 100).write)
    }
    // Another kind has its own interval.
    XCTAssertTrue(throttle.admit("other", now: 5).write)
    XCTAssertTrue(throttle.expired(now: 9.9).isEmpty)
    let next = throttle.admit("refused", now: 10)
    XCTAssertTrue(next.write)
    XCTAssertEqual(next.suppressedBefore, 999)
    _ = throttle.admit("refused", now: 11)
    let flushed = throttle.expired(now: 20)
    XCTAssertEqual(flushed.map(\.kind), ["refused"])
    XCTAssertEqual(flushed.map(\.suppressed), [1])
  }

  func testHostNamesAreComparedWithoutPortAndCase() {
    XCTAssertEqual(HostName.normalized("NavState.Example:8080"), "navstate.example")
    XCTAssertEqual(HostName.normalized("[::1]:8080"), "[::1]")
    XCTAssertEqual(HostName.normalized("localhost"), "localhost")
  }
}
