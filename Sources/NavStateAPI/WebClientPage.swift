/// The thin web client of SPEC section 6: one self-contained page (HTML, CSS and vanilla
/// JavaScript, no build step, nothing loaded from elsewhere), served at `GET /` by the binary.
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
    <style>
    :root {
      --bg: #f3f4f7; --panel: #fff; --ink: #161b26; --muted: #697086; --faint: #98a0b3;
      --line: #e3e6ed; --accent: #3b5bdb; --accent-ink: #2c46b5; --accent-soft: #eef2ff;
      --sheet: #f3f6ff; --sheet-line: #c9d5fb; --cover: #1b2132; --cover-line: #2e3650;
      --tab: #0c8599; --bad: #c92a2a; --bad-soft: #fff1f0; --good: #2b8a3e;
      --shadow: 0 1px 2px rgba(22, 27, 38, .05), 0 2px 8px rgba(22, 27, 38, .04);
      --mono: ui-monospace, "SF Mono", "Cascadia Mono", Menlo, Consolas, monospace;
    }
    * { box-sizing: border-box; }
    body { margin: 0; background: var(--bg); color: var(--ink);
      font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
    header.top { display: flex; gap: 10px 18px; align-items: center; flex-wrap: wrap;
      padding: 12px 20px; background: var(--panel); border-bottom: 1px solid var(--line); }
    .brand { display: flex; align-items: center; gap: 8px; margin-right: auto; }
    .brand h1 { font-size: 18px; margin: 0; letter-spacing: -.01em; }
    .brand .logo { width: 22px; height: 22px; border-radius: 6px; background:
      linear-gradient(135deg, #5c7cfa, #3b5bdb 55%, #1b2132); }
    .brand small { color: var(--muted); }
    .group { display: flex; gap: 6px; align-items: center; flex-wrap: wrap; }
    .group + .group { padding-left: 18px; border-left: 1px solid var(--line); }
    input, select, button { font: inherit; font-size: 13px; border: 1px solid var(--line);
      border-radius: 8px; padding: 5px 9px; background: #fff; color: inherit; }
    input:focus, select:focus, button:focus-visible { outline: 2px solid var(--accent-soft);
      border-color: var(--accent); }
    button { cursor: pointer; color: var(--accent-ink); font-weight: 500; }
    button:hover { background: var(--accent-soft); }
    button.primary { background: var(--accent); border-color: var(--accent); color: #fff; }
    button.primary:hover { background: var(--accent-ink); }
    button.danger { color: var(--bad); }
    button.danger:hover { background: var(--bad-soft); }
    button.link { border: none; background: none; padding: 0 4px; font-size: 12px; }
    button.x { border: none; background: none; color: var(--faint); padding: 0 5px;
      font-size: 15px; line-height: 1; }
    button.x:hover { color: var(--bad); background: none; }
    fieldset { border: none; margin: 0; padding: 0; min-width: 0; }
    fieldset:disabled { opacity: .5; }
    .sessionbar { display: flex; gap: 8px 18px; align-items: center; flex-wrap: wrap;
      padding: 8px 20px; color: var(--muted); font-size: 12.5px; background: #fafbfc;
      border-bottom: 1px solid var(--line); }
    .sessionbar code { font-family: var(--mono); color: var(--ink); font-size: 12px;
      user-select: all; word-break: break-all; }
    .sessionbar .grow { flex: 1; }
    .status { display: inline-flex; align-items: center; gap: 6px; font-weight: 500; }
    .status::before { content: ""; width: 8px; height: 8px; border-radius: 50%;
      background: var(--faint); }
    .status.live { color: var(--good); }
    .status.live::before { background: var(--good); box-shadow: 0 0 0 3px rgba(43, 138, 62, .15); }
    .status.reconnecting, .status.connecting { color: #b76e00; }
    .status.reconnecting::before, .status.connecting::before { background: #f59f00; }
    .status.ended { color: var(--bad); }
    .status.ended::before { background: var(--bad); }
    #problem { display: flex; gap: 10px; align-items: flex-start; margin: 14px 20px 0;
      padding: 10px 14px; border-radius: 10px; background: var(--bad-soft);
      border: 1px solid #f5c2c0; color: #5c1410; }
    #problem[hidden] { display: none; }
    #problem .body { flex: 1; }
    #problem .code { font-family: var(--mono); font-size: 12px; background: #fde0de;
      border-radius: 6px; padding: 1px 6px; margin-left: 6px; }
    #problem .detail { margin-top: 2px; }
    #problem .extra { font-family: var(--mono); font-size: 12px; color: #8a3a33; }
    main { display: grid; gap: 16px; padding: 16px 20px 24px;
      grid-template-columns: minmax(300px, 1fr) minmax(380px, 1.1fr) minmax(300px, 1.05fr);
      align-items: start; }
    @media (max-width: 1100px) { main { grid-template-columns: 1fr; } }
    .column { display: grid; gap: 16px; min-width: 0; }
    section.panel { background: var(--panel); border: 1px solid var(--line); border-radius: 14px;
      padding: 14px 16px; box-shadow: var(--shadow); min-width: 0; }
    h2 { font-size: 12px; text-transform: uppercase; letter-spacing: .07em; color: var(--muted);
      margin: 0 0 12px; display: flex; align-items: center; gap: 8px; }
    h2 .hint { text-transform: none; letter-spacing: 0; font-weight: 400; color: var(--faint); }
    h3 { font-size: 13px; margin: 14px 0 6px; color: var(--ink); }
    h3 .hint { font-weight: 400; color: var(--muted); }
    .empty { color: var(--muted); font-style: italic; margin: 4px 0; }
    .badge { display: inline-block; font-size: 11px; font-weight: 500; padding: 1px 7px;
      border-radius: 999px; background: #eceef3; color: #485066; white-space: nowrap; }
    .badge.push { background: #e7f0ff; color: #2c5fb3; }
    .badge.sheet { background: #ece9ff; color: #5538c7; }
    .badge.fullScreenCover { background: #262d42; color: #e3e7f2; }
    .badge.tab { background: #e3f6f8; color: var(--tab); }
    .cid { font-family: var(--mono); font-size: 11px; color: var(--faint); }
    .params { font-family: var(--mono); font-size: 12px; color: var(--muted); }
    .stack { display: flex; flex-direction: column; gap: 6px; }
    .card { position: relative; border: 1px solid var(--line); border-radius: 10px;
      padding: 9px 12px; background: #fff; box-shadow: var(--shadow);
      margin-left: calc(var(--depth, 0) * 12px); }
    .card .head { display: flex; align-items: center; gap: 8px; flex-wrap: wrap; }
    .card .route { font-weight: 600; }
    .card .spacer { flex: 1; }
    .card .actions { margin-top: 4px; }
    .card.push::before { content: "›"; position: absolute; left: -11px; top: 8px;
      color: var(--faint); font-weight: 600; }
    .card.tab { border-style: dashed; border-color: #9fd8df; }
    .card.in-sheet { background: var(--sheet); border-color: var(--sheet-line); }
    .card.sheet { margin: 10px 10px 0; border-radius: 18px 18px 10px 10px; padding-top: 14px;
      box-shadow: 0 -6px 18px rgba(59, 91, 219, .14); }
    .card.sheet .grabber { position: absolute; top: 5px; left: 50%; width: 34px; height: 4px;
      margin-left: -17px; border-radius: 2px; background: #b7c3ee; }
    .card.in-fullScreenCover { background: var(--cover); border-color: var(--cover-line);
      color: #eef1f8; }
    .card.in-fullScreenCover .params, .card.in-fullScreenCover .cid { color: #a9b1c6; }
    .card.in-fullScreenCover button.link { color: #9db1ff; }
    .card.fullScreenCover { margin: 10px 0 0; border-radius: 4px; }
    .card.active { outline: 2px solid var(--accent); outline-offset: 1px; }
    .pill { font-size: 11px; font-weight: 600; color: #fff; background: var(--accent);
      border-radius: 999px; padding: 1px 8px; }
    ul.tree, ul.tree ul { list-style: none; margin: 0; padding: 0; }
    ul.tree ul { margin-left: 9px; padding-left: 12px; border-left: 1px dashed #d3d8e2; }
    ul.tree li { margin: 3px 0; }
    .node > .label { display: inline-flex; align-items: center; gap: 6px; padding: 2px 6px;
      border-radius: 7px; color: var(--faint); }
    .node.visible > .label { color: var(--ink); }
    .node.active > .label { background: var(--accent-soft); box-shadow: inset 0 0 0 1px #c5d0fa; }
    .node .mark { color: var(--tab); font-size: 11px; font-weight: 600; }
    .toolbar { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; }
    .toolbar input { flex: 1; min-width: 140px; }
    .toolbar.spaced { margin-top: 8px; }
    .rows { display: grid; gap: 2px; }
    .row { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; padding: 5px 6px;
      border-radius: 8px; }
    .row:hover { background: #f7f8fb; }
    .row .name { min-width: 96px; font-weight: 600; }
    .row input.param, .row select.param { width: 76px; }
    .row .buttons { display: flex; gap: 4px; margin-left: auto; }
    .row button { padding: 3px 8px; }
    .segmented { display: inline-flex; border: 1px solid var(--line); border-radius: 9px;
      overflow: hidden; }
    .segmented button { border: none; border-radius: 0; padding: 4px 12px; }
    .segmented button + button { border-left: 1px solid var(--line); }
    .segmented button.on { background: var(--tab); color: #fff; }
    #log { list-style: none; margin: 0; padding: 0; max-height: 640px; overflow: auto;
      font-size: 12.5px; }
    #log li { display: flex; gap: 8px; align-items: baseline; padding: 5px 2px;
      border-bottom: 1px solid #f0f1f5; }
    #log .what { flex: 1; display: flex; flex-wrap: wrap; gap: 4px 6px; align-items: baseline; }
    #log .seq { font-family: var(--mono); color: var(--faint); min-width: 28px; }
    #log .type { font-family: var(--mono); font-size: 11.5px; padding: 0 6px; border-radius: 5px;
      background: #eef0f4; color: #485066; }
    #log .started { background: #e6f6ea; color: #237336; }
    #log .stopped { background: #fdecec; color: #a32020; }
    #log .resumed { background: #f1eafe; color: #6132c0; }
    #log .tab { background: #e3f6f8; color: var(--tab); }
    #log .ended, #log .reset { background: #fff4e0; color: #9a5b00; }
    #log .co { font-family: var(--mono); font-weight: 600; }
    #log .why { color: var(--muted); font-style: italic; }
    #log time { color: var(--faint); font-size: 11px; }
    </style>
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
    <script>
    "use strict";
    const $ = (id) => document.getElementById(id);
    const SAVED = "navstate.session";  // sessionStorage only: tokens never go into URLs
    const app = {
      graphs: {}, sid: null, token: null, session: null, ended: null, lastSeq: null,
      retry: 2000, generation: 0, connection: null, refreshTimer: null, inputs: {},
    };

    class ApiError extends Error {
      constructor(problem, status) {
        super(problem.title || "request failed");
        this.problem = problem;
        this.status = status;
      }
    }

    function h(tag, attrs, ...children) {
      const node = document.createElement(tag);
      for (const [key, value] of Object.entries(attrs || {})) {
        if (value === undefined || value === null || value === false) continue;
        if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
        else node.setAttribute(key, value === true ? "" : value);
      }
      for (const child of children.flat()) {
        if (child !== undefined && child !== null && child !== false) node.append(child);
      }
      return node;
    }

    // A user action: its refusal is already shown as a problem, nothing else to do.
    const action = (work) => (event) => {
      if (event && event.preventDefault) event.preventDefault();
      Promise.resolve().then(work).catch(() => {});
    };

    function showProblem(problem) {
      const known = new Set(["type", "title", "status", "detail", "code", "instance"]);
      const extra = Object.entries(problem).filter(([key]) => !known.has(key))
        .map(([key, value]) => `${key}: ${JSON.stringify(value)}`).join(" · ");
      const box = $("problem");
      box.replaceChildren(
        h("div", { class: "body" },
          h("strong", {}, problem.title || "Error"),
          h("span", { class: "code", "data-testid": "problem-code" },
            `${problem.status || ""} ${problem.code || ""}`.trim()),
          h("div", { class: "detail", "data-testid": "problem-detail" }, problem.detail || ""),
          extra ? h("div", { class: "extra" }, extra) : null),
        h("button", { class: "x", "aria-label": "dismiss", title: "dismiss",
          "data-testid": "problem-close", onclick: hideProblem }, "×"));
      box.hidden = false;
    }

    function hideProblem() { $("problem").hidden = true; }

    async function api(method, path, body, { token = app.token, quiet = false } = {}) {
      const headers = { Accept: "application/json" };
      if (token) headers.Authorization = `Bearer ${token}`;
      if (body !== undefined) headers["Content-Type"] = "application/json";
      let response;
      try {
        response = await fetch(path, { method, headers, cache: "no-store",
          body: body === undefined ? undefined : JSON.stringify(body) });
      } catch (error) {
        const failure = new ApiError({ title: "Network error", code: "network_error",
          detail: "the service did not answer: " + (error.message || error) }, 0);
        if (!quiet) showProblem(failure.problem);
        throw failure;
      }
      const text = await response.text();
      let data = null;
      try { data = text ? JSON.parse(text) : null; } catch (error) { data = null; }
      if (!response.ok) {
        const problem = data && typeof data === "object" ? data :
          { title: response.statusText || "Error", detail: text };
        if (problem.status === undefined) problem.status = response.status;
        const failure = new ApiError(problem, response.status);
        if (!quiet) showProblem(problem);
        throw failure;
      }
      if (!quiet) hideProblem();
      return data;
    }

    async function operate(name, body = {}) {
      if (!app.session) return;
      const answer = await api("POST", `/v1/sessions/${enc(app.sid)}/${name}`, body);
      if (answer && answer.session) setSession(answer.session);
    }

    const enc = (text) => encodeURIComponent(text);

    function withResult(body = {}) {
      const text = $("result").value.trim();
      if (!text) return body;
      let result;
      try { result = JSON.parse(text); } catch (error) { result = text; }
      return { ...body, result };
    }

    // Only a newer state (or another session) is drawn again: answers and GETs may cross.
    function setSession(session) {
      const current = app.session;
      if (current && current.id === session.id && session.version < current.version) return;
      const changed = !current || current.id !== session.id || current.version !== session.version;
      app.session = session;
      if (changed) render();
    }

    // Graphs ------------------------------------------------------------------------------------

    const graphsReady = (async () => {
      const data = await api("GET", "/v1/graphs", undefined, { token: null });
      for (const graph of data.graphs) {
        app.graphs[graph.name] = graph;
        $("graph").append(h("option", { value: graph.name }, graph.name));
      }
      if (app.graphs.demo) $("graph").value = "demo";
      fillRoots();
    })();

    function fillRoots() {
      const graph = app.graphs[$("graph").value];
      const roots = graph ? graph.routes.filter((route) => route.root) : [];
      $("root").replaceChildren(...roots.map((route) => h("option", { value: route.name },
        route.name === graph.root ? `${route.name} (graph root)` : route.name)));
      if (graph) $("root").value = graph.root;
      fillRootParams();
    }

    function fillRootParams() {
      const graph = app.graphs[$("graph").value];
      const route = graph && graph.routes.find((item) => item.name === $("root").value);
      $("root-params").replaceChildren(...(route ? paramInputs(route, "root") : []));
    }

    function routeIn(graphName, name) {
      const graph = app.graphs[graphName];
      return graph ? graph.routes.find((route) => route.name === name) : undefined;
    }

    // Param forms, typed from the graph: int and number fields, a true/false choice for bool.
    function paramInputs(route, scope) {
      return Object.entries(route.params || {}).map(([name, spec]) => {
        const key = `${scope}.${route.name}.${name}`;
        const fallback = spec.default === undefined ? "" : String(spec.default);
        const value = app.inputs[key] ?? fallback;
        const common = { class: "param", "data-param": name, "data-type": spec.type,
          "data-testid": scope === "root" ? `root-param-${name}` : `param-${route.name}-${name}`,
          "aria-label": `${route.name} ${name} (${spec.type})`, title: `${name}: ${spec.type}` +
            (spec.required ? ", required" : ", optional"),
          oninput: (event) => { app.inputs[key] = event.target.value; } };
        if (spec.type === "bool") {
          const select = h("select", common, h("option", { value: "" }, `${name}?`),
            h("option", { value: "true" }, "true"), h("option", { value: "false" }, "false"));
          select.value = value;
          return select;
        }
        const numeric = spec.type === "int" || spec.type === "number";
        return h("input", { ...common, type: numeric ? "number" : "text",
          step: spec.type === "int" ? "1" : spec.type === "number" ? "any" : null,
          required: spec.required, value,
          placeholder: `${name}${spec.required ? " *" : ""}` });
      });
    }

    function readParams(route, container) {
      const params = {};
      for (const [name, spec] of Object.entries(route.params || {})) {
        const input = container.querySelector(`[data-param="${name}"]`);
        if (!input || input.value === "") continue;
        const text = spec.type === "string" ? input.value : input.value.trim();
        if (spec.type === "int" && /^-?\d+$/.test(text)) params[name] = parseInt(text, 10);
        else if (spec.type === "number" && text !== "" && !isNaN(Number(text))) {
          params[name] = Number(text);
        } else if (spec.type === "bool" && (text === "true" || text === "false")) {
          params[name] = text === "true";
        } else params[name] = text;  // the service explains what is wrong with it
      }
      return params;
    }

    // Sessions ----------------------------------------------------------------------------------

    async function createSession() {
      await graphsReady;
      const graph = app.graphs[$("graph").value];
      const body = { graph: graph.name };
      const rootName = $("root").value;
      if (rootName) {
        const route = graph.routes.find((item) => item.name === rootName);
        body.root = { route: rootName, params: readParams(route, $("root-params")) };
      }
      const created = await api("POST", "/v1/sessions", body, { token: null });
      attach(created.session.id, created.token, created.session);
    }

    async function openSession(id, token, quiet = false) {
      await graphsReady;
      if (!id || !token) {
        showProblem({ title: "Session id and token needed", code: "missing_input",
          detail: "paste the id and the token shown when the session was created" });
        return;
      }
      const session = await api("GET", `/v1/sessions/${enc(id)}`, undefined, { token, quiet });
      attach(id, token, session);
    }

    function attach(id, token, session) {
      stopStream();
      app.sid = id;
      app.token = token;
      app.session = null;
      app.ended = null;
      app.lastSeq = null;
      sessionStorage.setItem(SAVED, JSON.stringify({ id, token }));
      $("open-id").value = "";
      $("open-token").value = "";
      $("log").replaceChildren();
      setSession(session);
      follow();
    }

    async function endSession() {
      if (!app.session) return;
      const sid = app.sid;
      await api("DELETE", `/v1/sessions/${enc(sid)}`);
      // The stream brings the stopped coordinators and session.ended; if it is down, end here.
      setTimeout(() => { if (app.sid === sid) ended("deleted"); }, 1500);
    }

    function ended(reason) {
      if (app.ended) return;
      app.ended = reason || "ended";
      app.session = null;
      clearTimeout(app.refreshTimer);
      stopStream();
      sessionStorage.removeItem(SAVED);
      setLive("ended");
      render();
    }

    // The event stream: Server-Sent Events read with fetch, so the token travels in a header.
    function stopStream() {
      app.generation += 1;
      if (app.connection) app.connection.abort();
      app.connection = null;
    }

    function setLive(status) {
      const live = $("live");
      live.textContent = status;
      live.className = `status ${status}`;
    }

    async function follow() {
      stopStream();
      const generation = app.generation;
      const current = () => generation === app.generation && app.session !== null;
      while (current()) {
        const connection = new AbortController();
        app.connection = connection;
        let watchdog = null;
        // Heartbeats come every 15 s: a longer silence means a dead connection.
        const arm = () => {
          clearTimeout(watchdog);
          watchdog = setTimeout(() => connection.abort(), 40000);
        };
        try {
          setLive(app.lastSeq === null ? "connecting" : "reconnecting");
          const headers = { Accept: "text/event-stream", Authorization: `Bearer ${app.token}` };
          if (app.lastSeq !== null) headers["Last-Event-ID"] = app.lastSeq;
          arm();
          const response = await fetch(`/v1/sessions/${enc(app.sid)}/events`,
            { headers, signal: connection.signal, cache: "no-store" });
          if (response.status === 401 || response.status === 404) {
            if (current()) ended("not found");
            return;
          }
          if (!response.ok || !response.body) throw new Error(`events: ${response.status}`);
          if (current()) setLive("live");
          await readFrames(response.body, arm, (frame) => { if (current()) dispatch(frame); });
        } catch (error) {
          // dropped, aborted or refused: reconnect below unless this stream was replaced
        } finally {
          clearTimeout(watchdog);
        }
        if (!current()) return;
        setLive("reconnecting");
        await new Promise((resolve) => setTimeout(resolve, app.retry));
      }
    }

    async function readFrames(body, onChunk, onFrame) {
      const reader = body.getReader();
      const decoder = new TextDecoder();
      let buffer = "";
      let carriage = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        onChunk();
        let text = carriage + decoder.decode(value, { stream: true });
        carriage = text.endsWith("\r") ? "\r" : "";
        if (carriage) text = text.slice(0, -1);
        buffer += text.replace(/\r\n?/g, "\n");
        let end;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          onFrame(parseFrame(block));
        }
      }
    }

    function parseFrame(block) {
      const frame = { id: null, event: "message", data: [], retry: null };
      for (const line of block.split("\n")) {
        if (line === "" || line.startsWith(":")) continue;  // ": heartbeat"
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        let value = colon < 0 ? "" : line.slice(colon + 1);
        if (value.startsWith(" ")) value = value.slice(1);
        if (field === "id") frame.id = value;
        else if (field === "event") frame.event = value;
        else if (field === "data") frame.data.push(value);
        else if (field === "retry" && /^\d+$/.test(value)) frame.retry = Number(value);
      }
      return frame;
    }

    function dispatch(frame) {
      if (frame.retry !== null) app.retry = frame.retry;
      if (frame.id !== null && frame.id !== "") app.lastSeq = frame.id;
      if (frame.data.length === 0) return;
      let payload;
      try { payload = JSON.parse(frame.data.join("\n")); } catch (error) { return; }
      if (frame.event === "reset") {
        logEntry("reset", frame.id, [h("span", {}, `state at version ${payload.version}`)]);
        setSession(payload);
        return;
      }
      logEvent(frame.event, payload);
      if (frame.event === "session.ended") { ended(payload.reason); return; }
      // Events come in bursts (one per coordinator): one GET after the burst is enough, and none
      // when this page already holds that version (its own operation's answer).
      if (!app.session || payload.version > app.session.version) refresh();
    }

    function refresh() {
      clearTimeout(app.refreshTimer);
      const sid = app.sid;
      app.refreshTimer = setTimeout(async () => {
        try {
          const session = await api("GET", `/v1/sessions/${enc(sid)}`, undefined, { quiet: true });
          if (sid === app.sid && !app.ended) setSession(session);
        } catch (error) {
          if (error.status === 404 && sid === app.sid) ended("not found");
        }
      }, 30);
    }

    // The event log ------------------------------------------------------------------------------

    function paramsText(params) {
      const parts = Object.entries(params || {}).map(([key, value]) =>
        `${key}=${typeof value === "string" && value !== "" ? value : JSON.stringify(value)}`);
      return parts.join(", ");
    }

    function logEvent(type, event) {
      const parts = [];
      if (event.coordinator) parts.push(h("span", { class: "co" }, event.coordinator));
      if (event.route) parts.push(h("span", {}, event.route));
      if (event.params && Object.keys(event.params).length) {
        parts.push(h("span", { class: "params" }, paramsText(event.params)));
      }
      if (event.presentation) parts.push(h("span", { class: "badge " + event.presentation },
        event.presentation));
      if (event.parent) parts.push(h("span", { class: "why" }, `in ${event.parent}`));
      if (event.tab !== undefined) parts.push(h("span", {}, `tab ${event.tab}`));
      if (event.reason) parts.push(h("span", { class: "why" }, event.reason));
      if ("result" in event) parts.push(h("span", { class: "params" },
        `result ${JSON.stringify(event.result)}`));
      logEntry(type, event.seq, parts);
    }

    function logEntry(type, seq, parts) {
      const kind = type.split(".").pop().replace("selected", "tab");
      const time = new Date().toLocaleTimeString([], { hour12: false });
      $("log").prepend(h("li", { "data-testid": "event", "data-type": type, "data-seq": seq },
        h("span", { class: "seq" }, seq === undefined ? "" : `#${seq}`),
        h("span", { class: "what" }, h("span", { class: `type ${kind}` }, type), ...parts),
        h("time", {}, time)));
      while ($("log").children.length > 300) $("log").lastChild.remove();
    }

    // Drawing ----------------------------------------------------------------------------------

    function render() {
      const focused = document.activeElement;
      const focusId = focused && focused.dataset ? focused.dataset.testid : undefined;
      const session = app.session;
      $("sid").textContent = app.sid || "–";
      $("token").textContent = app.token || "–";
      $("graph-name").textContent = session ? session.graph : "–";
      $("version").textContent = session ? session.version : "–";
      $("nav").disabled = !session;
      $("end").disabled = !session;
      renderPath(session);
      renderTree(session);
      renderActions(session);
      // A re-render replaces the forms: keep the caret where the user was typing.
      if (focusId && !document.body.contains(focused)) {
        const again = document.querySelector(`[data-testid="${CSS.escape(focusId)}"]`);
        if (again) again.focus();
      }
    }

    const isModal = (presentation) =>
      presentation === "sheet" || presentation === "fullScreenCover";

    function renderPath(session) {
      const box = $("path");
      if (!session) {
        box.replaceChildren(h("p", { class: "empty" }, app.ended ?
          `This session has ended (${app.ended}).` : "No session: create one or open one."));
        return;
      }
      const path = session.path;
      let flowStart = path.length - 1;
      while (flowStart > 0 && path[flowStart].presentation === "push") flowStart -= 1;
      let context = "root";
      let depth = 0;
      box.replaceChildren(...path.map((item, index) => {
        if (isModal(item.presentation)) { context = item.presentation; depth = 0; }
        else if (item.presentation === "push") depth += 1;
        else depth = 0;
        const active = item.id === session.active;
        const actions = [];
        if (index >= flowStart && index < path.length - 1) {
          actions.push(h("button", { class: "link", "data-testid": `pop-to-${item.id}`,
            onclick: action(() => operate("pop", withResult({ to: item.id }))) }, "pop to here"));
        }
        if (isModal(item.presentation)) {
          actions.push(h("button", { class: "link", "data-testid": `dismiss-${item.id}`,
            onclick: action(() => operate("dismiss", withResult({ coordinator: item.id }))) },
            "dismiss"));
        }
        const card = h("div", {
            class: `card ${item.presentation} in-${context}${active ? " active" : ""}`,
            "data-testid": "path-card", "data-route": item.route, "data-id": item.id,
            "data-presentation": item.presentation, "data-active": active ? "true" : "false" },
          item.presentation === "sheet" ? h("span", { class: "grabber" }) : null,
          h("div", { class: "head" },
            h("span", { class: "route" }, item.route),
            h("span", { class: "params" }, paramsText(item.params)),
            h("span", { class: "spacer" }),
            active ? h("span", { class: "pill" }, "active") : null,
            h("span", { class: `badge ${item.presentation}` }, item.presentation),
            h("span", { class: "cid" }, item.id)),
          actions.length ? h("div", { class: "actions" }, actions) : null);
        if (item.presentation === "push") card.style.setProperty("--depth", Math.min(depth, 8));
        return card;
      }));
    }

    function renderTree(session) {
      const tree = $("tree");
      if (!session || !session.root) { tree.replaceChildren(); return; }
      const visible = new Set(session.path.map((item) => item.id));
      const node = (item, selected) => {
        const removable = item.presentation !== "root" && item.presentation !== "tab";
        const classes = ["node"];
        if (visible.has(item.id)) classes.push("visible");
        if (item.id === session.active) classes.push("active");
        return h("li", { class: classes.join(" "), "data-testid": "tree-node",
            "data-id": item.id, "data-route": item.route, "data-presentation": item.presentation },
          h("span", { class: "label" },
            h("span", { class: "cid" }, item.id),
            h("strong", {}, item.route),
            h("span", { class: "params" }, paramsText(item.params)),
            h("span", { class: `badge ${item.presentation}` }, item.presentation),
            selected ? h("span", { class: "mark" }, "selected") : null),
          removable ? h("button", { class: "x", title: `tear down ${item.id} and all under it`,
            "aria-label": `tear down ${item.id}`, "data-testid": `teardown-${item.id}`,
            onclick: action(() => teardown(item.id)) }, "×") : null,
          item.children.length ? h("ul", {}, item.children.map((child, position) =>
            node(child, child.presentation === "tab" && item.selectedTab === position))) : null);
      };
      tree.replaceChildren(node(session.root, false));
    }

    function findNode(root, id) {
      const queue = [root];
      while (queue.length) {
        const item = queue.shift();
        if (item.id === id) return item;
        queue.push(...item.children);
      }
      return null;
    }

    function renderActions(session) {
      const routesBox = $("routes");
      const tabsBox = $("tabs");
      routesBox.replaceChildren();
      tabsBox.replaceChildren();
      if (!session || !app.graphs[session.graph]) return;
      const graph = app.graphs[session.graph];
      const path = session.path;
      const activeItem = path[path.length - 1];
      const active = routeIn(graph.name, activeItem.route);
      const parentItem = path.length > 1 ? path[path.length - 2] : null;
      const parent = parentItem ? routeIn(graph.name, parentItem.route) : null;

      for (const item of path) {
        const route = routeIn(graph.name, item.route);
        if (!route || !route.tabs) continue;
        const container = findNode(session.root, item.id);
        tabsBox.append(
          h("h3", {}, `Tabs of ${item.route} `, h("span", { class: "hint" }, item.id)),
          h("div", { class: "segmented", "data-testid": `tabs-${item.id}` },
            route.tabs.map((tab, index) => h("button", {
              class: container && container.selectedTab === index ? "on" : "",
              "data-testid": `tab-${tab}`, "data-container": item.id,
              onclick: action(() => operate("select-tab", { tab, container: item.id })) }, tab))));
      }

      const allows = (from, name) => !from || !from.next || from.next.includes(name);
      const mayReplace = (route) => {
        if (activeItem.presentation === "tab") return false;
        if (!parentItem) return route.root;
        return allows(parent, route.name) && route.presentations.includes(activeItem.presentation);
      };
      routesBox.append(h("h3", {}, `Show from ${activeItem.route} `,
        h("span", { class: "hint" }, `${activeItem.id} · replace swaps it`)));
      const rows = h("div", { class: "rows" });
      for (const route of graph.routes) {
        const show = allows(active, route.name);
        const kinds = show ? route.presentations : [];
        const replace = mayReplace(route);
        if (!kinds.length && !replace) continue;
        const row = h("div", { class: "row", "data-testid": `route-${route.name}` },
          h("span", { class: "name" }, route.name));
        row.append(...paramInputs(route, "op"));
        const body = () => ({ route: route.name, params: readParams(route, row) });
        const button = (label, testid, work) => h("button", { "data-testid": testid,
          onclick: action(work) }, label);
        const buttons = h("span", { class: "buttons" });
        if (kinds.includes("push")) {
          buttons.append(button("push", `push-${route.name}`, () => operate("push", body())));
        }
        if (kinds.includes("sheet")) {
          buttons.append(button("sheet", `present-sheet-${route.name}`,
            () => operate("present", { ...body(), style: "sheet" })));
        }
        if (kinds.includes("fullScreenCover")) {
          buttons.append(button("cover", `present-cover-${route.name}`,
            () => operate("present", { ...body(), style: "fullScreenCover" })));
        }
        if (replace) {
          buttons.append(button("replace", `replace-${route.name}`,
            () => operate("replace", body())));
        }
        row.append(buttons);
        rows.append(row);
      }
      if (!rows.children.length) {
        rows.append(h("p", { class: "empty" }, `${activeItem.route} shows no further routes.`));
      }
      routesBox.append(rows);
    }

    async function teardown(id) {
      const answer = await api("DELETE", `/v1/sessions/${enc(app.sid)}/coordinators/${enc(id)}`);
      if (answer && answer.session) setSession(answer.session);  // 204: it was already gone
    }

    // Wiring -----------------------------------------------------------------------------------

    $("graph").addEventListener("change", fillRoots);
    $("root").addEventListener("change", fillRootParams);
    $("create").addEventListener("click", action(createSession));
    $("open-form").addEventListener("submit", action(() =>
      openSession($("open-id").value.trim(), $("open-token").value.trim())));
    $("end").addEventListener("click", action(endSession));
    $("back").addEventListener("click", action(() => operate("back", withResult())));
    $("pop").addEventListener("click", action(() => operate("pop", withResult())));
    $("pop-root").addEventListener("click", action(() =>
      operate("pop", withResult({ toRoot: true }))));
    $("dismiss").addEventListener("click", action(() => operate("dismiss", withResult())));
    $("dismiss-all").addEventListener("click", action(() =>
      operate("dismiss", withResult({ all: true }))));
    $("deeplink-form").addEventListener("submit", action(() =>
      operate("deeplink", { url: $("deeplink").value.trim() })));

    render();
    graphsReady.then(() => {
      // A reload keeps the session of this tab (sessionStorage is per tab, never in the URL).
      let saved = null;
      try { saved = JSON.parse(sessionStorage.getItem(SAVED) || "null"); } catch (error) {}
      if (saved && saved.id && saved.token) {
        openSession(saved.id, saved.token, true).catch(() => sessionStorage.removeItem(SAVED));
      }
    }).catch(() => {});
    </script>
    </body>
    </html>
    """#
}
