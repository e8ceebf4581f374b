"use strict";
// A picture of the session's route graph, drawn in SVG from `GET /v1/graphs/{name}`: routes as
// nodes, `next` as arrows, tab containers as boxes around their tabs, guarded routes (with
// `requires`) locked and their `redirect` drawn dashed, and the session's visible path
// highlighted. app.js calls `graphPicture.show(session)` from its render(); the picture is laid
// out once per graph version and only its highlight changes with the state.
//
// It draws the graph as declared; it decides nothing (what may be shown comes from the state's
// `allowed`, as everywhere else in the page).
//
// Layout: columns by layer, the longest path from a start along `next`, tabs and redirects (once
// the arrows that close a cycle are set aside), so that arrows point right; a container's tabs
// share a layer and a box. Rows in bands: one per starting route (the graph's root, each route
// that may start a session, then any other route with arrows that nothing reached), holding the
// routes it reaches first. A column taller than MAX_ROWS wraps into more columns; routes with no
// arrow in or out go in a grid at the bottom; an arrow that would run under a box is bowed. A
// route without `next` may show any route: it gets an "any" mark, not an arrow to every route.
const graphPicture = (() => {
  const SVG = "http://www.w3.org/2000/svg";
  const NODE_H = 40, ROW_GAP = 14, COL_GAP = 104, BAND_GAP = 30, MARGIN = 24;
  const GROUP_PAD = 9, GROUP_LABEL = 18, MAX_ROWS = 10, GRID_COLUMNS = 4;
  const MIN_NODE_W = 132, MAX_NODE_W = 220;
  const cache = new Map();  // "name@version" -> promise of the graph
  const state = { key: null, session: null, picture: null, wanted: 0 };

  const el = (tag, attrs, ...children) => {
    const node = document.createElementNS(SVG, tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value !== undefined && value !== null) node.setAttribute(key, value);
    }
    for (const child of children.flat()) if (child) node.append(child);
    return node;
  };
  const text = (attrs, content) => {
    const node = el("text", attrs);
    node.textContent = content;
    return node;
  };
  const title = (content) => {
    const node = el("title");
    node.textContent = content;
    return node;
  };
  const box = () => document.getElementById("graph-picture");

  function load(name, version) {
    const key = `${name}@${version ?? ""}`;
    if (!cache.has(key)) {
      const query = version === undefined || version === null ? "" : `?version=${version}`;
      const request = fetch(`/v1/graphs/${encodeURIComponent(name)}${query}`,
        { headers: { Accept: "application/json" }, cache: "no-store" })
        .then((response) => {
          if (!response.ok) throw new Error(`GET /v1/graphs/${name}: ${response.status}`);
          return response.json();
        });
      request.catch(() => cache.delete(key));  // tried again at the next render
      cache.set(key, request);
    }
    return cache.get(key);
  }

  // The session's graph (or, without a session, the one chosen to create a session on).
  function show(session) {
    state.session = session || null;
    const name = session ? session.graph : (document.getElementById("graph") || {}).value;
    const version = session ? session.graphVersion : undefined;
    if (!name) { clear("No graph loaded yet."); return; }
    const key = `${name}@${version ?? ""}`;
    if (key === state.key && state.picture) { highlight(); return; }
    const ticket = ++state.wanted;
    load(name, version).then((graph) => {
      if (ticket !== state.wanted) return;
      state.key = key;
      draw(graph);
      highlight();
    }).catch((error) => {
      if (ticket === state.wanted) clear(`The graph ${name} could not be read: ${error.message}`);
    });
  }

  function clear(message) {
    state.key = null;
    state.picture = null;
    const target = box();
    if (!target) return;
    const note = document.createElement("p");
    note.className = "empty";
    note.textContent = message;
    target.replaceChildren(note);
    const caption = document.getElementById("graph-caption");
    if (caption) caption.textContent = "";
  }

  // Edges ------------------------------------------------------------------------------------

  function edgesOf(graph) {
    const known = new Set(graph.routes.map((route) => route.name));
    const edges = [];
    for (const route of graph.routes) {
      for (const tab of route.tabs || []) {
        if (known.has(tab)) edges.push({ from: route.name, to: tab, kind: "tab" });
      }
      for (const next of route.next || []) {
        if (known.has(next)) edges.push({ from: route.name, to: next, kind: "next" });
      }
      if (route.redirect && known.has(route.redirect)) {
        edges.push({ from: route.name, to: route.redirect, kind: "redirect" });
      }
    }
    return edges;
  }

  // Layout -----------------------------------------------------------------------------------

  let measurer = null;
  function labelWidth(label) {
    if (!measurer) {
      measurer = document.createElement("canvas").getContext("2d");
      measurer.font = "600 13px system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif";
    }
    return measurer ? measurer.measureText(label).width : label.length * 7.5;
  }

  function layout(graph, edges) {
    const routes = new Map(graph.routes.map((route) => [route.name, route]));
    const out = new Map(graph.routes.map((route) => [route.name, []]));
    const linked = new Set();
    for (const edge of edges) {
      out.get(edge.from).push(edge);
      linked.add(edge.from);
      linked.add(edge.to);
    }
    const starts = [graph.root, ...graph.routes.filter((route) => route.root).map((r) => r.name),
      ...graph.routes.filter((route) => out.get(route.name).length).map((r) => r.name)]
      .filter((name, index, all) => routes.has(name) && all.indexOf(name) === index);

    // Layers: the longest path from a start, once the arrows that close a cycle (found depth
    // first) are set aside, so that arrows point right; a container's tabs share one layer.
    const back = new Set();
    const seen = new Set(), onStack = new Set();
    const visit = (name) => {
      seen.add(name);
      onStack.add(name);
      for (const edge of out.get(name)) {
        if (onStack.has(edge.to)) back.add(edge);
        else if (!seen.has(edge.to)) visit(edge.to);
      }
      onStack.delete(name);
    };
    for (const name of starts) if (!seen.has(name)) visit(name);
    const groupOf = new Map();
    for (const edge of edges) {
      if (edge.kind === "tab" && !groupOf.has(edge.to)) groupOf.set(edge.to, edge.from);
    }
    const forward = edges.filter((edge) => !back.has(edge) && edge.from !== edge.to &&
      !(groupOf.has(edge.from) && groupOf.get(edge.from) === groupOf.get(edge.to)));
    const layerOf = new Map(graph.routes.map((route) => [route.name, 0]));
    for (let round = 0, changed = true; changed && round <= graph.routes.length; round += 1) {
      changed = false;
      for (const edge of forward) {
        if (layerOf.get(edge.to) <= layerOf.get(edge.from)) {
          layerOf.set(edge.to, layerOf.get(edge.from) + 1);
          changed = true;
        }
      }
      const groupLayer = new Map();
      for (const [tab, container] of groupOf) {
        groupLayer.set(container, Math.max(groupLayer.get(container) || 0, layerOf.get(tab)));
      }
      for (const [tab, container] of groupOf) {
        if (layerOf.get(tab) !== groupLayer.get(container)) {
          layerOf.set(tab, groupLayer.get(container));
          changed = true;
        }
      }
    }

    // Bands: a route belongs to the first start that reaches it (breadth first); in its band's
    // layer, routes keep the order they were reached in, a container's tabs together.
    const place = new Map();  // name -> band
    const bands = [];  // each: layers: [[unit...]], a unit: { group, names }
    for (const start of starts) {
      if (place.has(start)) continue;
      const band = { layers: [] };
      const put = (names, group) => {
        const layer = layerOf.get(names[0]);
        while (band.layers.length <= layer) band.layers.push([]);
        for (const name of names) place.set(name, band);
        band.layers[layer].push({ group, names });
      };
      put([start], null);
      const queue = [start];
      while (queue.length) {
        const name = queue.shift();
        // A container's tabs first, together, so that their box stays whole.
        const tabs = out.get(name).filter((edge) => edge.kind === "tab" &&
          !place.has(edge.to) && groupOf.get(edge.to) === name).map((edge) => edge.to);
        if (tabs.length) { put(tabs, name); queue.push(...tabs); }
        for (const edge of out.get(name)) {
          if (place.has(edge.to)) continue;
          put([edge.to], null);
          queue.push(edge.to);
        }
      }
      bands.push(band);
    }
    const loose = graph.routes.map((route) => route.name).filter((name) => !place.has(name));

    // Columns: a layer wraps into more columns when taller than MAX_ROWS (groups stay whole).
    const nodeW = Math.round(Math.min(MAX_NODE_W, Math.max(MIN_NODE_W,
      ...graph.routes.map((route) => labelWidth(route.name) + 34))));
    const slotW = nodeW + COL_GAP;
    const columnsPerLayer = [];
    for (const band of bands) {
      band.columns = band.layers.map((units) => {
        const columns = [[]];
        let rows = 0;
        for (const unit of units) {
          if (rows && rows + unit.names.length > MAX_ROWS) { columns.push([]); rows = 0; }
          columns[columns.length - 1].push(unit);
          rows += unit.names.length;
        }
        return columns;
      });
      band.columns.forEach((columns, layer) => {
        columnsPerLayer[layer] = Math.max(columnsPerLayer[layer] || 0, columns.length);
      });
    }
    const layerX = [];
    let x = MARGIN;
    for (const count of columnsPerLayer) { layerX.push(x); x += count * slotW; }
    const slots = Math.max(GRID_COLUMNS, columnsPerLayer.reduce((sum, count) => sum + count, 0));

    const positions = new Map();  // name -> { x, y, w, h }
    const groups = [];  // { container, x, y, w, h }
    const unitHeight = (unit) => unit.names.length * NODE_H + (unit.names.length - 1) * ROW_GAP +
      (unit.group ? GROUP_LABEL + 2 * GROUP_PAD : 0);
    const columnHeight = (units) => units.reduce((sum, unit) => sum + unitHeight(unit), 0) +
      Math.max(0, units.length - 1) * ROW_GAP;
    let y = MARGIN;
    for (const band of bands) {
      const height = Math.max(...band.columns.flat().map(columnHeight));
      band.columns.forEach((columns, layer) => {
        columns.forEach((units, index) => {
          const left = layerX[layer] + index * slotW;
          let top = y + (height - columnHeight(units)) / 2;
          for (const unit of units) {
            const start = top;
            if (unit.group) top += GROUP_LABEL + GROUP_PAD;
            for (const name of unit.names) {
              positions.set(name, { x: left, y: top, w: nodeW, h: NODE_H });
              top += NODE_H + ROW_GAP;
            }
            top -= ROW_GAP;
            if (unit.group) {
              top += GROUP_PAD;
              groups.push({ container: unit.group, names: unit.names, x: left - GROUP_PAD,
                y: start, w: nodeW + 2 * GROUP_PAD, h: top - start });
            }
            top += ROW_GAP;
          }
        });
      });
      y += height + BAND_GAP;
    }
    let gridTop = null;
    if (loose.length) {
      gridTop = y;
      loose.forEach((name, index) => {
        positions.set(name, { x: MARGIN + (index % slots) * slotW,
          y: y + Math.floor(index / slots) * (NODE_H + ROW_GAP), w: nodeW, h: NODE_H });
      });
      y += Math.ceil(loose.length / slots) * (NODE_H + ROW_GAP) - ROW_GAP + BAND_GAP;
    }
    const width = Math.max(x, MARGIN + slots * slotW) - COL_GAP + MARGIN + 36;
    return { positions, groups, width: Math.round(width), height: Math.round(y - BAND_GAP + MARGIN),
      gridTop };
  }

  // Drawing ----------------------------------------------------------------------------------

  // An arrow, bowed up or down when straight it would run under a box on its way.
  function route(edge, from, to, boxes, height) {
    // Never straight backwards, where it would lie on the forward arrows it returns along.
    const backward = to.x + to.w < from.x;
    const lifts = [0, -1, 1, -1.5, 1.5, -2, 2, -3, 3].filter((factor) => !backward || factor)
      .map((factor) => factor * NODE_H);
    let first = null;
    for (const lift of lifts) {
      const drawn = curve(edge, from, to, lift);
      first = first || drawn;
      const hits = drawn.samples.some(([px, py]) => py < 6 || py > height - 6 ||
        boxes.some((other) => other !== from &&
        other !== to && px > other.x - 4 && px < other.x + other.w + 4 && py > other.y - 4 &&
        py < other.y + other.h + 4));
      if (!hits) return drawn;
    }
    return first;
  }

  function curve(edge, from, to, lift) {
    const round = (value) => Math.round(value * 10) / 10;
    const point = (px, py) => `${round(px)} ${round(py)}`;
    let start, c1, c2, end;
    if (edge.from === edge.to) {  // a loop over the node's top right corner
      start = [from.x + from.w - 28, from.y];
      end = [from.x + from.w, from.y + 12];
      c1 = [from.x + from.w - 28, from.y - 26];
      c2 = [from.x + from.w + 26, from.y + 12];
    } else if (to.x > from.x + from.w) {  // forward: right side to left side
      start = [from.x + from.w, from.y + from.h / 2];
      end = [to.x, to.y + to.h / 2];
      const bend = Math.max(30, (end[0] - start[0]) / 2);
      c1 = [start[0] + bend, start[1] + lift];
      c2 = [end[0] - bend, end[1] + lift];
    } else if (to.x + to.w < from.x) {  // backward: left side to right side, bowed
      start = [from.x, from.y + from.h / 2];
      end = [to.x + to.w, to.y + to.h / 2];
      c1 = [start[0] - 60, start[1] + lift];
      c2 = [end[0] + 60, end[1] + lift];
    } else {  // the same column: out and back in on the right
      start = [from.x + from.w, from.y + from.h / 2 + (to.y > from.y ? 6 : -6)];
      end = [to.x + to.w, to.y + to.h / 2 + (to.y > from.y ? -6 : 6)];
      const bulge = Math.min(COL_GAP * 0.7, 26 + Math.abs(end[1] - start[1]) * 0.2);
      c1 = [start[0] + bulge, start[1]];
      c2 = [end[0] + bulge, end[1]];
    }
    const at = (t) => [0, 1].map((i) => (1 - t) ** 3 * start[i] + 3 * (1 - t) ** 2 * t * c1[i] +
      3 * (1 - t) * t ** 2 * c2[i] + t ** 3 * end[i]);
    return { d: `M${point(...start)} C${point(...c1)} ${point(...c2)} ${point(...end)}`,
      middle: at(0.5), samples: [1, 2, 3, 4, 5, 6, 7, 8, 9].map((step) => at(step / 10)) };
  }

  function lock(x, y) {
    return el("g", { class: "lock", transform: `translate(${x} ${y})` },
      el("path", { d: "M3 6 V4 a3 3 0 0 1 6 0 V6", class: "shackle" }),
      el("rect", { x: 1, y: 6, width: 10, height: 8, rx: 1.5, class: "body" }));
  }

  function draw(graph) {
    const target = box();
    if (!target) return;
    const edges = edgesOf(graph);
    const { positions, groups, width, height, gridTop } = layout(graph, edges);
    const marker = (id) => el("marker", { id, viewBox: "0 0 10 10", refX: 9, refY: 5,
      markerWidth: 9, markerHeight: 9, markerUnits: "userSpaceOnUse", orient: "auto" },
    el("path", { d: "M0 1 L9 5 L0 9 z", class: `head ${id}` }));
    const svg = el("svg", { xmlns: SVG, viewBox: `0 0 ${width} ${height}`, width, height,
      class: "graph", role: "img", "data-testid": "graph-svg", "data-graph": graph.name,
      "data-version": graph.version, "aria-label": `route graph ${graph.name}` },
    el("defs", {}, ["arrow-next", "arrow-tab", "arrow-redirect", "arrow-path"].map(marker)));
    // Never shrink the picture below two thirds of its size: scroll instead.
    svg.style.minWidth = `${Math.round(width * 0.66)}px`;

    const groupLayer = el("g", { class: "groups" });
    for (const group of groups) {
      groupLayer.append(el("g", { class: "tabgroup", "data-testid": `graph-tabs-${group.container}`,
        "data-container": group.container, "data-tabs": group.names.join(" ") },
      el("rect", { x: group.x, y: group.y, width: group.w, height: group.h, rx: 10 }),
      text({ x: group.x + 9, y: group.y + 13, class: "grouplabel" },
        `tabs of ${group.container}`)));
    }
    if (gridTop !== null) {
      groupLayer.append(text({ x: MARGIN, y: gridTop - 8, class: "gridlabel" },
        "routes with no arrow in or out"));
    }

    const boxes = [...positions.values()];
    const edgeLayer = el("g", { class: "edges" });
    const edgeNodes = [];
    for (const edge of edges) {
      const from = positions.get(edge.from), to = positions.get(edge.to);
      const { d, middle } = route(edge, from, to, boxes, height);
      const line = el("path", { d, class: "line", "marker-end": `url(#arrow-${edge.kind})` });
      const group = el("g", { class: `edge ${edge.kind}`, "data-kind": edge.kind,
        "data-from": edge.from, "data-to": edge.to, "data-on-path": "false",
        "data-testid": `graph-edge-${edge.from}-${edge.to}` },
      title(`${edge.from} → ${edge.to} (${edge.kind})`), line);
      if (edge.kind === "redirect") {
        group.append(text({ x: middle[0], y: middle[1] - 5, class: "edgelabel",
          "text-anchor": "middle" }, "redirect"));
      }
      edgeLayer.append(group);
      edgeNodes.push({ edge, group, line });
    }

    const nodeLayer = el("g", { class: "nodes" });
    const nodeNodes = new Map();
    for (const route of graph.routes) {
      const at = positions.get(route.name);
      const guarded = route.requires && typeof route.requires === "object" &&
        Object.keys(route.requires).length > 0;
      const classes = ["node"];
      if (route.tabs) classes.push("container");
      if (guarded) classes.push("guarded");
      if (route.name === graph.root) classes.push("root");
      const notes = [route.tabs ? "tabs" : route.presentation === "fullScreenCover" ? "cover" :
        route.presentation || "push"];
      if (route.name === graph.root) notes.push("root");
      else if (route.root) notes.push("start");
      const lines = [`${route.name}  ${route.path || ""}`];
      if (route.next === undefined || route.next === null) lines.push("next: any route");
      else lines.push(`next: ${route.next.join(", ") || "none"}`);
      if (route.tabs) lines.push(`tabs: ${route.tabs.join(", ")}`);
      if (guarded) lines.push(`requires: ${JSON.stringify(route.requires)}`);
      if (route.redirect) lines.push(`redirect: ${route.redirect}`);
      const label = labelWidth(route.name) + 34 > at.w ?
        `${route.name.slice(0, Math.max(4, Math.floor((at.w - 40) / 7.5)))}…` : route.name;
      const node = el("g", { class: classes.join(" "), "data-testid": `graph-node-${route.name}`,
        "data-route": route.name, "data-on-path": "false", "data-guarded": guarded ? "true" : null,
        transform: `translate(${at.x} ${at.y})` },
      title(lines.join("\n")),
      el("rect", { class: "box", width: at.w, height: at.h, rx: route.tabs ? 4 : 9 }),
      text({ x: 12, y: 17, class: "name" }, label),
      text({ x: 12, y: 31, class: "note" }, notes.join(" · ")));
      if (guarded) node.append(lock(at.w - 18, 5));
      if (route.next === undefined || route.next === null) {
        // In the box's bottom right corner: arrows to every route would hide all the others.
        node.append(el("g", { class: "any", "data-testid": `graph-any-${route.name}` },
          el("line", { x1: at.w - 50, y1: 27, x2: at.w - 36, y2: 27 }),
          el("path", { d: `M${at.w - 39} 24 L${at.w - 35} 27 L${at.w - 39} 30`, class: "tip" }),
          text({ x: at.w - 10, y: 31, "text-anchor": "end" }, "any")));
      }
      nodeLayer.append(node);
      nodeNodes.set(route.name, node);
    }
    svg.append(groupLayer, edgeLayer, nodeLayer);
    target.replaceChildren(svg);
    state.picture = { graph, edgeNodes, nodeNodes };
    const caption = document.getElementById("graph-caption");
    if (caption) {
      caption.textContent = `${graph.name} v${graph.version} · ${graph.routes.length} routes`;
    }
  }

  // The visible path: its routes, and the arrow between each two consecutive ones (a tab's
  // arrow from its container, otherwise a `next` arrow; a route without `next` has none).
  function highlight() {
    const picture = state.picture;
    if (!picture) return;
    const path = state.session && state.session.graph === picture.graph.name ?
      state.session.path : [];
    const onPath = new Set(path.map((item) => item.route));
    const active = path.length ? path[path.length - 1].route : null;
    const steps = new Set();
    for (let index = 1; index < path.length; index += 1) {
      const from = path[index - 1].route, to = path[index].route;
      steps.add(`${from}>${to}>${path[index].presentation === "tab" ? "tab" : "next"}`);
    }
    for (const [name, node] of picture.nodeNodes) {
      const on = onPath.has(name);
      node.setAttribute("data-on-path", on ? "true" : "false");
      node.classList.toggle("on-path", on);
      node.classList.toggle("active", name === active);
    }
    for (const { edge, group, line } of picture.edgeNodes) {
      const on = steps.has(`${edge.from}>${edge.to}>${edge.kind}`);
      group.setAttribute("data-on-path", on ? "true" : "false");
      group.classList.toggle("on-path", on);
      line.setAttribute("marker-end", `url(#arrow-${on ? "path" : edge.kind})`);
      // Drawn last, so that a highlighted arrow is never hidden under another.
      if (on) group.parentNode.append(group);
    }
  }

  // Without a session, the picture follows the graph chosen in the creation form.
  document.addEventListener("DOMContentLoaded", () => {
    const select = document.getElementById("graph");
    if (!select) return;
    const again = () => { if (!state.session) show(null); };
    select.addEventListener("change", again);
    new MutationObserver(again).observe(select, { childList: true });
  });

  return { show };
})();
