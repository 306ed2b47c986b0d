/// The report's style sheet and script, inlined into the page so it opens anywhere without a network.
enum ReportAssets {
    static let css = """
        :root { --ink: #1e293b; --muted: #64748b; --line: #e2e8f0; --paper: #ffffff; --ground: #f1f5f9; --accent: #0f766e;
          --create: #15803d; --update: #b45309; --replace: #7e22ce; --delete: #b91c1c; --dr: #c2410c; }
        * { box-sizing: border-box; }
        body { margin: 0; background: var(--ground); color: var(--ink);
          font: 14px/1.45 system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif; }
        header.top { background: linear-gradient(120deg, #0f172a, #134e4a); color: #f8fafc; padding: 28px 36px 24px; }
        header.top h1 { margin: 0 0 4px; font-size: 26px; letter-spacing: .2px; }
        header.top h1 .kind { font-weight: 400; color: #99f6e4; }
        header.top .source { color: #cbd5e1; font-size: 13px; }
        .cards { display: flex; flex-wrap: wrap; gap: 14px; margin-top: 18px; }
        .card { background: rgba(255,255,255,.08); border: 1px solid rgba(255,255,255,.14); border-radius: 12px; padding: 10px 16px; min-width: 150px; }
        .card .label { font-size: 11px; text-transform: uppercase; letter-spacing: .08em; color: #a7f3d0; }
        .card .value { font-size: 21px; font-weight: 650; font-variant-numeric: tabular-nums; }
        .card .hint { font-size: 12px; color: #cbd5e1; }
        main { padding: 22px 36px 60px; max-width: 1560px; }
        section { background: var(--paper); border: 1px solid var(--line); border-radius: 14px; padding: 18px 22px; margin-bottom: 22px;
          box-shadow: 0 1px 2px rgba(15,23,42,.04); }
        section > h2 { margin: 0 0 4px; font-size: 18px; }
        section > p.lead { margin: 0 0 14px; color: var(--muted); }
        .toolbar { display: flex; flex-wrap: wrap; align-items: center; gap: 10px; margin: 0 0 12px; }
        .toolbar input { font: inherit; padding: 6px 10px; border: 1px solid #cbd5e1; border-radius: 8px; width: 260px; }
        .toolbar button { font: inherit; font-size: 13px; border: 1px solid #cbd5e1; background: #fff; border-radius: 999px; padding: 4px 12px;
          cursor: pointer; display: inline-flex; align-items: center; gap: 6px; }
        .toolbar button .dot { width: 10px; height: 10px; border-radius: 50%; background: var(--c); display: inline-block; }
        .toolbar button[aria-pressed="true"] { border-color: var(--c); box-shadow: 0 0 0 2px color-mix(in srgb, var(--c) 30%, transparent); }
        .legend { display: flex; flex-wrap: wrap; gap: 16px; color: var(--muted); font-size: 12px; margin-left: auto; }
        .legend i { display: inline-block; width: 26px; height: 12px; border-radius: 6px; border: 1.5px solid #475569; background: #e2e8f0;
          vertical-align: -2px; margin-right: 5px; }
        .legend i.primary { border-radius: 3px; background: #cbd5e1; border-width: 2px; }
        .legend i.backup { border-style: dashed; background: #fff; border-radius: 3px; }
        .legend i.cdn { border-style: dotted; border-radius: 3px; background: #fff; }
        .legend i.dr { border: none; border-top: 2px dashed var(--dr); border-radius: 0; height: 0; width: 28px; background: none; }
        .scroll { overflow: auto; border: 1px solid var(--line); border-radius: 10px; background: #fbfdff; }
        svg text { font-family: system-ui, "DejaVu Sans", sans-serif; }
        .column-title { font-size: 12px; font-weight: 650; fill: var(--muted); text-transform: uppercase; letter-spacing: .08em; }
        .group-box { fill: color-mix(in srgb, var(--tint) 7%, #ffffff); stroke: color-mix(in srgb, var(--tint) 30%, #ffffff); }
        .group-key { font-size: 19px; font-weight: 750; fill: #0f172a; }
        .group-note { font-size: 12px; fill: var(--muted); }
        .cloud-box { fill: #ffffff; stroke: #cbd5e1; }
        .cloud.unused .cloud-box { fill: #f8fafc; stroke-dasharray: 4 3; }
        .cloud.unused .cloud-name { fill: #94a3b8; }
        .cloud-name { font-size: 14px; font-weight: 700; fill: #0f172a; }
        .cloud-meta { font-size: 11.5px; fill: var(--muted); }
        .cloud-cost { font-size: 12.5px; font-weight: 650; fill: #0f172a; text-anchor: end; font-variant-numeric: tabular-nums; }
        .bar-track { fill: #e2e8f0; }
        .bar { fill: var(--accent); }
        .chip rect { fill: color-mix(in srgb, var(--c) 13%, #ffffff); stroke: var(--c); stroke-width: 1.2; }
        .chip.primary rect { fill: color-mix(in srgb, var(--c) 26%, #ffffff); stroke-width: 2; }
        .chip.backup rect { fill: #ffffff; stroke-dasharray: 4 3; }
        .chip.cdn rect { fill: #ffffff; stroke-dasharray: 1.5 2.5; stroke-width: 1.6; }
        .chip text { font: 11px "DejaVu Sans Mono", Menlo, Consolas, monospace; fill: #0f172a; }
        .chip.backup text { fill: #475569; font-style: italic; }
        .chip .db-icon { fill: none; stroke: var(--c); stroke-width: 1.3; }
        .chip { cursor: pointer; }
        .chip:hover rect, .chip.selected rect { stroke-width: 2.6; filter: drop-shadow(0 1px 2px rgba(15,23,42,.3)); }
        .link path { fill: none; stroke: var(--c); stroke-linecap: round; }
        .link .rail { stroke-width: 3; stroke-opacity: .75; }
        .link .branch { stroke-opacity: .45; }
        .link .branch:hover { stroke-opacity: .9; }
        .link circle { fill: var(--c); }
        .leg { fill: none; stroke: var(--dr); stroke-width: 1.6; stroke-dasharray: 5 3; }
        .dr-head { fill: var(--dr); }
        .leg-count { font-size: 11px; font-weight: 700; fill: var(--dr); }
        .audience-box { fill: #ffffff; stroke: var(--c); stroke-width: 1.5; }
        .audience { cursor: pointer; }
        .audience-name { font-size: 17px; font-weight: 750; fill: #0f172a; }
        .audience-line { font-size: 11.5px; fill: #334155; }
        .audience-line.first { fill: var(--muted); }
        .dim { opacity: .14; }
        .costs .cost-name { font-size: 12.5px; text-anchor: end; fill: #0f172a; }
        .costs .cost-amount { font-size: 12.5px; fill: #334155; font-variant-numeric: tabular-nums; }
        table { border-collapse: collapse; width: 100%; font-size: 13px; }
        th, td { text-align: left; padding: 5px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
        th { font-size: 11px; text-transform: uppercase; letter-spacing: .06em; color: var(--muted); font-weight: 650; }
        td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
        details.group > summary { font-weight: 700; font-size: 15px; padding: 8px 0; cursor: pointer; }
        details.cell { border: 1px solid var(--line); border-radius: 10px; margin: 6px 0; background: #fff; }
        details.cell[open] { box-shadow: 0 2px 10px rgba(15,23,42,.08); }
        details.cell > summary { display: grid; grid-template-columns: minmax(180px, 1.2fr) 90px 2fr 140px; gap: 10px; padding: 8px 12px;
          cursor: pointer; align-items: baseline; }
        details.cell > summary::-webkit-details-marker { display: none; }
        .cell-name { font-family: "DejaVu Sans Mono", Menlo, Consolas, monospace; font-weight: 700; }
        .kind { font-size: 11px; text-transform: uppercase; letter-spacing: .06em; color: var(--muted); }
        .kind.database { color: #0f766e; }
        .where { color: #334155; }
        .amount { text-align: right; font-variant-numeric: tabular-nums; }
        .cell-body { padding: 0 14px 12px; }
        .why { margin: 4px 0 8px; color: #334155; }
        .runner-up { margin: 0 0 8px; }
        p.rules { margin: 0 0 6px; font-size: 13px; color: #334155; }
        .sub { margin: 12px 0 4px; font-size: 11px; text-transform: uppercase; letter-spacing: .08em; color: var(--muted); font-weight: 650; }
        .verdict { display: inline-block; white-space: nowrap; padding: 0 8px; border-radius: 999px; font-size: 11.5px; background: #e2e8f0; }
        tr.v-chosen .verdict { background: #dcfce7; color: #166534; font-weight: 700; }
        tr.v-runner-up .verdict { background: #dbeafe; color: #1e40af; font-weight: 700; }
        tr.v-full .verdict { background: #fee2e2; color: #991b1b; }
        tr.v-no-backup .verdict { background: #ffedd5; color: #9a3412; }
        ul.reasons { margin: 0; padding-left: 18px; font-size: 13px; color: #334155; }
        .cloud-ref { font-weight: 650; }
        .filter { font-size: 11px; border-radius: 4px; padding: 0 5px; background: #f1f5f9; color: #475569; }
        .filter.f-residency { background: #ede9fe; color: #5b21b6; }
        .filter.f-latency { background: #e0f2fe; color: #075985; }
        .filter.f-capacity { background: #fee2e2; color: #991b1b; }
        .filter.f-cost { background: #fef9c3; color: #854d0e; }
        .filter.f-dr { background: #ffedd5; color: #9a3412; }
        .summary .count, summary .count { display: inline-block; border-radius: 999px; padding: 0 9px; font-size: 12.5px; margin-right: 4px; background: #f1f5f9; }
        .a-create { --a: var(--create); } .a-update { --a: var(--update); } .a-replace { --a: var(--replace); } .a-delete { --a: var(--delete); }
        .count[class*="a-"] { color: var(--a); border: 1px solid color-mix(in srgb, var(--a) 40%, #fff); }
        details.changes { border-top: 1px solid var(--line); padding: 6px 0; }
        details.changes > summary { cursor: pointer; padding: 4px 0; }
        ul.change-list { list-style: none; margin: 4px 0 8px; padding: 0 0 0 10px; font-size: 12.5px; }
        ul.change-list li { padding: 1px 0; }
        ul.change-list .symbol { display: inline-block; width: 2.2em; font-weight: 800; color: var(--a); font-family: "DejaVu Sans Mono", monospace; }
        code { font-family: "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 12px; }
        .muted { color: var(--muted); }
        .drift { color: var(--update); padding-left: 2.6em; }
        .note { background: #f0fdfa; border: 1px solid #99f6e4; border-radius: 10px; padding: 10px 14px; color: #134e4a; }
        aside#inspector { position: fixed; top: 0; right: 0; width: min(620px, 96vw); height: 100vh; overflow: auto; background: #fff;
          border-left: 1px solid var(--line); box-shadow: -12px 0 30px rgba(15,23,42,.18); padding: 18px 22px; z-index: 10; }
        aside#inspector[hidden] { display: none; }
        aside#inspector h3 { margin: 0 36px 2px 0; font-family: "DejaVu Sans Mono", Menlo, monospace; }
        aside#inspector .close { position: absolute; top: 12px; right: 14px; font-size: 22px; border: none; background: none; cursor: pointer; color: var(--muted); }
        footer { color: var(--muted); font-size: 12px; padding: 0 36px 30px; }
        """

    /// Chips open their cell in the side panel; the filter and the audience buttons dim the rest. Marks the page ready
    /// when it has run, which the report's test checks.
    static let script = """
        (function () {
          var panel = document.getElementById("inspector");
          var title = document.getElementById("inspector-title");
          var body = document.getElementById("inspector-body");
          var chips = Array.prototype.slice.call(document.querySelectorAll(".map .chip"));
          var links = Array.prototype.slice.call(document.querySelectorAll(".map .link"));
          var cells = Array.prototype.slice.call(document.querySelectorAll("details.cell"));
          var query = document.getElementById("filter");
          var focus = null;
          function open(name) {
            var cell = document.getElementById("cell-" + name);
            if (!cell) { return; }
            title.textContent = name;
            body.innerHTML = cell.querySelector("summary .where").outerHTML + cell.querySelector(".cell-body").innerHTML;
            panel.hidden = false;
            chips.forEach(function (chip) { chip.classList.toggle("selected", chip.getAttribute("data-cell") === name); });
          }
          function close() {
            panel.hidden = true;
            chips.forEach(function (chip) { chip.classList.remove("selected"); });
          }
          function apply() {
            var text = query.value.trim().toLowerCase();
            chips.forEach(function (chip) {
              var name = chip.getAttribute("data-cell").toLowerCase();
              var hidden = (text && name.indexOf(text) < 0) || (focus !== null && chip.getAttribute("data-audience") !== focus);
              chip.classList.toggle("dim", !!hidden);
            });
            links.forEach(function (link) {
              link.classList.toggle("dim", focus !== null && link.getAttribute("data-audience") !== focus);
            });
            cells.forEach(function (cell) {
              cell.hidden = !!text && cell.getAttribute("data-cell").toLowerCase().indexOf(text) < 0;
            });
          }
          chips.forEach(function (chip) {
            chip.addEventListener("click", function (event) { event.preventDefault(); open(chip.getAttribute("data-cell")); });
          });
          function toggle(key) {
            focus = focus === key ? null : key;
            document.querySelectorAll("button[data-focus]").forEach(function (button) {
              button.setAttribute("aria-pressed", String(button.getAttribute("data-focus") === focus));
            });
            apply();
          }
          document.querySelectorAll("button[data-focus]").forEach(function (button) {
            button.addEventListener("click", function () { toggle(button.getAttribute("data-focus")); });
          });
          document.querySelectorAll(".map .audience").forEach(function (box) {
            box.addEventListener("click", function () { toggle(box.getAttribute("data-audience")); });
          });
          query.addEventListener("input", apply);
          document.getElementById("inspector-close").addEventListener("click", close);
          document.addEventListener("keydown", function (event) { if (event.key === "Escape") { close(); } });
          if (location.hash.indexOf("#cell-") === 0) { open(decodeURIComponent(location.hash.slice(6))); }
          document.documentElement.setAttribute("data-ready", "true");
        })();
        """
}
