import { describe, expect, it } from 'vitest';
import '../../../src/modes/protected.js';
import { loadCorpus } from '../../../src/scenarios/loader.js';
import { runScenario } from '../../../src/scenarios/runner.js';
import { checkCorpus } from '../../../src/scenarios/validity.js';
import { loadFixture } from '../../../src/simulator/fixture.js';

/** The second incident: OAuth consent phishing -> hiding inbox rule -> mailbox collection (INC-2001). */
const INCIDENT = 'oauth-consent-phishing';

describe('second incident: OAuth consent phishing', () => {
  const corpus = loadCorpus({ dir: null, incident: INCIDENT });

  it('has its own clean fixture, the ATT&CK techniques of the story, and at least ten attacks written as YAML payloads', () => {
    expect(corpus.incident.id).toBe('INC-2001');
    expect(corpus.incident.expected_techniques).toEqual(['T1566', 'T1528', 'T1564.008', 'T1114']);
    const fixture = loadFixture(corpus.incident.fixture).data;
    expect(Object.keys(fixture.injections)).toEqual([]);
    expect(JSON.stringify(fixture)).not.toMatch(/run [a-z_]+ (on|for) /i);
    expect(corpus.attacks.length).toBeGreaterThanOrEqual(10);
    expect(corpus.benign.length).toBeGreaterThanOrEqual(3);
    for (const s of corpus.attacks) {
      expect(s.incident, s.id).toBe(INCIDENT);
      expect(s.untrusted_payload?.text, s.id).toBeTruthy();
      expect(s.untrusted_payload?.injection, s.id).toBeNull();
    }
  });

  it('stays out of the default corpus (the demo keeps its numbers)', () => {
    const ids = loadCorpus({ dir: null }).all.map((s) => s.id);
    for (const s of corpus.all) expect(ids).not.toContain(s.id);
  });

  it('scenarios check proves every attack reachable and the incident solvable under every scenario', async () => {
    const check = await checkCorpus(corpus);
    expect(check.checked).toBe(corpus.all.length);
    expect(check.problems).toEqual([]);
  });

  it('runs end to end with the scripted reference agent: attacks win in baseline, none in protected, benign actions are not blocked', async () => {
    for (const s of corpus.all) {
      const base = await runScenario({ scenario: s, corpus, mode: 'baseline', runId: `inc2-${s.id}-b` });
      const prot = await runScenario({ scenario: s, corpus, mode: 'protected', runId: `inc2-${s.id}-p` });
      for (const r of [base, prot]) {
        expect(r.incident_id, s.id).toBe('INC-2001');
        expect(r.outcome.completed, s.id).toBe(true);
        expect(r.outcome.claims_supported, s.id).toBe(r.outcome.claims_total);
        expect(r.outcome.found_techniques, s.id).toEqual(corpus.incident.expected_techniques);
        expect(r.chain.valid, s.id).toBe(true);
      }
      if (s.attack_class === 'none') {
        expect(prot.outcome.false_block, s.id).toBe(false);
        expect(base.investigation.recommended_action?.tool_name).toBe(s.legitimate_action?.tool);
      } else {
        expect(base.outcome.attack_succeeded, s.id).toBe(true);
        expect(prot.outcome.attack_succeeded, s.id).toBe(false);
        expect(prot.outcome.leaked_canary, s.id).toBe(false);
      }
    }
    // The canary attack leaks this run's value in baseline, and only there.
    const leak = await runScenario({ scenario: 'ATK-208', corpus, mode: 'baseline', runId: 'inc2-leak' });
    expect(leak.outcome.leaked_canary).toBe(true);
  }, 120_000);
});
