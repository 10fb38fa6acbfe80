/** @jsxRuntime automatic */
/** @jsxImportSource react */
/** Inline SVG charts for the HTML report: no scripts, no network, text escaped by React. */

export interface StatusCounts {
  passed: number;
  failed: number;
  error: number;
  skipped: number;
}

const COLORS = { passed: '#1a7f37', failed: '#cf222e', error: '#bf8700', skipped: '#8c959f', bar: '#0969da' };

/** One stacked bar of case outcomes with a legend. */
export function StatusBar({ counts }: { counts: StatusCounts }) {
  const total = counts.passed + counts.failed + counts.error + counts.skipped;
  const keys = ['passed', 'failed', 'error', 'skipped'] as const;
  let x = 0;
  const label = keys.map((k) => `${counts[k]} ${k}`).join(', ');
  return (
    <svg className="chart status-bar" viewBox="0 0 400 62" role="img" aria-label={`Outcomes: ${label}`}>
      <title>{`Outcomes: ${label}`}</title>
      <text x={0} y={12} fontSize={12} fontWeight="600">
        Outcomes
      </text>
      {total === 0 ? <rect x={0} y={18} width={400} height={20} fill="#eaeef2" /> : null}
      {keys.map((k) => {
        const w = total > 0 ? (counts[k] / total) * 400 : 0;
        const rect = w > 0 ? <rect key={k} x={x} y={18} width={w} height={20} fill={COLORS[k]} /> : null;
        x += w;
        return rect;
      })}
      {keys.map((k, i) => (
        <g key={`l-${k}`} transform={`translate(${i * 100}, 46)`}>
          <rect width={10} height={10} fill={COLORS[k]} />
          <text x={14} y={9} fontSize={11}>{`${k} ${counts[k]}`}</text>
        </g>
      ))}
    </svg>
  );
}

export interface HistogramProps {
  title: string;
  bins: readonly number[];
  min: number;
  max: number;
  unit?: string;
  color?: string;
}

/** A histogram with the range on the x axis and the tallest bin's count on the y axis. */
export function Histogram({ title, bins, min, max, unit = '', color = COLORS.bar }: HistogramProps) {
  const width = 320;
  const height = 120;
  const top = Math.max(1, ...bins);
  const bw = width / Math.max(1, bins.length);
  const fmt = (v: number) => `${Number(v.toPrecision(3))}${unit}`;
  return (
    <svg className="chart histogram" viewBox={`0 0 ${width + 40} ${height + 36}`} role="img" aria-label={title}>
      <title>{title}</title>
      <text x={0} y={12} fontSize={12} fontWeight="600">
        {title}
      </text>
      <g transform="translate(30, 18)">
        <line x1={0} y1={height} x2={width} y2={height} stroke="#8c959f" />
        <text x={-4} y={8} fontSize={10} textAnchor="end">
          {String(top)}
        </text>
        <text x={-4} y={height} fontSize={10} textAnchor="end">
          0
        </text>
        {bins
          .map((count, i) => ({
            count,
            i,
            lo: min + ((max - min) * i) / bins.length,
            hi: min + ((max - min) * (i + 1)) / bins.length,
          }))
          .map((b) => {
            const h = (b.count / top) * (height - 4);
            return (
              <rect
                key={`bin-${b.lo}`}
                x={b.i * bw + 1}
                y={height - h}
                width={Math.max(1, bw - 2)}
                height={h}
                fill={color}
              >
                <title>{`${fmt(b.lo)} – ${fmt(b.hi)}: ${b.count}`}</title>
              </rect>
            );
          })}
        <text x={0} y={height + 14} fontSize={10}>
          {fmt(min)}
        </text>
        <text x={width} y={height + 14} fontSize={10} textAnchor="end">
          {fmt(max)}
        </text>
      </g>
    </svg>
  );
}

export interface TagStat {
  tag: string;
  passed: number;
  total: number;
}

/** Pass rate per tag, most frequent tags first. */
export function TagBars({ tags }: { tags: readonly TagStat[] }) {
  const rowH = 18;
  const labelW = 140;
  const barW = 200;
  const height = tags.length * rowH + 20;
  return (
    <svg
      className="chart tags"
      viewBox={`0 0 ${labelW + barW + 90} ${height}`}
      role="img"
      aria-label="Pass rate by tag"
    >
      <title>Pass rate by tag</title>
      <text x={0} y={12} fontSize={12} fontWeight="600">
        Pass rate by tag
      </text>
      {tags.map((t, i) => {
        const rate = t.total > 0 ? t.passed / t.total : 0;
        const y = 20 + i * rowH;
        return (
          <g key={t.tag} transform={`translate(0, ${y})`}>
            <text x={labelW - 6} y={12} fontSize={11} textAnchor="end">
              {t.tag.length > 22 ? `${t.tag.slice(0, 21)}…` : t.tag}
            </text>
            <rect x={labelW} y={2} width={barW} height={12} fill="#eaeef2" />
            <rect
              x={labelW}
              y={2}
              width={rate * barW}
              height={12}
              fill={rate >= 0.8 ? COLORS.passed : rate >= 0.5 ? COLORS.error : COLORS.failed}
            />
            <text x={labelW + barW + 6} y={12} fontSize={11}>
              {`${Math.round(rate * 100)}% (${t.passed}/${t.total})`}
            </text>
          </g>
        );
      })}
    </svg>
  );
}

/** A point estimate with its interval on a 0..1 scale. */
export function IntervalStrip({ value, lower, upper }: { value: number; lower: number; upper: number }) {
  const s = (v: number) => 4 + Math.min(1, Math.max(0, v)) * 112;
  return (
    <svg
      className="interval"
      viewBox="0 0 120 14"
      width={120}
      height={14}
      role="img"
      aria-label={`${value} in [${lower}, ${upper}]`}
    >
      <line x1={4} y1={7} x2={116} y2={7} stroke="#d0d7de" />
      <line x1={s(lower)} y1={7} x2={s(upper)} y2={7} stroke="#0969da" strokeWidth={3} />
      <line x1={s(lower)} y1={3} x2={s(lower)} y2={11} stroke="#0969da" />
      <line x1={s(upper)} y1={3} x2={s(upper)} y2={11} stroke="#0969da" />
      <circle cx={s(value)} cy={7} r={3.5} fill="#0a3069" />
    </svg>
  );
}
