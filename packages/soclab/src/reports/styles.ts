/** One stylesheet for every HTML report (inline: reports are single self-contained files). */
export const REPORT_CSS = `
:root { --ink: #1b1f24; --muted: #5b6572; --line: #d7dce2; --good: #1f7a3a; --bad: #b42318; --warn: #b26b00; --bg: #f6f8fa; }
* { box-sizing: border-box; }
body { font: 14px/1.45 -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; color: var(--ink); margin: 0; background: #fff; }
main { max-width: 1040px; margin: 0 auto; padding: 28px 32px 48px; }
h1 { font-size: 26px; margin: 0 0 4px; }
h2 { font-size: 18px; margin: 28px 0 8px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
h3 { font-size: 15px; margin: 16px 0 6px; }
.subtitle { color: var(--muted); margin: 0 0 18px; }
.meta { display: grid; grid-template-columns: repeat(4, minmax(0, 1fr)); gap: 6px 18px; font-size: 13px; margin: 12px 0; }
.meta div span { display: block; color: var(--muted); font-size: 11px; text-transform: uppercase; letter-spacing: .04em; }
.decision { border: 2px solid var(--ink); border-radius: 8px; padding: 16px 20px; margin: 12px 0 8px; display: flex; gap: 24px; align-items: center; }
.level { font-size: 44px; font-weight: 700; line-height: 1; }
.level-label { font-size: 18px; font-weight: 600; }
.verdict-ok { color: var(--good); font-weight: 600; }
.verdict-bad { color: var(--bad); font-weight: 600; }
.binding { color: var(--muted); margin-top: 4px; }
.kpis { display: grid; grid-template-columns: repeat(4, minmax(0, 1fr)); gap: 12px; margin: 12px 0; }
.kpi { background: var(--bg); border-radius: 6px; padding: 10px 12px; }
.kpi b { display: block; font-size: 22px; }
.kpi span { color: var(--muted); font-size: 12px; }
table { border-collapse: collapse; width: 100%; margin: 6px 0 10px; font-size: 13px; }
th, td { border-bottom: 1px solid var(--line); padding: 4px 6px; text-align: left; vertical-align: top; }
th { background: var(--bg); font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
.nowrap { white-space: nowrap; }
.pass { color: var(--good); font-weight: 600; }
.fail { color: var(--bad); font-weight: 600; }
.muted { color: var(--muted); }
code, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12px; overflow-wrap: anywhere; }
.chart { display: block; margin: 6px 0; }
.chart-label, .chart-value, .chart-axis { font-size: 12px; fill: var(--ink); }
.chart-axis { fill: var(--muted); font-size: 10px; }
.chart-track { fill: #eef1f4; }
.chart-good { fill: var(--good); }
.chart-warn { fill: var(--warn); }
.chart-bad { fill: var(--bad); }
.chart-grid { stroke: #e3e7eb; }
.chart-ci { stroke: var(--ink); stroke-width: 1.5; }
.badge { display: inline-block; border-radius: 9px; padding: 0 7px; font-size: 11px; font-weight: 600; margin: 1px 4px 1px 0; white-space: nowrap; background: #eef1f4; color: var(--muted); }
.badge.good { background: #e3f4e8; color: var(--good); }
.badge.bad { background: #fde8e6; color: var(--bad); }
.badge.warn { background: #fff1da; color: var(--warn); }
dl.kv { margin: 0; display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 0 10px; font-size: 12px; }
dl.kv div { display: contents; }
dl.kv dt { color: var(--muted); }
dl.kv dd { margin: 0; overflow-wrap: anywhere; }
details.decision-group { border: 1px solid var(--line); border-radius: 6px; margin: 6px 0; padding: 4px 10px; }
details.decision-group > summary { cursor: pointer; padding: 2px 0; }
details.raw > summary { cursor: pointer; color: var(--muted); font-size: 11px; }
details.raw pre { white-space: pre-wrap; overflow-wrap: anywhere; font-size: 11px; background: var(--bg); padding: 4px 6px; margin: 2px 0; }
.event-label { font-weight: 600; }
table.events { table-layout: fixed; }
table.events th:nth-child(1) { width: 56px; }
table.events th:nth-child(2) { width: 190px; }
ul.limitations li { margin: 2px 0; }
footer { color: var(--muted); font-size: 12px; margin-top: 28px; border-top: 1px solid var(--line); padding-top: 8px; }
@media print { main { padding: 0; } h2 { break-after: avoid; } tr { break-inside: avoid; } }
/* one-page summary (PDF) */
.onepage { max-width: none; padding: 0; font-size: 11px; }
.onepage h1 { font-size: 19px; }
.onepage h2 { font-size: 13px; margin: 10px 0 4px; }
.onepage .level { font-size: 34px; }
.onepage table { font-size: 10.5px; margin: 2px 0 4px; }
.onepage th, .onepage td { padding: 2px 4px; }
.onepage .kpi b { font-size: 16px; }
.onepage .cols { display: grid; grid-template-columns: 1fr 1fr; gap: 0 18px; }
.onepage footer { margin-top: 8px; font-size: 9.5px; }
`;
