export function StatusBadge({ status }: { status: string }) {
  return <span className={`badge status-${status}`}>{status}</span>;
}

/** Runs whose journal has not changed for 10 minutes were probably killed without their end record. */
const IDLE_AFTER_SECONDS = 600;

export function StateBadge({ state, idle }: { state: string; idle?: number | null }) {
  if (state === 'running' && idle !== undefined && idle !== null && idle >= IDLE_AFTER_SECONDS) {
    const hours = idle / 3600;
    const ago =
      hours >= 24
        ? `${Math.floor(hours / 24)} d`
        : hours >= 1
          ? `${Math.floor(hours)} h`
          : `${Math.floor(idle / 60)} min`;
    return (
      <span
        className="badge state-cancelled"
        title="no journal activity: the run was probably interrupted without an end record"
      >
        running? idle {ago}
      </span>
    );
  }
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
