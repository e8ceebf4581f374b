extension WebClientPage {
  /// The page's style sheet, served at `/app.css`.
  static let style: [UInt8] = Array(styleSource.utf8)

  private static let styleSource = #"""
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
    button:disabled, button:disabled:hover { opacity: .45; cursor: not-allowed;
      background: #fff; }
    button.primary:disabled { background: var(--accent); }
    input[aria-invalid="true"] { border-color: var(--bad); outline: 2px solid var(--bad-soft); }
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
    """#
}
