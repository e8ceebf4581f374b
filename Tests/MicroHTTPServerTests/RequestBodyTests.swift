import NavStateTestSupport
import XCTest

@testable import MicroHTTPServer

/// Request body framing, size limits and assembly.
final class RequestBodyTests: XCTestCase {
  func testContentLengthOverCapIsRefusedBeforeTheBodyIsSent() throws {
    let server = try startTestServer { $0.maxBodyBytes = 1024 }
    defer { server.shutdown(gracePeriodSeconds: 1) }
    let client = try RawHTTPClient(port: server.port)
    // Headers only: the answer must come without a single body byte being sent.
    try client.send("POST /echo HTTP/1.1\r\nHost: test\r\nContent-Length: 100000\r\n\r\n")
    let response = try client.readResponse()
    XCTAssertEqual(response.status, 413)
    XCTAssertTrue(response.text.contains(#""code":"payload_too_large""#))
    XCTAssertEqual(response.header("Connection")?.lowercased(), "close")
  }

  func testChunkedBodyOverCapIsRefused() throws {
    let server = try startTestServer { $0.maxBodyBytes = 1024 }
    defer { server.shutdown(gracePeriodSeconds: 1) }
    let client = try RawHTTPClient(port: server.port)
    try client.send("POST /echo HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: chunked\r\n\r\n")
    let chunk = String(repeating: "x", count: 600)
    for _ in 0..<3 {
      try client.send("258\r\n\(chunk)\r\n")  // 0x258 = 600
    }
    try client.send("0\r\n\r\n")
    let response = try client.readResponse()
    XCTAssertEqual(response.status, 413)
    XCTAssertTrue(response.text.contains(#""code":"payload_too_large""#))
  }

  func testChunkedBodyInManySmallPiecesIsAssembled() throws {
    let server = try startTestServer()
    defer { server.shutdown(gracePeriodSeconds: 1) }
    let client = try RawHTTPClient(port: server.port)
    try client.send("POST /echo HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: chunked\r\n\r\n")
    var expected = ""
    for index in 0..<40 {
      let piece = "p\(index % 10)-"
      expected += piece
      try client.send(String(piece.utf8.count, radix: 16) + "\r\n" + piece + "\r\n")
      if index % 8 == 0 { sleepSeconds(0.01) }
    }
    try client.send("0\r\n\r\n")
    let response = try client.readResponse()
    XCTAssertEqual(response.status, 200)
    XCTAssertEqual(response.text, expected)
  }

  func testContentLengthBodySentInPiecesIsAssembled() throws {
    let server = try startTestServer()
    defer { server.shutdown(gracePeriodSeconds: 1) }
    let client = try RawHTTPClient(port: server.port)
    let body = (0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
    try client.send("POST /echo HTTP/1.1\r\nHost: test\r\nContent-Length: \(body.count)\r\n\r\n")
    var offset = 0
    while offset < body.count {
      let end = min(offset + 1100, body.count)
      try client.send(Array(body[offset..<end]))
      offset = end
      sleepSeconds(0.03)
    }
    let response = try client.readResponse()
    XCTAssertEqual(response.status, 200)
    XCTAssertEqual(response.header("X-Body-Length"), "5000")
    XCTAssertEqual(response.body, body)
  }

  func testDuplicateContentLengthIsBadRequest() throws {
    let response = try sendFraming("Content-Length: 3\r\nContent-Length: 3\r\n")
    XCTAssertEqual(response.status, 400)
    XCTAssertTrue(response.text.contains(#""code":"bad_content_length""#))
  }

  func testConflictingContentLengthIsBadRequest() throws {
    let response = try sendFraming("Content-Length: 3\r\nContent-Length: 30\r\n")
    XCTAssertEqual(response.status, 400)
    XCTAssertTrue(response.text.contains(#""code":"bad_content_length""#))
  }

  func testNonNumericContentLengthIsBadRequest() throws {
    // libmicrohttpd itself refuses this one before the handler runs; either way it is a 400.
    XCTAssertEqual(try sendFraming("Content-Length: 3x\r\n").status, 400)
    XCTAssertEqual(try sendFraming("Content-Length: -3\r\n").status, 400)
  }

  func testContentLengthWithTransferEncodingIsBadRequest() throws {
    let response = try sendFraming("Content-Length: 3\r\nTransfer-Encoding: chunked\r\n")
    XCTAssertEqual(response.status, 400)
    XCTAssertTrue(response.text.contains(#""code":"bad_content_length""#))
  }

  private func sendFraming(_ headers: String) throws -> RawHTTPClient.Response {
    let server = try startTestServer()
    defer { server.shutdown(gracePeriodSeconds: 1) }
    let client = try RawHTTPClient(port: server.port)
    try client.send("POST /echo HTTP/1.1\r\nHost: test\r\n\(headers)\r\nabc")
    return try client.readResponse()
  }
}
