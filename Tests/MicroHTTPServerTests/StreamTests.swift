import Dispatch
import NavStateTestSupport
import XCTest

@testable import MicroHTTPServer

/// Streaming responses: suspension while idle, disconnects, shutdown.
final class StreamTests: XCTestCase {
  func testStreamDeliversPartsInOrderAndIdlesWithoutCPU() throws {
    let probe = StreamProbe()
    let server = try startTestServer(probe: probe)
    defer { server.shutdown(gracePeriodSeconds: 1) }
    let client = try RawHTTPClient(port: server.port)
    try client.send("GET /stream HTTP/1.1\r\nHost: test\r\n\r\n")
    let stream = try XCTUnwrap(probe.firstStream())
    XCTAssertTrue(stream.write(Array("part one\n".utf8)))
    let head = try client.readHead()
    XCTAssertEqual(head.status, 200)
    XCTAssertEqual(head.header("Content-Type"), "text/event-stream")
    XCTAssertEqual(head.header("Transfer-Encoding")?.lowercased(), "chunked")
    XCTAssertEqual(try client.readChunk(), Array("part one\n".utf8))

    // Nothing to send for a while: the connection is suspended, not polled.
    sleepSeconds(0.3)
    let cpuBefore = processCPUSeconds()
    sleepSeconds(1)
    let cpuUsed = processCPUSeconds() - cpuBefore
    XCTAssertLessThan(cpuUsed, 0.2, "an idle stream must not keep a thread busy")
    XCTAssertEqual(server.openStreamCount, 1)

    XCTAssertTrue(stream.write(Array("part ".utf8)))
    XCTAssertTrue(stream.write(Array("two\n".utf8)))
    var received: [UInt8] = []
    while received.count < 9, let chunk = try client.readChunk() { received += chunk }
    XCTAssertEqual(String(decoding: received, as: UTF8.self), "part two\n")
    stream.finish()
    XCTAssertFalse(stream.write(Array("late".utf8)))
    XCTAssertNil(try client.readChunk())
    XCTAssertTrue(eventually { probe.closes == 1 && server.openStreamCount == 0 })

    // The connection is still usable afterwards (keep-alive after a chunked body).
    try client.send("GET /hello HTTP/1.1\r\nHost: test\r\n\r\n")
    XCTAssertEqual(try client.readResponse().text, "hello")
    XCTAssertEqual(probe.closes, 1)
  }

  func testClientDisconnectClosesStream() throws {
    let probe = StreamProbe()
    let server = try startTestServer(probe: probe)
    defer { server.shutdown(gracePeriodSeconds: 1) }
    let client = try RawHTTPClient(port: server.port)
    try client.send("GET /stream HTTP/1.1\r\nHost: test\r\n\r\n")
    let stream = try XCTUnwrap(probe.firstStream())
    XCTAssertTrue(stream.write(Array("hello\n".utf8)))
    _ = try client.readHead()
    XCTAssertEqual(try client.readChunk(), Array("hello\n".utf8))
    client.close()

    // A suspended connection cannot see the client leave; the next writes find out.
    let gone = eventually(timeout: 3) {
      let accepted = stream.write(Array("ping\n".utf8))
      if accepted { usleep(20_000) }
      return !accepted
    }
    XCTAssertTrue(gone, "write kept succeeding after the client left")
    XCTAssertTrue(stream.isClosed)
    XCTAssertTrue(eventually { probe.closes == 1 })
    XCTAssertEqual(server.openStreamCount, 0)
    XCTAssertFalse(stream.write(Array("more\n".utf8)))
    XCTAssertEqual(probe.closes, 1)
  }

  func testShutdownEndsOpenStreamQuickly() throws {
    let probe = StreamProbe()
    let server = try startTestServer(probe: probe)
    let client = try RawHTTPClient(port: server.port)
    try client.send("GET /stream HTTP/1.1\r\nHost: test\r\n\r\n")
    let stream = try XCTUnwrap(probe.firstStream())
    XCTAssertTrue(stream.write(Array("first\n".utf8)))
    _ = try client.readHead()
    XCTAssertEqual(try client.readChunk(), Array("first\n".utf8))

    let hookRan = HookFlag()
    server.onShutdown {
      hookRan.set()
      _ = stream.write(Array("bye\n".utf8))
    }
    let started = monotonicSeconds()
    server.shutdown(gracePeriodSeconds: 5)
    XCTAssertLessThan(monotonicSeconds() - started, 2)
    XCTAssertTrue(hookRan.isSet)

    // The client gets what the hook wrote, then a proper end of the body.
    XCTAssertEqual(try client.readChunk(), Array("bye\n".utf8))
    XCTAssertNil(try client.readChunk())
    XCTAssertEqual(probe.closes, 1)
    XCTAssertFalse(stream.write(Array("after\n".utf8)))
    XCTAssertEqual(server.openStreamCount, 0)
  }

  func testShutdownWithZeroGraceClosesIdleStream() throws {
    let probe = StreamProbe()
    let server = try startTestServer(probe: probe)
    let client = try RawHTTPClient(port: server.port)
    try client.send("GET /stream HTTP/1.1\r\nHost: test\r\n\r\n")
    _ = try XCTUnwrap(probe.firstStream())  // never written: suspended from its first read
    XCTAssertEqual(try client.readHead().status, 200)
    let started = monotonicSeconds()
    server.shutdown(gracePeriodSeconds: 0)
    XCTAssertLessThan(monotonicSeconds() - started, 1)
    XCTAssertTrue(client.waitForClose(timeout: 2))
    XCTAssertEqual(probe.closes, 1)
    XCTAssertEqual(server.openStreamCount, 0)
  }

  func testShutdownAbortsStreamThatCannotDrainInTime() throws {
    // The client reads nothing and 8 MiB wait to be sent: finishing cannot complete within the
    // grace period, so the stream is aborted and the connection closed.
    let probe = StreamProbe()
    let server = try startTestServer(probe: probe)
    let client = try RawHTTPClient(port: server.port, receiveBufferSize: 4096)
    try client.send("GET /stream?max=16777216 HTTP/1.1\r\nHost: test\r\n\r\n")
    let stream = try XCTUnwrap(probe.firstStream())
    XCTAssertTrue(stream.write([UInt8](repeating: 0x61, count: 8 << 20)))
    let started = monotonicSeconds()
    server.shutdown(gracePeriodSeconds: 0.3)
    let elapsed = monotonicSeconds() - started
    XCTAssertGreaterThan(elapsed, 0.25, "did not wait for the stream to drain")
    XCTAssertLessThan(elapsed, 2)
    XCTAssertEqual(probe.closes, 1)
    XCTAssertTrue(stream.isClosed)
    XCTAssertTrue(client.waitForClose(timeout: 3))
  }

  func testSlowConsumerOverflowClosesStream() throws {
    let probe = StreamProbe()
    let server = try startTestServer(probe: probe) { $0.connectionTimeoutSeconds = 1 }
    defer { server.shutdown(gracePeriodSeconds: 1) }
    let client = try RawHTTPClient(port: server.port, receiveBufferSize: 4096)
    try client.send("GET /stream?max=262144 HTTP/1.1\r\nHost: test\r\n\r\n")
    let stream = try XCTUnwrap(probe.firstStream())
    let piece = [UInt8](repeating: 0x62, count: 64 * 1024)
    var accepted = 0
    while accepted < 1000, stream.write(piece) {
      accepted += 1
      usleep(1000)
    }
    XCTAssertLessThan(accepted, 1000, "a client that reads nothing was buffered for without end")
    XCTAssertTrue(stream.isClosed)
    // The blocked send cannot be interrupted from outside MHD: the connection goes when the
    // idle timeout notices that nothing moves.
    XCTAssertTrue(eventually(timeout: 4) { probe.closes == 1 && server.openStreamCount == 0 })
  }
}

/// Many streams written concurrently from several threads: every byte arrives, in order, while
/// connections suspend and resume all the time.
final class ConcurrentStreamTests: XCTestCase {
  func testManyStreamsWrittenConcurrentlyReceiveEverythingInOrder() throws {
    let probe = StreamProbe()
    let server = try startTestServer(probe: probe)
    defer { server.shutdown(gracePeriodSeconds: 1) }
    let clientCount = 24
    let messages = 150
    var clients: [RawHTTPClient] = []
    for _ in 0..<clientCount {
      let client = try RawHTTPClient(port: server.port)
      try client.send("GET /stream HTTP/1.1\r\nHost: test\r\n\r\n")
      clients.append(client)
    }
    XCTAssertTrue(eventually { probe.count == clientCount })
    let streams = probe.all

    // Four producer threads, each writing to every stream, with short pauses so that the
    // readers keep draining the buffers and suspending again.
    let group = DispatchGroup()
    for producer in 0..<4 {
      DispatchQueue.global().async(group: group) {
        for index in 0..<messages where index % 4 == producer {
          for stream in streams {
            _ = stream.write(Array("\(index);".utf8))
          }
          if index % 10 == 0 { usleep(1000) }
        }
      }
    }
    XCTAssertEqual(group.wait(timeout: .now() + 10), .success)
    for stream in streams { stream.finish() }

    for client in clients {
      let head = try client.readHead()
      XCTAssertEqual(head.status, 200)
      let body = String(decoding: try client.readBody(of: head), as: UTF8.self)
      let numbers = body.split(separator: ";").compactMap { Int($0) }
      XCTAssertEqual(numbers.sorted(), Array(0..<messages))
      // Each producer's own messages keep their order.
      for producer in 0..<4 {
        let own = numbers.filter { $0 % 4 == producer }
        XCTAssertEqual(own, own.sorted())
      }
    }
    XCTAssertTrue(eventually { probe.closes == clientCount && server.openStreamCount == 0 })
  }
}
