"use strict";
const $ = (id) => document.getElementById(id);
const SAVED = "navstate.session";  // sessionStorage only: tokens never go into URLs
const app = {
  graphs: {}, sid: null, token: null, session: null, ended: null, lastSeq: null,
  retry: 2000, generation: 0, connection: null, refreshTimer: null, inputs: {},
  // The history timeline, and the state of a past version while one is viewed (read only).
  history: null, past: null, pastEntry: null, pastWanted: 0,
  // Set while this page holds a share token (a share link, a handoff code): its {id, mode,
  // label, expiresAt}. The share just made here, whose link and code are shown once.
  share: null, newShare: null,
  // Who has the session open now (GET .../presence, then the stream's presence messages);
  // `streaming` says whether this page's own stream is among them.
  presence: null, presenceSeen: 0, streaming: false,
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

async function api(method, path, body,
    { token = app.token, quiet = false, accept = "application/json", blob = false } = {}) {
  const headers = { Accept: accept };
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
  if (blob && response.ok) {
    if (!quiet) hideProblem();
    return response.blob();
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
  let answer;
  try {
    answer = await api("POST", `/v1/sessions/${enc(app.sid)}/${name}`, body);
  } catch (error) {
    // A leave guard refused it: the user decides, and a yes sends it again with discard.
    if (!error.problem || error.problem.code !== "leave_blocked" ||
        !confirmDiscard(error.problem)) throw error;
    answer = await api("POST", `/v1/sessions/${enc(app.sid)}/${name}`,
      { ...body, discard: true });
  }
  if (answer && answer.session) setSession(answer.session);
}

function confirmDiscard(problem) {
  return window.confirm(`Discard unsaved changes in ${problem.coordinator}: ${problem.reason}?`);
}

// Leave guards: a coordinator with unsaved changes; what would stop it asks first.
async function toggleLeaveGuard(item) {
  const path = `/v1/sessions/${enc(app.sid)}/coordinators/${enc(item.id)}/leave-guard`;
  let answer;
  if (item.leaveGuard) {
    answer = await api("DELETE", path);
  } else {
    const reason = window.prompt(`Unsaved changes in ${item.route} (${item.id}): what would be lost?`,
      "Unsaved changes");
    if (reason === null) return;
    answer = await api("PUT", path, { reason: reason.trim() || "Unsaved changes" });
  }
  if (answer && answer.session) setSession(answer.session);
}

const enc = (text) => encodeURIComponent(text);

// The result handed back by back, pop and dismiss must be JSON: a typo is refused here, with
// a word, rather than sent as a string the receiving screen never expected.
function withResult(body = {}) {
  const field = $("result");
  const text = field.value.trim();
  field.removeAttribute("aria-invalid");
  if (!text) return body;
  try {
    return { ...body, result: JSON.parse(text) };
  } catch (error) {
    field.setAttribute("aria-invalid", "true");
    const problem = { title: "The result is not valid JSON", code: "invalid_result",
      detail: `${error.message}. Write JSON: a quoted "text", a number, true, or {"key": 1}.` };
    showProblem(problem);
    throw new ApiError(problem, 0);
  }
}

// Only a newer state (or another session) is drawn again: answers and GETs may cross.
function setSession(session) {
  const current = app.session;
  if (current && current.id === session.id && session.version < current.version) return;
  const changed = !current || current.id !== session.id || current.version !== session.version;
  app.session = session;
  // A share page's own entry: its mode and label, as the state says them now.
  if (app.share && session.shares && session.shares[0]) {
    app.share = { ...app.share, ...session.shares[0] };
  }
  if (changed) {
    render();
    followHistory();
  }
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

// `shared`: the token is a share's (a share link, or a reload of a page opened with one).
async function openSession(id, token, quiet = false, shared = false) {
  await graphsReady;
  if (!id || !token) {
    showProblem({ title: "Session id and token needed", code: "missing_input",
      detail: "paste the id and the token shown when the session was created" });
    return;
  }
  let session;
  try {
    session = await api("GET", `/v1/sessions/${enc(id)}`, undefined, { token, quiet });
  } catch (error) {
    // A revoked or expired share answers like a wrong token: the link no longer opens.
    if (shared && error.status === 404) shareGone(id);
    throw error;
  }
  attach(id, token, session, shared ? ownShare(session) : null);
}

// A share token sees its own entry, and only it, in the state's `shares`.
function ownShare(session) {
  const entry = (session.shares || [])[0];
  // Not named: read only until the state says otherwise.
  return entry ? { ...entry } : { id: null, mode: "follow", label: "" };
}

function attach(id, token, session, share = null) {
  stopStream();
  app.sid = id;
  app.token = token;
  app.session = null;
  app.ended = null;
  app.lastSeq = null;
  app.past = null;
  app.share = share;
  app.newShare = null;
  app.presence = null;
  resetHistory();
  sessionStorage.setItem(SAVED, JSON.stringify({ id, token, share: !!share }));
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
  app.past = null;
  app.presence = null;
  clearTimeout(app.refreshTimer);
  stopStream();
  sessionStorage.removeItem(SAVED);
  setLive("ended");
  render();
}

// Shares, handoff codes, presence -------------------------------------------------------------
// A share is a second token for the session, for someone else: follow reads it live (sensitive
// params redacted, no context), drive may also navigate it. Its link is this page's address
// with `#share=<session>.<token>`: a fragment is never sent to any server, so the token stays
// out of request lines, proxies and access logs, as the session's token stays out of URLs.
const SHARE_FRAGMENT = "#share=";

function shareLink(sid, token) {
  return `${location.origin}${location.pathname}${SHARE_FRAGMENT}${enc(sid)}.${token}`;
}

// The share link this page was opened with, if any; it then leaves the address bar (a shared
// screen, a screenshot, a bookmark), and this tab keeps it like any session it opens.
function shareFromAddress() {
  if (!location.hash.startsWith(SHARE_FRAGMENT)) return null;
  const text = location.hash.slice(SHARE_FRAGMENT.length);
  history.replaceState(null, "", location.pathname + location.search);
  const dot = text.lastIndexOf(".");  // tokens are base64url (no dot): the last one splits
  let id = null;
  try { id = decodeURIComponent(text.slice(0, dot)); } catch (error) { id = null; }
  const token = text.slice(dot + 1);
  if (dot <= 0 || !id || !token) {
    showProblem({ title: "Not a share link", code: "invalid_share_link",
      detail: "a share link ends in #share=<session id>.<token>: copy it whole" });
    return null;
  }
  return { id, token };
}

function openFromAddress() {
  const link = shareFromAddress();
  if (link) openSession(link.id, link.token, false, true).catch(() => {});
  return !!link;
}

// A share link or code that no longer opens anything: said plainly, not as a bare 404.
function shareGone(id) {
  stopStream();
  Object.assign(app, { sid: id, token: null, session: null, past: null, presence: null,
    share: app.share || { id: null, mode: "follow", label: "" }, ended: "not found" });
  sessionStorage.removeItem(SAVED);
  hideProblem();
  setLive("ended");
  render();
}

// A handoff code: typed on another device, it opens the session with its share's token.
async function redeemCode() {
  await graphsReady;
  const code = $("redeem-code").value.trim();
  if (!code) {
    showProblem({ title: "Handoff code needed", code: "missing_input",
      detail: "type the 10-character code shown where the share was made" });
    return;
  }
  const answer = await api("POST", "/v1/handoffs", { code }, { token: null });
  $("redeem-code").value = "";
  attach(answer.session.id, answer.token, answer.session,
    { ...ownShare(answer.session), ...answer.share });
}

async function createShare() {
  if (!app.session || app.share) return;
  const sid = app.sid;
  const body = { mode: $("share-mode").value, label: $("share-label").value.trim() };
  if ($("share-with-code").checked) body.code = true;
  const answer = await api("POST", `/v1/sessions/${enc(sid)}/shares`, body);
  if (sid !== app.sid) return;
  $("share-label").value = "";
  $("share-with-code").checked = false;
  showNewShare({ ...answer.share, link: shareLink(sid, answer.token), code: answer.code });
  refresh();  // the state lists it (the stream's share.created says so too)
}

// The new share's link and code, once: the server keeps only a digest of its token. Drawn
// when made, not on every render, so that a selection in it survives the session's changes.
function showNewShare(share) {
  app.newShare = { id: share.id, seen: false };
  const link = h("code", { class: "share-link", "data-testid": "share-link" }, share.link);
  const copy = h("button", { type: "button", "data-testid": "share-copy",
    onclick: () => copyText(share.link, link, copy) }, "Copy link");
  const picture = qrCode.svg(share.link, { label: `QR code of the share link for ${share.label}` });
  picture.setAttribute("data-testid", "share-qr");
  $("share-new").replaceChildren(
    h("div", { class: "share-text" },
      h("div", { class: "hint" }, `${share.mode} link for `, h("strong", {}, share.label),
        ` · until ${localTime(new Date(share.expiresAt))} · shown only now`),
      link,
      h("div", { class: "toolbar" }, copy,
        h("button", { type: "button", class: "link", "data-testid": "share-new-close",
          onclick: hideNewShare }, "Hide")),
      share.code ? h("div", { class: "handoff" }, "Handoff code ",
        h("code", { "data-testid": "share-code", "data-code": share.code },
          share.code.replace(/^(.{5})(.+)$/, "$1-$2")),
        h("span", { class: "hint" }, " once, within 5 minutes: Redeem on the other device"))
        : null),
    picture);
  $("share-new").hidden = false;
}

function hideNewShare() {
  app.newShare = null;
  $("share-new").hidden = true;
  $("share-new").replaceChildren();
}

// The clipboard needs a secure context (https or localhost): elsewhere the text is selected
// for the user to copy.
function copyText(text, node, button) {
  const done = () => { button.textContent = "Copied"; };
  const select = () => {
    const range = document.createRange();
    range.selectNodeContents(node);
    getSelection().removeAllRanges();
    getSelection().addRange(range);
    button.textContent = "Selected: copy it";
  };
  if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(text).then(done, select);
  } else select();
}

async function revokeShare(share) {
  const sid = app.sid;
  await api("DELETE", `/v1/sessions/${enc(sid)}/shares/${enc(share.id)}`);
  if (sid === app.sid) refresh();  // 204 carries no state; the stream's share.revoked too
}

// The session's live shares, from the state, each with how many streams it has open now.
function renderShares(live) {
  const panel = $("share-panel");
  panel.hidden = !live || !!app.share;  // a share cannot share (403 share_cannot_share)
  if (panel.hidden) return;
  const shares = live.shares || [];
  // The new share's link goes once its share has left the list (revoked, expired).
  if (app.newShare) {
    if (shares.some((share) => share.id === app.newShare.id)) app.newShare.seen = true;
    else if (app.newShare.seen) hideNewShare();
  }
  $("shares").replaceChildren(...(shares.length ? shares.map((share) => {
    const watching = watchingOf(share);
    return h("li", { "data-testid": "share-row", "data-id": share.id, "data-mode": share.mode,
        "data-watching": watching },
      h("strong", { class: "label" }, share.label),
      h("span", { class: `badge ${share.mode}` }, share.mode),
      h("span", { class: "cid" }, share.id),
      h("span", { class: "hint" }, `${watching} watching · until ` +
        localTime(new Date(share.expiresAt))),
      h("span", { class: "spacer" }),
      h("button", { class: "link danger", type: "button", "data-testid": `revoke-share-${share.id}`,
        title: `end ${share.label}'s access now`, onclick: action(() => revokeShare(share)) },
        "Revoke"));
  }) : [h("li", { class: "empty" }, "No live shares")]));
}

// Streams open now with the share's token: presence is newer than the state's `watching`,
// which changes with no new version.
function watchingOf(share) {
  if (!app.presence) return share.watching || 0;
  const client = (app.presence.clients || []).find((item) => item.share === share.id);
  return client ? client.streams : 0;
}

async function loadPresence() {
  const sid = app.sid;
  const seen = app.presenceSeen;
  try {
    const presence = await api("GET", `/v1/sessions/${enc(sid)}/presence`, undefined,
      { quiet: true });
    // A presence message that came meanwhile is newer than this answer.
    if (sid === app.sid && !app.ended && seen === app.presenceSeen) setPresence(presence);
  } catch (error) {
    // Quiet: the stream's presence messages say it too.
  }
}

function setPresence(presence) {
  app.presence = presence;
  renderPresence();
  renderShares(app.session);
}

// Who else has the session open: shares by label (and mode, where the state names it), other
// windows with the session's token as a count. This page's own stream is nobody else.
function renderPresence() {
  const line = $("presence");
  line.hidden = !app.session;
  if (!app.session) return;
  if (!app.presence) { line.textContent = "Watching now: …"; return; }
  const modes = new Map((app.session.shares || []).map((share) => [share.id, share.mode]));
  const ownStream = app.streaming ? 1 : 0;
  const names = [];
  let windows = 0;
  let backend = 0;
  for (const client of app.presence.clients || []) {
    if (client.kind === "share") {
      const mine = app.share && client.share === app.share.id;
      const streams = client.streams - (mine ? ownStream : 0);
      if (streams <= 0 || mine) continue;  // another window of this same share: still me
      const mode = modes.get(client.share);
      names.push(`${client.label || client.share}${mode ? ` (${mode})` : ""}` +
        (streams > 1 ? ` ×${streams}` : ""));
    } else if (client.kind === "session") {
      windows += client.streams - (app.share ? 0 : ownStream);
    } else if (client.kind === "backend") backend += client.streams;
  }
  const others = [...names];
  if (windows > 0) {
    others.push(app.share ? "the session's owner" :
      `${windows} other window${windows === 1 ? "" : "s"} of this session`);
  }
  if (backend > 0) others.push("the backend");
  line.dataset.count = names.length;
  line.textContent = others.length ? `Watching now: ${others.join(", ")}` :
    "No one else is watching";
}

function renderShareBanner(live) {
  const banner = $("shared");
  const share = app.share;
  document.body.classList.toggle("shared-view", !!share);
  banner.hidden = !share;
  if (!share) return;
  banner.classList.toggle("ended", !!app.ended);
  banner.dataset.mode = share.mode;
  if (app.ended) {
    $("shared-title").textContent = "This share has ended";
    $("shared-detail").textContent = shareEndText(app.ended);
    return;
  }
  $("shared-title").textContent = share.mode === "drive" ? "Viewing shared session (drive)" :
    "Viewing shared session (follow, read-only)";
  $("shared-detail").textContent = [share.label ? `shared as ${share.label}` : "",
    share.expiresAt ? `until ${localTime(new Date(share.expiresAt))}` : "",
    share.mode === "drive" ? "you may navigate it; sharing or ending it is the owner's" : "",
    live ? "" : "…"].filter(Boolean).join(" · ");
}

function shareEndText(reason) {
  const texts = { revoked: "the session's owner revoked it", expired: "its time ran out",
    "not found": "revoked, expired, or the session is gone" };
  return texts[reason] || reason;
}

// The event stream: Server-Sent Events read with fetch, so the token travels in a header.
function stopStream() {
  app.generation += 1;
  app.streaming = false;
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
      const response = await fetch(`/v1/sessions/${enc(app.sid)}/events/stream`,
        { headers, signal: connection.signal, cache: "no-store" });
      if (response.status === 401 || response.status === 404) {
        if (current()) ended("not found");
        return;
      }
      if (!response.ok || !response.body) throw new Error(`events: ${response.status}`);
      if (current()) {
        setLive("live");
        app.streaming = true;
        loadPresence();  // who else is there now; the stream then says when that changes
      }
      await readFrames(response.body, arm, (frame) => { if (current()) dispatch(frame); });
    } catch (error) {
      // dropped, aborted or refused: reconnect below unless this stream was replaced
    } finally {
      clearTimeout(watchdog);
      if (generation === app.generation) app.streaming = false;
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
  // Not a change (no id, no version): who has the session open, at most once a second.
  if (frame.event === "presence") {
    app.presenceSeen += 1;
    setPresence(payload);
    return;
  }
  logEvent(frame.event, payload);
  if (frame.event === "session.ended") {
    ended(app.share ? `session ${payload.reason || "ended"}` : payload.reason);
    return;
  }
  // This page's own share is over: its stream ends after this event, and the state now
  // answers 404, so there is nothing to read again nor to reconnect to.
  if (frame.event === "share.revoked" && app.share && app.share.id &&
      payload.share === app.share.id) {
    ended(payload.reason || "revoked");
    return;
  }
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
  if (event.share) parts.push(h("span", { class: "co" }, event.share));
  if (event.label) parts.push(h("span", {}, event.label));
  if (event.mode) parts.push(h("span", { class: `badge ${event.mode}` }, event.mode));
  if (event.route) parts.push(h("span", {}, event.route));
  if (event.params && Object.keys(event.params).length) {
    parts.push(h("span", { class: "params" }, paramsText(event.params)));
  }
  if (event.presentation) parts.push(h("span", { class: "badge " + event.presentation },
    event.presentation));
  if (event.parent) parts.push(h("span", { class: "why" }, `in ${event.parent}`));
  if (event.tab !== undefined) parts.push(h("span", {}, `tab ${event.tab}`));
  if (event.redirect) parts.push(h("span", { class: "why" }, `→ ${event.redirect}`));
  if (event.reason) parts.push(h("span", { class: "why" }, event.reason));
  if (event.code) parts.push(h("span", { class: "why" }, event.code));
  if (type === "leaveGuard.changed" && event.reason === null) {
    parts.push(h("span", { class: "why" }, "cleared"));
  }
  if (event.context) parts.push(h("span", { class: "params" }, JSON.stringify(event.context)));
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

// History and time travel --------------------------------------------------------------------
// The timeline lists the session's versions, newest first, from GET .../history. After each
// newer state it asks only for what came since (`?after=` the newest it holds). A row selected
// shows the state at that version (GET ...?at=V) read only, until "Back to live" or a restore.

const HISTORY_ROWS = 500;  // the newest versions listed; older rows leave the list
const HISTORY_PAGE = 200;

function resetHistory() {
  if (app.history) clearTimeout(app.history.timer);
  app.history = { sid: app.sid, token: app.token, last: null, oldest: null, timer: null,
    busy: false, again: false };
  app.pastWanted += 1;
  $("history").replaceChildren();
  $("history-note").textContent = "";
}

// Called after every newer state: one read after a burst of changes, none when it is known.
function followHistory() {
  const history = app.history;
  if (!history || !app.session || history.sid !== app.sid) return;
  if (history.last !== null && app.session.version <= history.last) return;
  clearTimeout(history.timer);
  history.timer = setTimeout(() => loadHistory(history), 30);
}

async function loadHistory(history) {
  if (history.busy) { history.again = true; return; }
  history.busy = true;
  try {
    do {
      history.again = false;
      for (;;) {
        const live = history.last === null && app.session ? app.session.version : 0;
        const after = history.last ?? Math.max(0, live - HISTORY_ROWS);
        const page = await api("GET", `/v1/sessions/${enc(history.sid)}/history` +
          `?after=${after}&limit=${HISTORY_PAGE}`, undefined,
          { token: history.token, quiet: true });
        if (history !== app.history) return;
        history.oldest = page.oldest;
        history.last = Math.max(after, ...page.entries.map((entry) => entry.version));
        addHistory(page.entries);
        if (page.entries.length < HISTORY_PAGE) break;
      }
      // A change that came during the read, and is not in it yet, is read now.
    } while (history.again && app.session && app.session.version > history.last);
  } catch (error) {
    // Quiet: the timeline is read again after the next change.
  } finally {
    history.busy = false;
  }
}

function addHistory(entries) {
  const list = $("history");
  for (const entry of entries) {
    const when = new Date(entry.at);
    const what = describeOp(entry.op);
    list.prepend(h("li", {},
      h("button", { class: "entry", type: "button", "data-testid": "history-entry",
          "data-version": entry.version, "data-by": entry.by, "data-op": entry.op.op,
          title: `version ${entry.version}: ${what}, by ${entry.by}, ${when.toLocaleString()}`,
          onclick: action(() => viewVersion(entry)) },
        h("span", { class: "ver" }, `v${entry.version}`),
        h("span", { class: `by ${entry.by}`, "data-testid": "history-by" }, entry.by),
        h("span", { class: "what", "data-testid": "history-what" }, what),
        h("time", { datetime: entry.at }, localTime(when)))));
  }
  pruneHistory();
}

// Only kept versions can be read: older rows (and rows beyond the list's length) go.
function pruneHistory() {
  const list = $("history");
  const oldest = app.history.oldest || 0;
  while (list.children.length > HISTORY_ROWS ||
      (list.lastChild && Number(list.lastChild.firstChild.dataset.version) < oldest)) {
    list.lastChild.remove();
  }
  const shown = list.children.length;
  $("history-note").textContent = shown ? `${shown} version${shown === 1 ? "" : "s"}` +
    (oldest > 1 ? ` · kept from version ${oldest}` : "") : "";
  renderHistoryMarks();
}

// The live row and the one viewed; without a session the rows stay, unselectable.
function renderHistoryMarks() {
  const live = app.session ? app.session.version : null;
  const viewed = app.session && app.past ? app.past.version : null;
  for (const button of $("history").querySelectorAll("button.entry")) {
    const version = Number(button.dataset.version);
    button.classList.toggle("live", version === live);
    button.classList.toggle("on", version === viewed);
    button.setAttribute("aria-pressed", version === viewed ? "true" : "false");
    button.disabled = live === null;
  }
}

const localTime = (date) => {
  const today = new Date().toDateString() === date.toDateString();
  return today ? date.toLocaleTimeString([], { hour12: false }) :
    date.toLocaleString([], { hour12: false });
};

// Short: "push detail {id: 1}", "pop", "restore v2", "migrate 1→2".
function valueText(value) {
  if (value && typeof value === "object" && !Array.isArray(value)) {
    const parts = Object.entries(value).map(([key, item]) => `${key}: ${valueText(item)}`);
    return `{${parts.join(", ")}}`;
  }
  return JSON.stringify(value);
}

function describeOp(op) {
  if (!op || typeof op !== "object") return String(op);
  const params = (item) => item.params && Object.keys(item.params).length ?
    ` ${valueText(item.params)}` : "";
  const styles = { sheet: "sheet", fullScreenCover: "cover" };
  let text;
  switch (op.op) {
    case "push": text = `push ${op.route}${params(op)}${op.singleTop ? " (single top)" : ""}`;
      break;
    case "present": text = `${styles[op.style] || op.style || "present"} ${op.route}${params(op)}`;
      break;
    case "replace": text = `replace ${op.route}${params(op)}`; break;
    case "pop":
      text = op.toRoot ? "pop to root" : op.to !== undefined ? `pop to ${op.to}` :
        op.count > 1 ? `pop ${op.count}` : "pop";
      break;
    case "dismiss":
      text = op.all ? "dismiss all" : op.coordinator ? `dismiss ${op.coordinator}` : "dismiss";
      break;
    case "back": text = "back"; break;
    case "selectTab": text = `tab ${op.tab}${op.container ? ` of ${op.container}` : ""}`; break;
    case "deeplink": text = `deep link ${op.url}`; break;
    case "state": text = `path ${(op.path || []).map((item) => item.route).join(" › ")}`; break;
    case "teardown": text = `tear down ${op.coordinator}`; break;
    case "restore": text = `restore v${op.version}`; break;
    case "migrate": text = `migrate ${op.from}→${op.to}`; break;
    case "context": text = "context set"; break;
    case "fork": text = `fork of ${op.session} v${op.version}`; break;
    case "share": text = `share ${op.mode} for ${op.label}`; break;
    case "revokeShare":
      text = op.reason === "expired" ? `share ${op.share} expired` : `revoke share ${op.share}`;
      break;
    case "leaveGuard":
      text = op.reason === null || op.reason === undefined ? `leave guard of ${op.coordinator}` +
        " cleared" : `leave guard on ${op.coordinator}: ${op.reason}`;
      break;
    case "batch": text = `batch: ${(op.ops || []).map(describeOp).join("; ")}`; break;
    default: text = op.op || JSON.stringify(op);
  }
  if ("result" in op) text += ` → ${valueText(op.result)}`;
  if (op.discard) text += " (discard)";
  return text;
}

async function viewVersion(entry) {
  if (!app.session) return;
  const ticket = ++app.pastWanted;
  if (entry.version === app.session.version) { toLive(); return; }
  const sid = app.sid;
  let state;
  try {
    state = await api("GET", `/v1/sessions/${enc(sid)}?at=${entry.version}`);
  } catch (error) {
    // No longer kept (410 history_expired, with the oldest kept): its row goes.
    if (error.problem && error.problem.oldest && sid === app.sid) {
      app.history.oldest = Math.max(app.history.oldest || 0, error.problem.oldest);
      pruneHistory();
    }
    throw error;
  }
  if (ticket !== app.pastWanted || sid !== app.sid || !app.session) return;
  app.past = state;
  app.pastEntry = entry;
  render();
}

function toLive() {
  app.pastWanted += 1;
  if (!app.past) return;
  app.past = null;
  render();
}

// Restore: a new change that makes the visible path the viewed version's; a leave guard in the
// way asks first (operate), and then the page is live again.
async function restorePast() {
  if (!app.past) return;
  await operate("restore", { version: app.past.version });
  toLive();
}

function renderPast(past, live) {
  const banner = $("past");
  document.body.classList.toggle("viewing-past", !!past);
  banner.hidden = !past;
  if (!past) return;
  const entry = app.pastEntry && app.pastEntry.version === past.version ? app.pastEntry : null;
  banner.dataset.version = past.version;
  $("past-title").textContent = `Viewing version ${past.version} (read-only)`;
  $("past-detail").textContent = (entry ? `${describeOp(entry.op)} by ${entry.by}, ` +
    `${localTime(new Date(entry.at))} · ` : "") + `live is version ${live.version}`;
}

async function downloadRecording() {
  if (!app.session) return;
  const sid = app.sid;
  const recording = await api("GET", `/v1/sessions/${enc(sid)}/recording`, undefined,
    { accept: "application/x-ndjson", blob: true });
  const url = URL.createObjectURL(new Blob([recording], { type: "application/x-ndjson" }));
  const link = h("a", { href: url, download: `${sid}.ndjson`, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60000);
}

// Drawing ----------------------------------------------------------------------------------

function render() {
  const focused = document.activeElement;
  const focusId = focused && focused.dataset ? focused.dataset.testid : undefined;
  const live = app.session;
  // A past version is shown read only: what was allowed then, with every control off.
  const past = live ? app.past : null;
  const session = past || live;
  $("sid").textContent = app.sid || "–";
  $("token").textContent = app.token || "–";
  $("graph-name").textContent = live ? live.graph : "–";
  $("version").textContent = live ? live.version : "–";
  // A follow share reads only: whatever would change the session is not shown at all. A drive
  // share acts as the owner does, less what only the owner may (share it, end it).
  const share = app.share;
  const watchOnly = !!share && share.mode !== "drive";
  const readOnly = !!past || watchOnly;
  $("nav").disabled = !live || readOnly;
  $("nav-panel").hidden = watchOnly;
  $("end").disabled = !live || !!past;
  $("end").hidden = !!share;
  $("download").disabled = !live;
  $("download").hidden = watchOnly;  // not a read a follow share may make
  $("restore").hidden = watchOnly;
  document.body.classList.toggle("following", watchOnly);
  renderShareBanner(live);
  renderPast(past, live);
  renderPath(session, readOnly);
  renderContext(session);
  renderTree(session, readOnly);
  renderActions(session);
  renderShares(live);
  renderPresence();
  renderHistoryMarks();
  graphPicture.show(session);  // graph.js: the route graph, its visible path highlighted
  // A re-render replaces the forms: keep the caret where the user was typing.
  if (focusId && !document.body.contains(focused)) {
    const again = document.querySelector(`[data-testid="${CSS.escape(focusId)}"]`);
    if (again) again.focus();
  }
}

const isModal = (presentation) =>
  presentation === "sheet" || presentation === "fullScreenCover";

function renderPath(session, readOnly) {
  const box = $("path");
  box.dataset.version = session ? session.version : "";
  box.dataset.past = session && session === app.past ? "true" : "false";
  box.dataset.readOnly = readOnly ? "true" : "false";
  if (!session) {
    box.replaceChildren(h("p", { class: "empty" }, !app.ended ?
      "No session: create one or open one." : app.share ?
      `This share has ended (${shareEndText(app.ended)}).` :
      `This session has ended (${app.ended}).`));
    return;
  }
  const path = session.path;
  const allowed = session.allowed;
  let context = "root";
  let depth = 0;
  box.replaceChildren(...path.map((item, index) => {
    if (isModal(item.presentation)) { context = item.presentation; depth = 0; }
    else if (item.presentation === "push") depth += 1;
    else depth = 0;
    const active = item.id === session.active;
    const actions = [];
    if (!readOnly && isModal(item.presentation) && allowed.teardown.includes(item.id)) {
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
        item.leaveGuard ? h("span", { class: "guard", title: item.leaveGuard.reason },
          "unsaved") : null,
        h("span", { class: `badge ${item.presentation}` }, item.presentation),
        h("span", { class: "cid" }, item.id)),
      actions.length ? h("div", { class: "actions" }, actions) : null);
    if (item.presentation === "push") card.style.setProperty("--depth", Math.min(depth, 8));
    return card;
  }));
}

// The context, as the backend set it (the page cannot change it), and the request a redirect
// holds back until the context opens its route.
function renderContext(session) {
  const entries = Object.entries(session ? session.context || {} : {});
  // A follow share's state has no `context` member: it is not shown to followers.
  const withheld = session && session.context === undefined && app.share;
  $("context").replaceChildren(...(entries.length ? entries.flatMap(([key, value]) => [
    h("dt", {}, key),
    h("dd", { "data-testid": "context-entry", "data-key": key }, JSON.stringify(value))]) :
    [h("p", { class: "empty" }, withheld ? "not shown to a follow share" :
      session ? "{} — nothing set by the backend" : "–")]));
  const pending = session && session.pending;
  const box = $("pending");
  box.hidden = !pending;
  if (!pending) { box.replaceChildren(); return; }
  box.dataset.route = pending.route;
  box.dataset.op = pending.op;
  box.dataset.coordinator = pending.coordinator;
  box.replaceChildren(h("strong", {}, "Pending "),
    h("span", {}, `${pending.op} ${pending.route}`),
    pending.url ? h("span", { class: "params" }, pending.url) : null,
    h("span", { class: "hint" }, ` waits on ${pending.coordinator}: applied when the context` +
      " opens it"));
}

function renderTree(session, readOnly) {
  const tree = $("tree");
  if (!session || !session.root) { tree.replaceChildren(); return; }
  const visible = new Set(session.path.map((item) => item.id));
  const node = (item, selected) => {
    const removable = !readOnly && session.allowed.teardown.includes(item.id);
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
        selected ? h("span", { class: "mark" }, "selected") : null,
        item.leaveGuard ? h("span", { class: "guard", "data-testid": `guard-${item.id}`,
          title: "leave guard" }, item.leaveGuard.reason) : null),
      readOnly ? null : h("button", {
        class: `link guard-toggle${item.leaveGuard ? " on" : ""}`,
        "aria-pressed": item.leaveGuard ? "true" : "false",
        title: item.leaveGuard ? "clear the leave guard" : "set a leave guard (unsaved changes)",
        "data-testid": `leave-guard-${item.id}`,
        onclick: action(() => toggleLeaveGuard(item)) }, item.leaveGuard ? "unguard" : "guard"),
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

// Every control here comes from the state's `allowed` (what the server would accept now)
// and the graph's param declarations: the page holds no navigation rule of its own.
function renderActions(session) {
  const routesBox = $("routes");
  const tabsBox = $("tabs");
  routesBox.replaceChildren();
  tabsBox.replaceChildren();
  const allowed = session ? session.allowed : null;
  // A leave guard that blocks them leaves them on: pressed, they ask before discarding.
  const guarded = allowed && allowed.leaveGuard;
  for (const [id, enabled] of [["back", allowed && allowed.back], ["pop", allowed && allowed.pop],
      ["pop-root", allowed && allowed.pop], ["dismiss", allowed && allowed.dismiss],
      ["dismiss-all", allowed && allowed.dismiss]]) {
    $(id).disabled = !enabled && !guarded;
    $(id).classList.toggle("guarded", !enabled && !!guarded);
    if (!enabled && guarded) $(id).title = `asks first: ${guarded.coordinator} has unsaved changes`;
    else $(id).removeAttribute("title");
  }
  if (!session || !app.graphs[session.graph]) return;
  const graph = app.graphs[session.graph];
  const path = session.path;
  const activeItem = path[path.length - 1];

  if (allowed.tabs.length) {
    // The tab container the server acts on: the nearest one on the visible path.
    const container = [...path].reverse().map((item) => findNode(session.root, item.id))
      .find((node) => node && node.selectedTab !== undefined);
    const selected = container ? container.children[container.selectedTab] : null;
    tabsBox.append(
      h("h3", {}, `Tabs of ${container ? container.route : ""} `,
        h("span", { class: "hint" }, container ? container.id : "")),
      h("div", { class: "segmented", "data-testid": "tabs" },
        allowed.tabs.map((tab) => h("button", {
          class: selected && selected.route === tab ? "on" : "",
          "data-testid": `tab-${tab}`,
          onclick: action(() => operate("select-tab", { tab })) }, tab))));
  }

  routesBox.append(h("h3", {}, `Show from ${activeItem.route} `,
    h("span", { class: "hint" }, `${activeItem.id} · replace swaps it`)));
  const rows = h("div", { class: "rows" });
  const kinds = [["push", "push", (body) => operate("push", body)],
    ["sheet", "present-sheet", (body) => operate("present", { ...body, style: "sheet" })],
    ["fullScreenCover", "present-cover",
      (body) => operate("present", { ...body, style: "fullScreenCover" })],
    ["replace", "replace", (body) => operate("replace", body)]];
  const labels = { push: "push", sheet: "sheet", fullScreenCover: "cover", replace: "replace" };
  for (const route of graph.routes) {
    const offered = kinds.filter(([kind]) => allowed[kind].includes(route.name));
    if (!offered.length) continue;
    const row = h("div", { class: "row", "data-testid": `route-${route.name}` },
      h("span", { class: "name" }, route.name));
    row.append(...paramInputs(route, "op"));
    const body = () => ({ route: route.name, params: readParams(route, row) });
    row.append(h("span", { class: "buttons" }, offered.map(([kind, testid, work]) =>
      h("button", { "data-testid": `${testid}-${route.name}`,
        onclick: action(() => work(body())) }, labels[kind]))));
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
$("restore").addEventListener("click", action(restorePast));
$("to-live").addEventListener("click", toLive);
$("download").addEventListener("click", action(downloadRecording));
$("redeem-form").addEventListener("submit", action(redeemCode));
$("share-form").addEventListener("submit", action(createShare));
// A share link pasted into this tab's address bar opens at once.
window.addEventListener("hashchange", () => { graphsReady.then(openFromAddress, () => {}); });

render();
graphsReady.then(() => {
  // A share link opens its session; otherwise a reload keeps the session of this tab
  // (sessionStorage is per tab, never in the URL).
  if (openFromAddress()) return;
  let saved = null;
  try { saved = JSON.parse(sessionStorage.getItem(SAVED) || "null"); } catch (error) {}
  if (saved && saved.id && saved.token) {
    openSession(saved.id, saved.token, true, !!saved.share)
      .catch(() => sessionStorage.removeItem(SAVED));
  }
}).catch(() => {});
