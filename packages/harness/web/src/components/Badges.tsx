export function StatusBadge({ status }: { status: string }) {
  return <span className={`badge status-${status}`}>{status}</span>;
}

export function StateBadge({ state }: { state: string }) {
  return <span className={`badge state-${state}`}>{state === 'running' ? '● running' : state}</span>;
}

export function PassBar({ value }: { value: number | null }) {
  if (value === null) return <span className="muted">–</span>;
  return (
    <span className="passbar" title={`${(value * 100).toFixed(1)}% passed`}>
      <span className="passbar-fill" style={{ width: `${Math.round(value * 100)}%` }} />
      <span className="passbar-text">{(value * 100).toFixed(1)}%</span>
    </span>
  );
}
