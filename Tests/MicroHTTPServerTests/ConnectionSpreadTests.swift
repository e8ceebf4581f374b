import Foundation
import Synchronization
import XCTest

@testable import MicroHTTPServer

/// Connections opened together are spread over the worker threads. A worker serves its
/// connections one request at a time, so with handlers that wait (a commit), a worker that got
/// many of them leaves the others idle while its connections queue.
final class ConnectionSpreadTests: XCTestCase {
  func testConnectionsOpenedTogetherGoToEveryWorker() throws {
    let workers = Mutex<Set<UInt>>([])
    var router = Router()
    router.add("GET", "/which") { _, _ in
      workers.withLock { _ = $0.insert(UInt(pthread_self())) }
      usleep(20_000)  // a change waiting for its commit
      return HTTPResponse(status: 200, body: Array("ok".utf8))
    }
    let server = try startTestServer(router: router) { $0.threads = 8 }
    defer { server.shutdown(gracePeriodSeconds: 1) }

    // The connections come from another process, so that the server's descriptors are the
    // accepted connections alone, as in a server.
    let client = Process()
    client.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    client.arguments = [
      "python3", "-c",
      """
      import socket, sys
      port = int(sys.argv[1])
      connections = [socket.create_connection(("127.0.0.1", port), timeout=10) for _ in range(16)]
      for _ in range(3):
          for c in connections:
              c.sendall(b"GET /which HTTP/1.1\\r\\nHost: test\\r\\n\\r\\n")
          for c in connections:
              data = b""
              while not data.endswith(b"ok"):
                  chunk = c.recv(4096)
                  if not chunk:
                      sys.exit(1)
                  data += chunk
      """,
      String(server.port),
    ]
    try client.run()
    let deadline = Date().addingTimeInterval(30)
    while client.isRunning && Date() < deadline { usleep(10_000) }
    if client.isRunning { client.terminate() }
    client.waitUntilExit()
    XCTAssertEqual(client.terminationStatus, 0, "every request was answered")
    XCTAssertEqual(workers.withLock { $0.count }, 8, "16 connections made at once, 8 workers")
  }
}
