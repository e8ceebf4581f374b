import Foundation
import NavStateTestSupport
import NavStateTesting
import Testing

@Suite("The web client's files")
struct WebClientTests {
  /// `Sources/NavStateAPI/WebClient`, where the files the binary embeds are.
  static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../../Sources/NavStateAPI/WebClient").standardized

  /// Each path, the file it serves and that file's type.
  static let files = [
    ("/", "index.html", "text/html; charset=utf-8"),
    ("/app.css", "app.css", "text/css; charset=utf-8"),
    ("/app.js", "app.js", "text/javascript; charset=utf-8"),
    ("/graph.js", "graph.js", "text/javascript; charset=utf-8"),
    ("/qr.js", "qr.js", "text/javascript; charset=utf-8"),
    ("/favicon.svg", "favicon.svg", "image/svg+xml"),
    ("/favicon.ico", "favicon.svg", "image/svg+xml"),
  ]

  @Test(
    "each is served byte for byte as on disk (compiled in), with its type and no-cache",
    arguments: [TestBackend.live])
  func servedAsOnDisk(backend: TestBackend) throws {
    let server = try TestApp(backend)
    defer { server.stop() }
    for (path, file, type) in Self.files {
      let onDisk = try [UInt8](Data(contentsOf: Self.folder.appendingPathComponent(file)))
      #expect(!onDisk.isEmpty, "\(file)")
      let response = try server.client.request("GET", path)
      #expect(response.status == 200, "\(path)")
      #expect(response.body == onDisk, "\(path) is not \(file) as on disk")
      #expect(response.header("Content-Type") == type, "\(path)")
      #expect(response.header("Cache-Control") == "no-cache", "\(path)")
      #expect(response.header("Content-Length") == String(onDisk.count), "\(path)")
      // Only the page carries the policy; its files need none.
      #expect((response.header("Content-Security-Policy") != nil) == (path == "/"), "\(path)")
    }
  }

  @Test(
    "the page allows nothing inline and refuses framing and referrers",
    arguments: TestBackend.allCases)
  func pageHeaders(backend: TestBackend) throws {
    let server = try TestApp(backend)
    defer { server.stop() }
    let page = try server.client.request("GET", "/")
    #expect(
      page.header("Content-Security-Policy")
        == "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
        + "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
    #expect(page.header("X-Frame-Options") == "DENY")
    #expect(page.header("Referrer-Policy") == "no-referrer")
    // The files the page names are the ones served.
    for name in ["/app.css", "/app.js", "/graph.js", "/qr.js", "/favicon.svg"] {
      #expect(page.text.contains("\"\(name)\""))
    }
  }
}
