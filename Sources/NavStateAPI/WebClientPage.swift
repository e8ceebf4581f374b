/// The thin web client: one page (HTML, CSS and vanilla JavaScript, no build step, nothing loaded
/// from elsewhere), served by the binary at `GET /`, with its style, script and icon as files of
/// their own (`/app.css`, `/app.js`, `/favicon.svg`) so that its Content-Security-Policy needs no
/// `'unsafe-inline'`.
///
/// - It creates a session on any loaded graph (`GET /v1/graphs`) or opens one by id and token.
///   The token lives in `sessionStorage` only and travels in the `Authorization` header, never
///   in a URL: the event stream is read with `fetch` and a `ReadableStream`, not `EventSource`.
/// - It draws the tree and the visible path, and builds its buttons from the graph: push,
///   present, replace (with typed param fields), pop, back, dismiss, tabs, teardown, deep links.
/// - It stays in step with changes made elsewhere (another tab, curl): after each burst of
///   events it re-reads the state (unless it already holds that version), applies a `reset`
///   event's state as is, and reconnects with `Last-Event-ID` after a drop.
enum WebClientPage {
  static let html: [UInt8] = Array(source.utf8)

  private static let source = #"""
    <!doctype html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>NavState</title>
    <link rel="stylesheet" href="/app.css">
    <link rel="icon" href="/favicon.svg" type="image/svg+xml">
    <script src="/app.js" defer></script>
    </head>
    <body>
    <header class="top">
      <div class="brand"><span class="logo"></span><h1>NavState</h1>
        <small>navigation state, live</small></div>
      <div class="group">
        <select id="graph" data-testid="graph-select" aria-label="graph"></select>
        <select id="root" data-testid="root-select" aria-label="root route"></select>
        <span id="root-params" class="group"></span>
        <button class="primary" id="create" data-testid="create-session">New session</button>
      </div>
      <form class="group" id="open-form">
        <input id="open-id" data-testid="open-id" placeholder="session id" size="22"
          autocomplete="off" aria-label="session id">
        <input id="open-token" data-testid="open-token" placeholder="token" size="22"
          type="password" autocomplete="off" aria-label="token">
        <button id="open" data-testid="open-session" type="submit">Open</button>
      </form>
    </header>
    <div class="sessionbar">
      <span>session <code id="sid" data-testid="session-id">–</code></span>
      <span>token <code id="token" data-testid="session-token">–</code></span>
      <span>graph <code id="graph-name">–</code></span>
      <span>version <code id="version" data-testid="version">–</code></span>
      <span class="grow"></span>
      <span id="live" data-testid="live-status" class="status">offline</span>
      <button class="danger" id="end" data-testid="end-session" disabled>End session</button>
    </div>
    <div id="problem" data-testid="problem" role="alert" hidden></div>
    <main>
      <div class="column">
        <section class="panel">
          <h2>Visible path <span class="hint">root first, active last</span></h2>
          <div id="path" class="stack"></div>
        </section>
        <section class="panel">
          <h2>Coordinator tree <span class="hint">× tears a presenter down</span></h2>
          <ul id="tree" class="tree" data-testid="tree"></ul>
        </section>
      </div>
      <section class="panel">
        <h2>Navigate</h2>
        <fieldset id="nav" disabled>
          <div class="toolbar">
            <button class="primary" id="back" data-testid="back">‹ Back</button>
            <button id="pop" data-testid="pop">Pop</button>
            <button id="pop-root" data-testid="pop-root">Pop to root</button>
            <button id="dismiss" data-testid="dismiss">Dismiss</button>
            <button id="dismiss-all" data-testid="dismiss-all">Dismiss all</button>
            <input id="result" data-testid="result-input" placeholder="result (JSON, optional)"
              aria-label="result handed back by back, pop and dismiss">
          </div>
          <form class="toolbar spaced" id="deeplink-form">
            <input id="deeplink" data-testid="deeplink-input" aria-label="deep link"
              placeholder="myapp://master/detail/7/settings">
            <button id="deeplink-go" data-testid="deeplink-go" type="submit">Follow link</button>
          </form>
          <div id="tabs"></div>
          <div id="routes"></div>
        </fieldset>
      </section>
      <section class="panel">
        <h2>Events <span class="hint">newest first</span></h2>
        <ul id="log" data-testid="event-log"></ul>
      </section>
    </main>
    </body>
    </html>
    """#
}
