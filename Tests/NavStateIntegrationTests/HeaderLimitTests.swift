import NavStateTestSupport
import Testing

/// `--max-header-bytes`: the request line and header fields must fit in the connection's
/// memory; a larger block is 431, and the command line refuses a size libmicrohttpd cannot run.
@Suite("The header size limit")
struct HeaderLimitTests {
  private func healthz(_ server: ServerProcess, padding: Int) throws -> Int {
    try server.client.request(
      "GET", "/healthz", headers: [("X-Padding", String(repeating: "x", count: padding))]
    ).status
  }

  @Test("by default a header block of 15 KiB is read and one of 20 KiB is 431")
  func defaultLimit() throws {
    let server = try ServerProcess()
    #expect(try healthz(server, padding: 15 * 1024) == 200)
    #expect(try healthz(server, padding: 20 * 1024) == 431)
    #expect(server.stop() == 0)
  }

  @Test("--max-header-bytes 65536 reads a block of 40 KiB")
  func raisedLimit() throws {
    let server = try ServerProcess(["--max-header-bytes", "65536"])
    #expect(try healthz(server, padding: 40 * 1024) == 200)
    #expect(try healthz(server, padding: 80 * 1024) == 431)
    #expect(server.stop() == 0)
  }

  @Test("a size under 8 KiB or over 1 MiB is a usage error", arguments: ["4096", "2000000"])
  func outOfRange(value: String) {
    #expect(throws: (any Error).self) { try ServerProcess(["--max-header-bytes", value]) }
  }
}
