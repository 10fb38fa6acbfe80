/**
 * How one control-plane event reads in a report: a label, an outcome badge and key/value facts, built from the
 * event type and its recorded detail. The detail comes from the run journal as JSON that may have been cut at a
 * length limit, so an unparseable text still yields whatever complete `"key": value` pairs it holds.
 */

export type Tone = 'good' | 'bad' | 'warn' | 'muted';

export interface EventView {
  label: string;
  badge: { text: string; tone: Tone } | null;
  facts: [string, string][];
}

type Fields = Record<string, unknown>;

const PAIR = /"([A-Za-z_][\w.]*)"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|true|false|null)/g;

/** The detail as an object: parsed when it is whole JSON, else the complete scalar pairs found in it. */
export function detailFields(detail: string): Fields {
  try {
    const parsed: unknown = JSON.parse(detail);
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Fields;
    return { value: parsed };
  } catch {
    const out: Fields = {};
    for (const m of detail.matchAll(PAIR)) {
      const [, key, raw] = m;
      if (key === undefined || raw === undefined || Object.hasOwn(out, key)) continue;
      try {
        out[key] = JSON.parse(raw);
      } catch {
        out[key] = raw;
      }
    }
    return out;
  }
}

/** A value as a person reads it: lists joined, objects as `k=v`, nothing shown as a dash. */
export function valueText(v: unknown): string {
  if (v === null || v === undefined || v === '') return '-';
  if (Array.isArray(v)) return v.length === 0 ? 'none' : v.map(valueText).join(', ');
  if (typeof v === 'object')
    return Object.entries(v as Fields)
      .map(([k, x]) => `${k}=${valueText(x)}`)
      .join(', ');
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  return String(v);
}

const OUTCOME_TONE: Record<string, Tone> = {
  allow: 'good',
  allow_with_obligations: 'good',
  executed: 'good',
  approved: 'good',
  stopped: 'good',
  require_approval: 'warn',
  awaiting_approval: 'warn',
  deny: 'bad',
  denied: 'bad',
  rejected: 'bad',
  failed_closed: 'bad',
  succeeded: 'bad',
};

const badge = (text: unknown): EventView['badge'] =>
  typeof text === 'string' && text !== ''
    ? { text: text.replace(/_/g, ' '), tone: OUTCOME_TONE[text] ?? 'muted' }
    : null;

const pick = (f: Fields, keys: [string, string][]): [string, string][] =>
  keys.filter(([k]) => f[k] !== undefined).map(([k, label]) => [label, valueText(f[k])]);

/** Everything in the detail not already shown, so no recorded fact disappears from the readable row. */
const rest = (f: Fields, shown: readonly string[]): [string, string][] =>
  Object.entries(f)
    .filter(([k]) => !shown.includes(k))
    .map(([k, v]) => [k.replace(/_/g, ' '), valueText(v)]);

/** Whether a run-level attack was stopped: the verdict a reviewer looks for first. */
export function attackVerdict(f: Fields): 'stopped' | 'succeeded' | 'not attempted' {
  if (f.attempted === false) return 'not attempted';
  if (f.succeeded === true || f.honoured === true) return 'succeeded';
  return 'stopped';
}

/** The readable view of one decision-log entry (`type` is the chain event type); one fact per label. */
export function eventView(type: string, detail: string): EventView {
  const view = rawView(type, detailFields(detail));
  const seen = new Set<string>();
  return { ...view, facts: view.facts.filter(([k]) => !seen.has(k) && seen.add(k) !== undefined) };
}

function rawView(type: string, f: Fields): EventView {
  const kind = type.replace(/^(gateway|executor|execution|harness)\./, '');
  switch (type) {
    case 'gateway.policy_decision': {
      const shown = ['outcome', 'reasons', 'policies', 'risk_tier', 'version', 'digest'];
      return {
        label: 'Policy decision',
        badge: badge(f.outcome),
        facts: [
          ...pick(f, [
            ['policies', 'matched policies'],
            ['reasons', 'reasons'],
            ['risk_tier', 'risk tier'],
            ['version', 'policy version'],
          ]),
          ...rest(f, shown),
        ],
      };
    }
    case 'gateway.approval_requested':
      return {
        label: 'Approval requested',
        badge: { text: 'awaiting approval', tone: 'warn' },
        facts: [
          ...pick(f, [
            ['approval_id', 'approval'],
            ['reasons', 'reasons'],
          ]),
          ...rest(f, ['approval_id', 'reasons']),
        ],
      };
    case 'gateway.approval_decided':
      return {
        label: 'Approval decided',
        badge: badge(f.decision),
        facts: [
          ...pick(f, [
            ['approver', 'approver'],
            ['approval_id', 'approval'],
          ]),
          ...rest(f, ['decision', 'approver', 'approval_id']),
        ],
      };
    case 'gateway.executed':
      return {
        label: 'Executed',
        badge: { text: 'executed', tone: 'good' },
        facts: [
          ...pick(f, [
            ['tool', 'tool'],
            ['grant_id', 'grant'],
            ['state_changing', 'changes state'],
          ]),
          ...rest(f, ['tool', 'grant_id', 'state_changing']),
        ],
      };
    case 'execution.receipt': {
      const receipt = (f.receipt ?? {}) as Fields;
      const args = f.arguments ?? receipt.arguments;
      const facts: [string, string][] = pick(f, [
        ['tool_name', 'tool'],
        ['tool', 'tool'],
      ]);
      if (args !== null && typeof args === 'object' && !Array.isArray(args)) {
        for (const [k, v] of Object.entries(args as Fields)) facts.push([`argument ${k}`, valueText(v)]);
      }
      const id = receipt.execution_id ?? f.execution_id;
      if (id !== undefined) facts.push(['receipt', valueText(id)]);
      facts.push(
        ...pick(f, [
          ['reason_codes', 'reasons'],
          ['simulated', 'simulated'],
        ]),
      );
      return { label: 'Execution receipt', badge: badge(f.status ?? 'executed'), facts };
    }
    case 'harness.attack': {
      const verdict = attackVerdict(f);
      const detailText = f.detail && typeof f.detail === 'object' ? (f.detail as Fields) : {};
      const stoppedBy = f.stopped_by ?? detailText.executor ?? detailText.replay ?? f.executor ?? f.replay;
      const facts: [string, string][] = [['attack', valueText(String(f.attack ?? '?').replace(/_/g, ' '))]];
      if (verdict === 'stopped' && stoppedBy !== undefined) facts.push(['stopped by', valueText(stoppedBy)]);
      facts.push(...rest(f, ['attack', 'attempted', 'succeeded', 'honoured', 'stopped_by', 'detail']));
      facts.push(...rest(detailText, ['executor', 'replay']));
      return {
        label: 'Run-level attack',
        badge: { text: verdict, tone: verdict === 'succeeded' ? 'bad' : verdict === 'stopped' ? 'good' : 'muted' },
        facts,
      };
    }
    case 'gateway.execution_refused':
    case 'executor.refusal':
      return {
        label: type === 'executor.refusal' ? 'Executor refused' : 'Execution refused',
        badge: { text: 'refused', tone: 'good' },
        facts: [
          ...pick(f, [
            ['tool', 'tool'],
            ['code', 'code'],
          ]),
          ...rest(f, ['tool', 'code']),
        ],
      };
    case 'gateway.policy_unavailable':
      return { label: 'Policy unavailable', badge: { text: 'failed closed', tone: 'bad' }, facts: rest(f, []) };
    case 'gateway.approval_skipped':
      return { label: 'Approval skipped', badge: { text: 'ablated', tone: 'warn' }, facts: rest(f, []) };
    case 'gateway.approval_binding_failed':
      return { label: 'Approval not bound', badge: { text: 'failed closed', tone: 'bad' }, facts: rest(f, []) };
    default:
      return { label: kind.replace(/_/g, ' '), badge: null, facts: rest(f, []) };
  }
}
