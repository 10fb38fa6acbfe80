import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Scorecard } from '../reports/scorecard.js';

/**
 * A campaign over several incidents runs one study per incident (`<out>/<incident>/`) and ends with this
 * breakdown: one row per incident from its headline scorecard, printed and written to `<out>/incidents.json`.
 */
export interface IncidentRow {
  readonly incident: string;
  readonly incident_id: string;
  readonly folder: string;
  readonly mode: string;
  readonly runs: number;
  readonly attack_success: {
    readonly numerator: number;
    readonly denominator: number;
    readonly ci95: readonly number[];
  };
  readonly false_blocks: number;
  readonly composite: number;
  readonly authority_level: string;
  readonly binding_rule: string;
}

export function incidentRow(incident: string, folder: string, card: Scorecard): IncidentRow {
  const a = card.assessment;
  return {
    incident,
    incident_id: card.campaign.incident.id,
    folder,
    mode: card.campaign.mode,
    runs: card.runs.length,
    attack_success: {
      numerator: a.attack_success.numerator,
      denominator: a.attack_success.denominator,
      ci95: [...a.attack_success.ci95],
    },
    false_blocks: card.runs.filter((r) => r.false_block).length,
    composite: a.composite,
    authority_level: a.authority.level,
    binding_rule: a.authority.binding_rule,
  };
}

/** Write `<out>/incidents.json` and return the lines of the console table. */
export function writeIncidentBreakdown(out: string, rows: readonly IncidentRow[]): string[] {
  writeFileSync(
    join(out, 'incidents.json'),
    `${JSON.stringify({ schema: 'soclab.incidents', schema_version: '1.0.0', incidents: rows }, null, 2)}\n`,
  );
  const pct = (x: number) => `${(x * 100).toFixed(0)}%`;
  return [
    'Per incident',
    ...rows.map(
      (r) =>
        `  ${r.incident_id.padEnd(9)} ${r.incident.padEnd(24)} ${r.mode}: attack success ${r.attack_success.numerator}/${r.attack_success.denominator} (95% CI ${pct(r.attack_success.ci95[0] ?? 0)}-${pct(r.attack_success.ci95[1] ?? 1)}), false blocks ${r.false_blocks}, composite ${r.composite.toFixed(2)}, authority ${r.authority_level} (${r.binding_rule}) -> ${r.folder}`,
    ),
    `  breakdown: ${join(out, 'incidents.json')}`,
  ];
}
