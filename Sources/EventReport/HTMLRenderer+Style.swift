extension HTMLRenderer {
    /// The page's only stylesheet, inline: the system font stack, light and dark colours by
    /// `prefers-color-scheme`, chart and table side by side on wide screens and stacked on a phone.
    static let style = """
        :root {
          color-scheme: light dark;
          --bg: #ffffff; --fg: #1f2328; --muted: #59636e; --grid: #d1d9e0; --panel: #f6f8fa; --line: #d1d9e0;
          --c1: #0969da; --c2: #bc4c00; --c3: #1a7f37; --c4: #cf222e; --c5: #6e7781;
        }
        @media (prefers-color-scheme: dark) {
          :root {
            --bg: #0d1117; --fg: #e6edf3; --muted: #9198a1; --grid: #3d444d; --panel: #151b23; --line: #3d444d;
            --c1: #4493f8; --c2: #f0883e; --c3: #3fb950; --c4: #ff7b72; --c5: #8b949e;
          }
        }
        * { box-sizing: border-box; }
        body {
          margin: 0 auto; max-width: 1100px; padding: 1rem 1.25rem 2rem; background: var(--bg); color: var(--fg);
          font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "Liberation Sans", sans-serif;
        }
        h1 { font-size: 1.6rem; margin: 0.5rem 0; }
        h2 { font-size: 1.15rem; margin: 0 0 0.5rem; }
        code { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, "Liberation Mono", monospace; font-size: 0.9em; }
        .facts { display: grid; grid-template-columns: max-content 1fr; gap: 0.2rem 1rem; margin: 0 0 1rem; }
        .facts dt { font-weight: 600; }
        .facts dd { margin: 0; overflow-wrap: anywhere; }
        header .table { max-width: 40rem; }
        .summary { display: grid; grid-template-columns: repeat(auto-fit, minmax(11rem, 1fr)); gap: 0.75rem; margin: 1rem 0 1.5rem; }
        .card { background: var(--panel); border: 1px solid var(--line); border-radius: 8px; padding: 0.6rem 0.8rem; }
        .card span { display: block; }
        .card .label, .card .detail, .note, footer { color: var(--muted); font-size: 0.85rem; }
        .card .number { font-size: 1.6rem; font-weight: 650; font-variant-numeric: tabular-nums; }
        figure.chart, section.hosts {
          margin: 0 0 1.5rem; padding: 0.9rem; border: 1px solid var(--line); border-radius: 8px;
          display: grid; grid-template-columns: minmax(0, 1.2fr) minmax(0, 1fr); gap: 0.75rem 1.25rem; align-items: start;
        }
        section.hosts, figure.chart.wide { display: block; }
        figure.chart.wide .plot { margin-bottom: 0.75rem; }
        figcaption { grid-column: 1 / -1; font-weight: 650; font-size: 1.1rem; }
        .note { grid-column: 1 / -1; margin: 0; }
        @media (max-width: 760px) {
          body { padding: 0.75rem; }
          figure.chart { grid-template-columns: minmax(0, 1fr); padding: 0.6rem; }
          svg.chart { font-size: 13px; }
        }
        svg.chart { display: block; width: 100%; max-width: 440px; height: auto; font-size: 12px; overflow: visible; }
        svg.chart text { fill: var(--fg); }
        svg.chart text.muted, svg.chart .axis text { fill: var(--muted); }
        svg.chart .axis-title { fill: var(--fg); font-weight: 600; }
        svg.chart .axis-line { stroke: var(--muted); stroke-width: 1; }
        svg.chart .grid { stroke: var(--grid); stroke-width: 1; stroke-dasharray: 2 3; }
        svg.chart .value { font-variant-numeric: tabular-nums; }
        svg.chart .line { fill: none; stroke-width: 2; }
        .s1 { fill: var(--c1); stroke: var(--c1); }
        .s2 { fill: var(--c2); stroke: var(--c2); }
        .s3 { fill: var(--c3); stroke: var(--c3); }
        .s4 { fill: var(--c4); stroke: var(--c4); }
        .s5 { fill: var(--c5); stroke: var(--c5); }
        rect.s1, rect.s2, rect.s3, rect.s4, rect.s5, .s1 rect, .s2 rect, .s3 rect, .s4 rect, .s5 rect { stroke: none; }
        .table { overflow-x: auto; }
        .table.long { max-height: 32rem; overflow-y: auto; }
        .table:focus { outline: 2px solid var(--c1); }
        table { border-collapse: collapse; width: 100%; font-size: 0.85rem; font-variant-numeric: tabular-nums; }
        caption { text-align: left; color: var(--muted); font-size: 0.8rem; padding-bottom: 0.25rem; }
        th, td { padding: 0.2rem 0.4rem; border-bottom: 1px solid var(--line); }
        thead th { text-align: right; position: sticky; top: 0; background: var(--bg); vertical-align: bottom; }
        thead th:first-child, tbody th { text-align: left; font-weight: normal; overflow-wrap: anywhere; }
        tbody th { min-width: 7rem; }
        td { text-align: right; white-space: nowrap; }
        header.dashboard { display: flex; flex-wrap: wrap; align-items: center; gap: 0.5rem 1rem; margin-bottom: 0.75rem; }
        header.dashboard h1 { margin: 0 1rem 0 0; }
        header.dashboard h1 a { color: inherit; text-decoration: none; }
        .periods { display: flex; gap: 0.25rem; flex-wrap: wrap; }
        .periods a, .chip, .toggle, form.custom button {
          padding: 0.2rem 0.6rem; border: 1px solid var(--line); border-radius: 999px; color: var(--fg);
          text-decoration: none; font-size: 0.85rem; background: var(--panel);
        }
        .periods a[aria-current] { background: var(--c1); border-color: var(--c1); color: var(--bg); font-weight: 600; }
        form.custom { display: flex; flex-wrap: wrap; gap: 0.4rem; align-items: center; font-size: 0.85rem; }
        form.custom input { font: inherit; padding: 0.1rem 0.3rem; border: 1px solid var(--line); border-radius: 4px;
          background: var(--bg); color: var(--fg); }
        form.custom input[type=text] { width: 8rem; }
        form.custom button { cursor: pointer; font: inherit; }
        .chips { flex-basis: 100%; display: flex; flex-wrap: wrap; gap: 0.4rem; margin: 0; align-items: center; }
        .chip { background: var(--panel); border-color: var(--c1); }
        .toggle { border-style: dashed; }
        .muted { color: var(--muted); font-size: 0.85rem; }
        .sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
        a.filter { color: var(--c1); text-decoration: none; }
        a.filter:hover, a.filter:focus { text-decoration: underline; }
        .delta { display: block; font-size: 0.75rem; color: var(--muted); font-variant-numeric: tabular-nums; }
        .delta.up { color: var(--c3); }
        .delta.down { color: var(--c4); }
        td .delta { display: inline; margin-left: 0.25rem; }
        section.alerts { margin: 0 0 1.5rem; padding: 0.75rem 0.9rem; border: 2px solid var(--c4); border-radius: 8px; }
        section.alerts h2 { color: var(--c4); }
        section.alerts ul { margin: 0; padding-left: 1.2rem; }
        section.alerts li { margin: 0.3rem 0; }
        section.alerts p.explains { margin: 0.2rem 0 0; color: var(--muted); font-size: 0.92em; }
        section.alerts ul.explained { color: var(--muted); font-size: 0.92em; }
        section.alerts.calm { border-color: var(--line); }
        section.alerts.calm h2 { color: var(--fg); }
        @media (max-width: 760px) {
          header.dashboard { gap: 0.4rem; }
          form.custom input[type=date] { width: 9.5rem; }
          table { font-size: 0.74rem; }
          th, td { padding: 0.15rem 0.2rem; }
          tbody th { min-width: 4.5rem; }
        }
        """
}
