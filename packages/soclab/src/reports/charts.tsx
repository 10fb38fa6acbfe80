/** @jsxRuntime automatic */
/** @jsxImportSource react */
import type { FamilyScore, Proportion } from '../scoring/result.js';
import { FAMILY_NAMES, fixed, pct } from './format.js';

/** Inline SVG charts: no scripts, no external resources, readable when printed. */

const BAR_W = 260;

/** One horizontal bar per family (score 0..1), with the weight in the label. */
export function FamilyBars({ families }: { families: readonly FamilyScore[] }) {
  const rowH = 22;
  const labelW = 190;
  const height = families.length * rowH + 6;
  return (
    <svg
      className="chart"
      role="img"
      aria-label="Score by family"
      width={labelW + BAR_W + 60}
      height={height}
      viewBox={`0 0 ${labelW + BAR_W + 60} ${height}`}
    >
      {families.map((f, i) => {
        const y = i * rowH + 3;
        const w = Math.max(0, Math.min(1, f.value)) * BAR_W;
        return (
          <g key={f.family}>
            <text x={0} y={y + 14} className="chart-label">
              {FAMILY_NAMES[f.family]} ({fixed(f.weight, 2)})
            </text>
            <rect x={labelW} y={y + 2} width={BAR_W} height={14} className="chart-track" />
            <rect x={labelW} y={y + 2} width={w} height={14} className={f.value >= 0.8 ? 'chart-good' : 'chart-warn'} />
            <text x={labelW + BAR_W + 6} y={y + 14} className="chart-value">
              {fixed(f.value, 3)}
            </text>
          </g>
        );
      })}
    </svg>
  );
}

/** Rates with their 95% intervals on a shared 0-100% axis (one row per labelled proportion). */
export function IntervalChart({ rows }: { rows: readonly { label: string; p: Proportion; bad?: boolean }[] }) {
  const rowH = 26;
  const labelW = 170;
  const height = rows.length * rowH + 20;
  const x = (v: number) => labelW + Math.max(0, Math.min(1, v)) * BAR_W;
  return (
    <svg
      className="chart"
      role="img"
      aria-label="Rates with 95% intervals"
      width={labelW + BAR_W + 70}
      height={height}
      viewBox={`0 0 ${labelW + BAR_W + 70} ${height}`}
    >
      {[0, 0.25, 0.5, 0.75, 1].map((t) => (
        <g key={t}>
          <line x1={x(t)} x2={x(t)} y1={0} y2={height - 16} className="chart-grid" />
          <text x={x(t)} y={height - 4} className="chart-axis" textAnchor="middle">
            {pct(t, 0)}
          </text>
        </g>
      ))}
      {rows.map((r, i) => {
        const y = i * rowH + 8;
        return (
          <g key={r.label}>
            <text x={0} y={y + 8} className="chart-label">
              {r.label}
            </text>
            <line x1={x(r.p.ci95[0])} x2={x(r.p.ci95[1])} y1={y + 4} y2={y + 4} className="chart-ci" />
            <line x1={x(r.p.ci95[0])} x2={x(r.p.ci95[0])} y1={y} y2={y + 8} className="chart-ci" />
            <line x1={x(r.p.ci95[1])} x2={x(r.p.ci95[1])} y1={y} y2={y + 8} className="chart-ci" />
            <circle cx={x(r.p.value)} cy={y + 4} r={4.5} className={r.bad ? 'chart-bad' : 'chart-good'} />
            <text x={labelW + BAR_W + 8} y={y + 8} className="chart-value">
              {pct(r.p.value)}
            </text>
          </g>
        );
      })}
    </svg>
  );
}
