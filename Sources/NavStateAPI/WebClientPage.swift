/// The thin web client of SPEC section 6: one self-contained page (HTML, CSS and vanilla
/// JavaScript, no build step), served at `GET /` from the binary itself.
///
/// It reads the event stream with `fetch` and the `Authorization` header, so the token never
/// appears in a URL, and re-reads the state after each burst of events, so it stays in step with
/// changes made elsewhere (another tab, curl, a test).
enum WebClientPage {
  static let html: [UInt8] = Array(source.utf8)

  private static let source = #"""
    <!doctype html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>NavState</title>
    <style>
    :root { --bg: #f5f6f8; --card: #fff; --ink: #1d2330; --muted: #6b7385; --line: #dde1e8;
      --accent: #3559e0; --sheet: #eef3ff; --cover: #1f2433; --bad: #b3261e; }
    * { box-sizing: border-box; }
    body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif;
      background: var(--bg); color: var(--ink); }
    header { display: flex; gap: 12px; align-items: center; flex-wrap: wrap; padding: 10px 16px;
      background: var(--card); border-bottom: 1px solid var(--line); }
    header h1 { font-size: 18px; margin: 0 12px 0 0; }
    header .group { display: flex; gap: 6px; align-items: center; }
    input, select, button { font: inherit; border: 1px solid var(--line); border-radius: 6px;
      padding: 4px 8px; background: #fff; color: inherit; }
    button { cursor: pointer; background: var(--accent); color: #fff; border-color: var(--accent); }
    button.quiet { background: #fff; color: var(--accent); }
    button.x { background: none; border: none; color: var(--muted); padding: 0 4px; }
    button.x:hover { color: var(--bad); }
    main { display: grid; grid-template-columns: minmax(260px, 1fr) minmax(300px, 1.2fr) 1fr;
      gap: 16px; padding: 16px; }
    section { background: var(--card); border: 1px solid var(--line); border-radius: 10px;
      padding: 12px 14px; min-width: 0; }
    h2 { font-size: 13px; text-transform: uppercase; letter-spacing: .06em; color: var(--muted);
      margin: 0 0 10px; }
    .meta { color: var(--muted); font-size: 12px; word-break: break-all; }
    .stack { position: relative; }
    .card { border: 1px solid var(--line); border-radius: 8px; padding: 8px 10px; margin-bottom: 6px;
      background: #fff; }
    .card .route { font-weight: 600; }
    .card.push { margin-left: 14px; }
    .card.tab { border-style: dashed; }
    .card.sheet { background: var(--sheet); border-color: #b9c8f5; border-radius: 16px 16px 8px 8px;
      margin: 10px 6px 6px; box-shadow: 0 -4px 12px rgba(53, 89, 224, .15); }
    .card.fullScreenCover { background: var(--cover); color: #fff; border-color: var(--cover);
      margin: 10px 0 6px; }
    .card.active { outline: 2px solid var(--accent); }
    .badge { display: inline-block; font-size: 11px; padding: 0 6px; border-radius: 9px;
      background: #e7eaf0; color: #444b5a; margin-left: 6px; }
    .card.fullScreenCover .badge { background: #3a4258; color: #dfe4f0; }
    ul.tree, ul.tree ul { list-style: none; margin: 0; padding-left: 16px; }
    ul.tree { padding-left: 0; }
    ul.tree li { margin: 2px 0; }
    .node.active > .label { background: #e3e9ff; border-radius: 4px; }
    .label { padding: 1px 4px; }
    .actions .row { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; margin: 6px 0; }
    .actions .route-name { min-width: 110px; font-weight: 600; }
    .actions input.param { width: 90px; }
    #problem { display: none; margin: 12px 16px 0; padding: 10px 14px; border-radius: 8px;
      background: #fde8e6; border: 1px solid #f2b8b2; color: #5c1410; }
    #problem .code { font-family: ui-monospace, monospace; }
    #log { font-family: ui-monospace, monospace; font-size: 12px; max-height: 420px;
      overflow: auto; margin: 0; padding: 0; list-style: none; }
    #log li { border-bottom: 1px solid #f0f1f4; padding: 3px 0; }
    .empty { color: var(--muted); font-style: italic; }
    </style>
    </head>
    <body>
    <header>
      <h1>NavState</h1>
      <div class="group">
        <select id="graph" data-testid="graph-select" aria-label="graph"></select>
        <select id="root" data-testid="root-select" aria-label="root route"></select>
        <button data-testid="create-session" id="create">New session</button>
      </div>
      <div class="group">
        <input id="open-id" data-testid="open-id" placeholder="session id" size="24">
        <input id="open-token" data-testid="open-token" placeholder="token" size="24">
        <button class="quiet" data-testid="open-session" id="open">Open</button>
      </div>
      <div class="meta">session <span data-testid="session-id" id="sid">–</span>
        · token <span data-testid="session-token" id="token">–</span>
        · version <span id="version">–</span> · <span id="live">offline</span></div>
    </header>
    <div id="problem" data-testid="problem" role="alert"></div>
    <main>
      <section>
        <h2>Visible path</h2>
        <div id="path" class="stack"><p class="empty">No session yet.</p></div>
        <h2 style="margin-top:16px">Tree</h2>
        <ul id="tree" class="tree"></ul>
      </section>
      <section class="actions">
        <h2>Navigate</h2>
        <div class="row">
          <button data-testid="back" id="back">Back</button>
          <button class="quiet" data-testid="pop" id="pop">Pop</button>
          <button class="quiet" data-testid="pop-root" id="pop-root">Pop to root</button>
          <button class="quiet" data-testid="dismiss" id="dismiss">Dismiss</button>
          <button class="quiet" data-testid="dismiss-all" id="dismiss-all">Dismiss all</button>
        </div>
        <div class="row">
          <input id="deeplink" data-testid="deeplink-input" placeholder="myapp://master/detail/4"
            size="28">
          <button data-testid="deeplink-go" id="deeplink-go">Follow link</button>
        </div>
        <div id="tabs"></div>
        <div id="routes"></div>
      </section>
      <section>
        <h2>Events</h2>
        <ul id="log" data-testid="event-log"></ul>
      </section>
    </main>
    <script>
    "use strict";
    const $ = (id) => document.getElementById(id);
    const app = { graphs: {}, sid: null, token: null, session: null, lastSeq: null, stream: null,
      inputs: {} };

    function h(tag, attrs, ...children) {
      const node = document.createElement(tag);
      for (const [key, value] of Object.entries(attrs || {})) {
        if (key.startsWith("on")) {
          node.addEventListener(key.slice(2), (event) => {
            const result = value(event);
            if (result && result.catch) result.catch(() => {});  // shown as a problem already
          });
        }
        else if (value !== undefined && value !== null) node.setAttribute(key, value);
      }
      for (const child of children) node.append(child);
      return node;
    }

    function showProblem(problem) {
      const box = $("problem");
      box.replaceChildren(
        h("strong", {}, problem.title || "Error"), " ",
        h("span", { class: "code" }, `(${problem.status || "?"} ${problem.code || ""})`), " — ",
        problem.detail || "", " ",
        h("button", { class: "x", "aria-label": "close", onclick: () => box.style.display = "none" },
          "×"));
      box.style.display = "block";
    }

    async function api(method, path, body, auth = true) {
      const headers = {};
      if (auth && app.token) headers.Authorization = `Bearer ${app.token}`;
      if (body !== undefined) headers["Content-Type"] = "application/json";
      const response = await fetch(path, {
        method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      const text = await response.text();
      const data = text ? JSON.parse(text) : null;
      if (!response.ok) {
        showProblem(data || { title: response.statusText, status: response.status });
        throw new Error(`${response.status}`);
      }
      $("problem").style.display = "none";
      return data;
    }

    async function operate(name, body, method = "POST") {
      const path = name === "state" ? "state" : name;
      const result = await api(method, `/v1/sessions/${app.sid}/${path}`, body || {});
      if (result && result.session) setSession(result.session);
    }

    function setSession(session) {
      const same = app.session && session && app.session.id === session.id &&
        app.session.version === session.version;
      app.session = session;
      if (!same) render();  // a re-render replaces the buttons: only when something changed
    }

    async function loadGraphs() {
      const data = await api("GET", "/v1/graphs", undefined, false);
      const select = $("graph");
      select.replaceChildren();
      for (const graph of data.graphs) {
        app.graphs[graph.name] = graph;
        select.append(h("option", { value: graph.name }, graph.name));
      }
      fillRoots();
    }

    function fillRoots() {
      const graph = app.graphs[$("graph").value];
      const roots = graph ? graph.routes.filter((route) => route.root) : [];
      $("root").replaceChildren(...roots.map((route) =>
        h("option", { value: route.name }, route.name)));
      if (graph) $("root").value = graph.root;
    }

    async function createSession() {
      const body = { graph: $("graph").value, root: { route: $("root").value } };
      const created = await api("POST", "/v1/sessions", body, false);
      attach(created.session.id, created.token, created.session);
    }

    async function openSession() {
      const id = $("open-id").value.trim();
      app.token = $("open-token").value.trim();
      app.sid = id;
      const session = await api("GET", `/v1/sessions/${id}`);
      attach(id, app.token, session);
    }

    function attach(id, token, session) {
      app.sid = id;
      app.token = token;
      app.lastSeq = null;
      sessionStorage.setItem("navstate", JSON.stringify({ id, token }));
      $("sid").textContent = id;
      $("token").textContent = token;
      $("log").replaceChildren();
      setSession(session);
      follow();
    }

    // Server-Sent Events read with fetch, so the token travels in a header, never in the URL.
    async function follow() {
      if (app.stream) app.stream.abort();
      const controller = new AbortController();
      app.stream = controller;
      while (!controller.signal.aborted) {
        try {
          const headers = { Accept: "text/event-stream", Authorization: `Bearer ${app.token}` };
          if (app.lastSeq !== null) headers["Last-Event-ID"] = String(app.lastSeq);
          const response = await fetch(`/v1/sessions/${app.sid}/events`,
            { headers, signal: controller.signal });
          if (response.status === 404 || response.status === 401) {
            $("live").textContent = "ended";
            return;
          }
          $("live").textContent = "live";
          const reader = response.body.getReader();
          const decoder = new TextDecoder();
          let buffer = "";
          for (;;) {
            const { value, done } = await reader.read();
            if (done) break;
            buffer += decoder.decode(value, { stream: true });
            let end;
            while ((end = buffer.indexOf("\n\n")) >= 0) {
              handleFrame(buffer.slice(0, end));
              buffer = buffer.slice(end + 2);
            }
          }
        } catch (error) {
          if (controller.signal.aborted) return;
        }
        if (app.session === null) return;
        $("live").textContent = "reconnecting";
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }

    function handleFrame(frame) {
      let id = null, type = "message", data = "";
      for (const line of frame.split("\n")) {
        if (line.startsWith("id: ")) id = Number(line.slice(4));
        else if (line.startsWith("event: ")) type = line.slice(7);
        else if (line.startsWith("data: ")) data += line.slice(6);
      }
      if (!data) return;
      if (id !== null) app.lastSeq = id;
      const payload = JSON.parse(data);
      if (type === "reset") {
        setSession(payload);
        logLine(`reset to version ${payload.version}`);
        return;
      }
      logLine([payload.seq, type, payload.coordinator, payload.route, payload.reason,
        payload.tab !== undefined ? `tab ${payload.tab}` : null,
        payload.result !== undefined ? JSON.stringify(payload.result) : null]
        .filter((part) => part !== undefined && part !== null).join(" "));
      if (type === "session.ended") {
        app.session = null;
        $("live").textContent = "ended";
        render();
        return;
      }
      refresh();
    }

    let refreshing = null;
    function refresh() {
      // Events come in bursts (one per coordinator): one GET after the burst is enough.
      clearTimeout(refreshing);
      refreshing = setTimeout(async () => {
        try { setSession(await api("GET", `/v1/sessions/${app.sid}`)); } catch (error) {}
      }, 30);
    }

    function logLine(text) {
      $("log").prepend(h("li", {}, text));
    }

    function graphOf() { return app.session ? app.graphs[app.session.graph] : null; }
    function routeOf(name) {
      const graph = graphOf();
      return graph ? graph.routes.find((route) => route.name === name) : null;
    }

    function paramsLabel(params) {
      const parts = Object.entries(params || {}).map(([key, value]) => `${key}=${value}`);
      return parts.length ? ` (${parts.join(", ")})` : "";
    }

    function render() {
      const session = app.session;
      $("version").textContent = session ? session.version : "–";
      renderPath(session);
      renderTree(session);
      renderActions(session);
    }

    function renderPath(session) {
      const path = $("path");
      if (!session) { path.replaceChildren(h("p", { class: "empty" }, "No session.")); return; }
      path.replaceChildren(...session.path.map((item) => h("div", {
          class: `card ${item.presentation}${item.id === session.active ? " active" : ""}`,
          "data-testid": "path-card", "data-route": item.route,
          "data-presentation": item.presentation, "data-id": item.id },
        h("span", { class: "route" }, item.route), paramsLabel(item.params),
        h("span", { class: "badge" }, item.presentation), h("span", { class: "badge" }, item.id))));
    }

    function renderTree(session) {
      const tree = $("tree");
      if (!session) { tree.replaceChildren(); return; }
      const node = (item) => {
        const torn = item.presentation === "root" || item.presentation === "tab" ? "" :
          h("button", { class: "x", title: "tear down", "data-testid": `teardown-${item.id}`,
            onclick: () => teardown(item.id) }, "×");
        const children = item.children.length ? h("ul", {}, ...item.children.map(node)) : "";
        return h("li", { class: `node${item.id === session.active ? " active" : ""}`,
            "data-testid": "tree-node", "data-id": item.id, "data-route": item.route },
          h("span", { class: "label" }, `${item.id} ${item.route}`, paramsLabel(item.params),
            h("span", { class: "badge" }, item.presentation),
            item.selectedTab !== undefined ? h("span", { class: "badge" },
              `tab ${item.selectedTab}`) : ""), torn, children);
      };
      tree.replaceChildren(node(session.root));
    }

    function readParams(route, row) {
      const params = {};
      for (const [name, spec] of Object.entries(route.params || {})) {
        const input = row.querySelector(`[data-param="${name}"]`);
        if (!input || input.value === "") continue;
        const text = input.value;
        params[name] = spec.type === "int" ? parseInt(text, 10) : spec.type === "number" ?
          parseFloat(text) : spec.type === "bool" ? text === "true" : text;
      }
      return params;
    }

    function renderActions(session) {
      const routesBox = $("routes");
      const tabsBox = $("tabs");
      routesBox.replaceChildren();
      tabsBox.replaceChildren();
      if (!session) return;
      const activeItem = session.path[session.path.length - 1];
      const active = routeOf(activeItem.route);
      for (const item of session.path) {
        const route = routeOf(item.route);
        if (!route || !route.tabs) continue;
        tabsBox.append(h("div", { class: "row" }, h("span", { class: "route-name" },
          `${item.route} tabs`), ...route.tabs.map((tab) => h("button", {
            class: "quiet", "data-testid": `tab-${tab}`,
            onclick: () => operate("select-tab", { tab, container: item.id }) }, tab))));
      }
      const graph = graphOf();
      const allowed = graph.routes.filter((route) =>
        !active || !active.next || active.next.includes(route.name));
      for (const route of allowed) {
        const row = h("div", { class: "row" }, h("span", { class: "route-name" }, route.name));
        for (const [name, spec] of Object.entries(route.params || {})) {
          const key = `${route.name}.${name}`;
          row.append(h("input", { class: "param", "data-param": name,
            "data-testid": `param-${route.name}-${name}`, placeholder: `${name} (${spec.type})`,
            value: app.inputs[key] ?? spec.default ?? "",
            oninput: (event) => { app.inputs[key] = event.target.value; } }));
        }
        const body = () => ({ route: route.name, params: readParams(route, row) });
        const button = (label, testid, run) =>
          row.append(h("button", { class: "quiet", "data-testid": testid, onclick: run }, label));
        if (route.presentations.includes("push"))
          button("push", `push-${route.name}`, () => operate("push", body()));
        if (route.presentations.includes("sheet"))
          button("sheet", `present-sheet-${route.name}`,
            () => operate("present", { ...body(), style: "sheet" }));
        if (route.presentations.includes("fullScreenCover"))
          button("cover", `present-cover-${route.name}`,
            () => operate("present", { ...body(), style: "fullScreenCover" }));
        button("replace", `replace-${route.name}`, () => operate("replace", body()));
        routesBox.append(row);
      }
    }

    async function teardown(id) {
      const response = await fetch(`/v1/sessions/${app.sid}/coordinators/${id}`,
        { method: "DELETE", headers: { Authorization: `Bearer ${app.token}` } });
      if (response.status === 200) setSession((await response.json()).session);
      else if (response.status !== 204) showProblem(await response.json());
    }

    const guard = (work) => () => work().catch(() => {});
    $("graph").addEventListener("change", fillRoots);
    $("create").addEventListener("click", guard(createSession));
    $("open").addEventListener("click", guard(openSession));
    $("back").addEventListener("click", guard(() => operate("back")));
    $("pop").addEventListener("click", guard(() => operate("pop")));
    $("pop-root").addEventListener("click", guard(() => operate("pop", { toRoot: true })));
    $("dismiss").addEventListener("click", guard(() => operate("dismiss")));
    $("dismiss-all").addEventListener("click", guard(() => operate("dismiss", { all: true })));
    $("deeplink-go").addEventListener("click",
      guard(() => operate("deeplink", { url: $("deeplink").value.trim() })));

    loadGraphs().then(() => {
      const saved = JSON.parse(sessionStorage.getItem("navstate") || "null");
      if (saved) {
        $("open-id").value = saved.id;
        $("open-token").value = saved.token;
      }
    }).catch(() => {});
    </script>
    </body>
    </html>
    """#
}
