import NavStateTestSupport
import XCTest

@testable import MicroHTTPServer

/// Streams leave libmicrohttpd once their head is sent (see HTTPStream): what that changes.
final class StreamHandOverTests: XCTestCase {
  func testStreamLeavesLibmicrohttpdAndLogsNothingDoingSo() throws {
    let probe = StreamProbe()
    let log = LogCollector()
    let server = try startTestServer(probe: probe) { $0.errorLog = { log.append($0.text) } }
    defer { server.shutdown(gracePeriodSeconds: 1) }
    let client = try RawHTTPClient(port: server.port)
    try client.send("GET /stream HTTP/1.1\r\nHost: test\r\n\r\n")
    let stream = try XCTUnwrap(probe.firstStream())
    XCTAssertTrue(stream.write(Array("first\n".utf8)))
    XCTAssertEqual(try client.readHead().status, 200)
    XCTAssertEqual(try client.readChunk(), Array("first\n".utf8))

    // Nothing left to send: the socket is taken over, and libmicrohttpd frees its connection.
    XCTAssertTrue(eventually { server.context.streams.inLibraryCount == 0 })
    XCTAssertEqual(server.openStreamCount, 1)
    // Still one connection in the count: the stream holds its place.
    XCTAssertEqual(server.context.connections.count, 1)
    // Written straight to the socket now, each write a chunk.
    XCTAssertTrue(stream.write(Array("second\n".utf8)))
    XCTAssertTrue(stream.write(Array("third\n".utf8)))
    var received: [UInt8] = []
    while received.count < 13, let chunk = try client.readChunk() { received += chunk }
    XCTAssertEqual(String(decoding: received, as: UTF8.self), "second\nthird\n")
    // libmicrohttpd ended its side on the stand-in socket (the send of its last chunk failed,
    // which it logs, and the server drops): nothing reached the log.
    sleepSeconds(0.3)
    XCTAssertTrue(log.messages.isEmpty, "libmicrohttpd's log: \(log.messages)")

    // The client leaves: seen at once, not at the next write or a sweep a second later.
    client.close()
    XCTAssertTrue(eventually(timeout: 0.5) { probe.closes == 1 })
    XCTAssertTrue(stream.isClosed)
    XCTAssertEqual(server.openStreamCount, 0)
    XCTAssertTrue(eventually { server.context.connections.count == 0 })
  }

  func testHandedOverStreamsCountAgainstTheConnectionCaps() throws {
    let probe = StreamProbe()
    let log = LogCollector()
    let server = try startTestServer(probe: probe) {
      $0.connectionsPerIP = 2
      $0.errorLog = { log.append($0.text) }
    }
    defer { server.shutdown(gracePeriodSeconds: 1) }
    let streaming = try RawHTTPClient(port: server.port)
    try streaming.send("GET /stream HTTP/1.1\r\nHost: test\r\n\r\n")
    let stream = try XCTUnwrap(probe.firstStream())
    XCTAssertTrue(stream.write(Array("hello\n".utf8)))
    _ = try streaming.readHead()
    XCTAssertEqual(try streaming.readChunk(), Array("hello\n".utf8))
    XCTAssertTrue(eventually { server.context.streams.inLibraryCount == 0 })

    // libmicrohttpd no longer counts the stream's connection; the server still does.
    let other = try RawHTTPClient(port: server.port)
    try other.send("GET /hello HTTP/1.1\r\nHost: test\r\n\r\n")
    XCTAssertEqual(try other.readResponse().status, 200)
    let third = try RawHTTPClient(port: server.port)
    try? third.send("GET /hello HTTP/1.1\r\nHost: test\r\n\r\n")
    XCTAssertThrowsError(try third.readResponse())
    XCTAssertTrue(
      eventually { log.messages.contains { $0.contains("the per-address limit") } },
      "log: \(log.messages)")

    // The stream ends with its client: its place is free again.
    streaming.close()
    XCTAssertTrue(eventually { probe.closes == 1 })
    XCTAssertTrue(
      eventually(timeout: 2) { (try? get("/hello", port: server.port).status) == 200 })
  }

  func testFinishedStreamsConnectionServesTheNextRequest() throws {
    let probe = StreamProbe()
    let server = try startTestServer(probe: probe)
    defer { server.shutdown(gracePeriodSeconds: 1) }
    let client = try RawHTTPClient(port: server.port)
    try client.send("GET /stream HTTP/1.1\r\nHost: test\r\n\r\n")
    let stream = try XCTUnwrap(probe.firstStream())
    _ = try client.readHead()
    XCTAssertTrue(eventually { server.context.streams.inLibraryCount == 0 })
    XCTAssertTrue(stream.write(Array("last\n".utf8)))
    stream.finish()
    XCTAssertEqual(try client.readChunk(), Array("last\n".utf8))
    XCTAssertNil(try client.readChunk())
    XCTAssertTrue(eventually { probe.closes == 1 && server.openStreamCount == 0 })
    for _ in 0..<3 {
      try client.send("GET /hello HTTP/1.1\r\nHost: test\r\n\r\n")
      XCTAssertEqual(try client.readResponse().text, "hello")
    }

    // Asked to close: the last chunk, then the connection closes.
    let closing = try RawHTTPClient(port: server.port)
    try closing.send("GET /stream HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n")
    XCTAssertTrue(eventually { probe.count == 2 })
    let second = probe.all[1]
    _ = try closing.readHead()
    XCTAssertTrue(eventually { server.context.streams.inLibraryCount == 0 })
    second.finish()
    XCTAssertNil(try closing.readChunk())
    XCTAssertTrue(closing.waitForClose(timeout: 2))
  }

  func testHTTP10StreamStaysInLibmicrohttpd() throws {
    let probe = StreamProbe()
    let server = try startTestServer(probe: probe)
    defer { server.shutdown(gracePeriodSeconds: 1) }
    let client = try RawHTTPClient(port: server.port)
    try client.send("GET /stream HTTP/1.0\r\nHost: test\r\n\r\n")
    let stream = try XCTUnwrap(probe.firstStream())
    XCTAssertTrue(stream.write(Array("one\n".utf8)))
    let head = try client.readHead()
    XCTAssertNil(head.header("Transfer-Encoding"))
    sleepSeconds(0.3)
    XCTAssertEqual(server.context.streams.inLibraryCount, 1)
    XCTAssertTrue(stream.write(Array("two\n".utf8)))
    stream.finish()
    XCTAssertTrue(client.waitForClose(timeout: 2))
    XCTAssertTrue(eventually { probe.closes == 1 })
  }
}
