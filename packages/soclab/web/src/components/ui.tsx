import type { ReactNode } from 'react';
import { ApiFailure } from '../api';
import { pct, pretty } from '../format';

/** A campaign status or outcome as a coloured pill. */
export function Pill({ tone, children }: { tone: 'good' | 'bad' | 'warn' | 'info' | 'muted'; children: ReactNode }) {
  return <span className={`pill ${tone}`}>{children}</span>;
}

const STATUS_TONE: Record<string, 'good' | 'bad' | 'warn' | 'info' | 'muted'> = {
  completed: 'good',
  failed: 'bad',
  running: 'info',
  queued: 'muted',
};

export const StatusPill = ({ status }: { status: string }) => (
  <Pill tone={STATUS_TONE[status] ?? 'muted'}>
    <span data-testid="campaign-status">{status}</span>
  </Pill>
);

/** The recommended authority level, the lab's headline answer. */
export function LevelBadge({ level, label, large = false }: { level: string; label?: string; large?: boolean }) {
  const n = Number(level.slice(1));
  const tone = n >= 4 ? 'good' : n >= 3 ? 'warn' : 'bad';
  return (
    <span className={`level ${tone}${large ? ' large' : ''}`} title={label}>
      {level}
      {label && large ? <small>{label}</small> : null}
    </span>
  );
}

export function ProgressBar({ done, total }: { done: number; total: number }) {
  const share = total > 0 ? Math.min(1, done / total) : 0;
  return (
    <div className="progress" role="progressbar" aria-valuemin={0} aria-valuemax={total} aria-valuenow={done}>
      <div className="progress-fill" style={{ width: `${share * 100}%` }} />
      <span className="progress-text">
        {done} / {total || '?'}
      </span>
    </div>
  );
}

/** A proportion with its Wilson 95% interval drawn on a 0-100% axis. */
export function Interval({
  value,
  ci,
  bad = false,
}: {
  value: number;
  ci: readonly [number, number] | readonly number[];
  bad?: boolean;
}) {
  const [lo = 0, hi = 0] = ci;
  return (
    <span className="interval" title={`${pct(value)} (95% CI ${pct(lo)} to ${pct(hi)})`}>
      <span className="interval-axis">
        <span
          className={`interval-range${bad ? ' bad' : ''}`}
          style={{ left: `${lo * 100}%`, width: `${(hi - lo) * 100}%` }}
        />
        <span className="interval-point" style={{ left: `${value * 100}%` }} />
      </span>
      <span className="interval-text">
        {pct(value)}{' '}
        <small>
          [{pct(lo)}, {pct(hi)}]
        </small>
      </span>
    </span>
  );
}

export function Chips({
  items,
  tone = 'muted',
}: {
  items: readonly unknown[];
  tone?: 'good' | 'bad' | 'warn' | 'info' | 'muted';
}) {
  if (items.length === 0) return <span className="muted">none</span>;
  return (
    <span className="chips">
      {items.map((item, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: static lists of strings that may repeat
        <Pill key={i} tone={tone}>
          {String(item)}
        </Pill>
      ))}
    </span>
  );
}

/** Untrusted data (model output, tool output, arguments) shown verbatim as text, never interpreted as markup. */
export function Json({ value, label }: { value: unknown; label?: string }) {
  return (
    <pre className="json" data-label={label}>
      {typeof value === 'string' ? value : pretty(value)}
    </pre>
  );
}

export function ErrorNote({ error }: { error: unknown }) {
  if (!error) return null;
  const e = error as Error;
  return (
    <div className="error" role="alert">
      <strong>{e instanceof ApiFailure ? `${e.status} ${e.code}` : 'Error'}:</strong> {e.message}
      {e instanceof ApiFailure && e.issues.length > 0 ? (
        <ul>
          {e.issues.map((i) => (
            <li key={i.path}>
              <code>{i.path}</code>: {i.message}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

export function Section({ title, children, actions }: { title: string; children: ReactNode; actions?: ReactNode }) {
  return (
    <section className="card">
      <header className="card-head">
        <h2>{title}</h2>
        {actions}
      </header>
      {children}
    </section>
  );
}
