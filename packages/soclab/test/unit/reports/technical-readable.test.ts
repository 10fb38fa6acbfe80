import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { StudyResult } from '../../../src/campaign/study.js';
import { attackVerdict, detailFields, eventView } from '../../../src/reports/event-view.js';
import { smallStudy } from '../../helpers/report-fixtures.js';
import { scratchEvidence } from '../../helpers/scratch.js';

const scratch = scratchEvidence('soclab-technical-');
let study: StudyResult;
beforeAll(async () => {
  study = await smallStudy(join(scratch.dir, 'study'), scratch.evidence);
});

/** The text of the decisions section only (between its heading and the audit chain heading). */
const decisionsSection = (html: string) => {
  const start = html.indexOf('Policy decisions, approvals and executions');
  const end = html.indexOf('Audit chain verification');
  expect(start).toBeGreaterThan(0);
  return html.slice(start, end);
};

describe('event views (degenerate inputs first)', () => {
  it('an empty or non-object detail gives no facts and no crash', () => {
    expect(eventView('gateway.policy_decision', '')).toMatchObject({
      label: 'Policy decision',
      badge: null,
      facts: [],
    });
    expect(detailFields('null')).toEqual({ value: null });
    expect(eventView('unknown.kind', '[1,2]').facts).toEqual([['value', '1, 2']]);
  });

  it('a detail cut at the journal length limit still yields its complete pairs', () => {
    const cut = '{"outcome":"deny","reasons":["tool_not_allowed"],"risk_tier":"high","digest":"abc';
    const f = detailFields(cut);
    expect(f.outcome).toBe('deny');
    expect(f.risk_tier).toBe('high');
    expect(f.digest).toBeUndefined();
    expect(eventView('gateway.policy_decision', cut).badge).toEqual({ text: 'deny', tone: 'bad' });
  });

  it('a run-level attack says whether it was stopped', () => {
    expect(attackVerdict({ attempted: true, honoured: false })).toBe('stopped');
    expect(attackVerdict({ attempted: true, succeeded: true })).toBe('succeeded');
    expect(attackVerdict({ attempted: false })).toBe('not attempted');
    const v = eventView(
      'harness.attack',
      JSON.stringify({
        attack: 'forge_grant',
        attempted: true,
        honoured: false,
        detail: { executor: 'signature_invalid' },
      }),
    );
    expect(v.badge).toEqual({ text: 'stopped', tone: 'good' });
    expect(v.facts).toContainEqual(['stopped by', 'signature_invalid']);
  });
});

describe('technical report: decisions read as rows, not JSON', () => {
  it('renders each event kind as a labelled row with a badge, grouped by scenario, raw JSON one click away', () => {
    const html = readFileSync(study.reports.main.technical, 'utf8');
    const section = decisionsSection(html);
    // One collapsible section per scenario run that had decisions.
    const runs = new Set(study.scorecards.main.decisions.map((d) => d.scenario_id));
    expect(runs.size).toBeGreaterThan(1);
    for (const id of runs)
      expect(section).toMatch(new RegExp(`<details[^>]*class="decision-group"[^>]*>\\s*<summary><b>${id}</b>`));
    expect(section).toContain('Policy decision');
    // No attack got through in protected mode, so every section starts closed (a deny is the control working).
    expect(study.scorecards.main.runs.some((r) => r.attack_succeeded)).toBe(false);
    expect(section).not.toMatch(/class="decision-group" open/);
    expect(section).toMatch(
      /<span class="badge (good|bad|warn)">(allow|deny|require approval|allow with obligations)<\/span>/,
    );
    expect(section).toContain('<dt>matched policies</dt>');
    // The raw JSON is behind a closed <details>, and nothing else in the section is a JSON blob.
    const raw = section.match(/<details class="raw">/g) ?? [];
    expect(raw.length).toBe(study.scorecards.main.decisions.length);
    const outsideRaw = section.replace(/<details class="raw">[\s\S]*?<\/details>/g, '');
    expect(outsideRaw).not.toMatch(/\{&quot;/);
    // Each event links to its run's row in the audit chain table, which carries that anchor.
    const link = section.match(/href="#(chain-[^"]+)"/);
    expect(link).not.toBeNull();
    expect(html).toContain(`id="${link![1]}"`);
  });

  it('the per-scenario table shows action arguments as a key/value list', () => {
    const html = readFileSync(study.reports.main.technical, 'utf8');
    const table = html.slice(html.indexOf('Per-scenario outcomes'), html.indexOf('Policy decisions, approvals'));
    expect(table).toMatch(/<dl class="kv"><div><dt>user_id<\/dt>/);
    expect(table).not.toContain('word-break');
  });
});
