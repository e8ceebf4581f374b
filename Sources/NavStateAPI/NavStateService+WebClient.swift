import MicroHTTPServer

/// The web client's files. Each is a constant built once: the page, its style, its script and
/// its icon, with headers that keep a browser from running anything else in the page's name.
extension NavStateService {
  func addWebClient(to router: inout Router) {
    let files: [(path: String, response: HTTPResponse)] = [
      ("/", Self.webClientFile("text/html; charset=utf-8", WebClientPage.html, isPage: true)),
      ("/app.css", Self.webClientFile("text/css; charset=utf-8", WebClientPage.style)),
      ("/app.js", Self.webClientFile("text/javascript; charset=utf-8", WebClientPage.script)),
      ("/favicon.svg", Self.webClientFile("image/svg+xml", WebClientPage.icon)),
      ("/favicon.ico", Self.webClientFile("image/svg+xml", WebClientPage.icon)),
    ]
    for (path, response) in files {
      router.add("GET", path, constant: response)
    }
  }

  /// Everything the page loads comes from this server; nothing inline runs; no other site may
  /// frame it (clickjacking) or learn where its links came from.
  static let webClientPolicy =
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    + "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

  private static func webClientFile(_ type: String, _ body: [UInt8], isPage: Bool = false)
    -> HTTPResponse
  {
    var headers = HTTPHeaders([("Content-Type", type), ("Cache-Control", "no-cache")])
    if isPage {
      headers.add("Content-Security-Policy", webClientPolicy)
      headers.add("X-Frame-Options", "DENY")
      headers.add("Referrer-Policy", "no-referrer")
    }
    return HTTPResponse(status: 200, headers: headers, body: body).prepared()
  }
}
