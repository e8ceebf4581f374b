import MicroHTTPServer

/// The thin web client: one page (HTML, CSS and vanilla JavaScript, no build step, nothing loaded
/// from elsewhere), served by the binary at `GET /`, with its style, scripts and icon as files
/// of their own (`/app.css`, `/app.js`, `/graph.js`, `/qr.js`,
/// `/favicon.svg`) so that its
/// Content-Security-Policy needs no `'unsafe-inline'`.
///
/// - It creates a session on any loaded graph (`GET /v1/graphs`) or opens one by id and token.
///   The token lives in `sessionStorage` only and travels in the `Authorization` header, never
///   in a URL: the event stream is read with `fetch` and a `ReadableStream`, not `EventSource`.
/// - It draws the tree and the visible path, and builds its buttons from the graph: push,
///   present, replace (with typed param fields), pop, back, dismiss, tabs, teardown, deep links.
/// - It draws the session's route graph (`graph.js`, from `GET /v1/graphs/{name}`) as an SVG
///   picture with the visible path highlighted.
/// - It stays in step with changes made elsewhere (another tab, curl): after each burst of
///   events it re-reads the state (unless it already holds that version), applies a `reset`
///   event's state as is, and reconnects with `Last-Event-ID` after a drop.
/// - It lists the session's history as a timeline (who, when, what), shows any kept version
///   read-only (`?at=V`), restores it on request, and downloads the recording.
/// - It shares the session (a link, a handoff code and a QR code drawn by `qr.js`), lists and
///   revokes its shares, names who is watching, opens a share link as a read-only follow view,
///   and redeems handoff codes.
///
/// Its files are real files in `WebClient/` (`index.html`, `app.css`, `app.js`, `graph.js`, `qr.js`,
/// `favicon.svg`), compiled into the binary by SwiftPM (`.embedInCode` resources, read as
/// `PackageResources`), so the binary serves them with no folder beside it. They are served byte
/// for byte as they are on disk: nothing is substituted into them, since everything the page
/// shows of this server (its graphs, sessions and versions) it fetches from the API. Each
/// response, headers included, is built once when the router is made, and is a constant from
/// then on.
extension NavStateService {
  func addWebClient(to router: inout Router) {
    let page = Self.webClientFile(
      "text/html; charset=utf-8", PackageResources.index_html, isPage: true)
    let icon = Self.webClientFile("image/svg+xml", PackageResources.favicon_svg)
    let files: [(path: String, response: HTTPResponse)] = [
      ("/", page),
      ("/app.css", Self.webClientFile("text/css; charset=utf-8", PackageResources.app_css)),
      ("/app.js", Self.webClientFile("text/javascript; charset=utf-8", PackageResources.app_js)),
      // The picture of the session's route graph, drawn in SVG by a script of its own.
      (
        "/graph.js",
        Self.webClientFile("text/javascript; charset=utf-8", PackageResources.graph_js)
      ),
      // The QR code of a share link, encoded and drawn in SVG by the page itself.
      ("/qr.js", Self.webClientFile("text/javascript; charset=utf-8", PackageResources.qr_js)),
      // The icon also where browsers look for one by default.
      ("/favicon.svg", icon),
      ("/favicon.ico", icon),
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
