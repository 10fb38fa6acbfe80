import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createReferenceAgent } from '../../../../../examples/soclab-agent-v1/server.js';
import { startDegenerateAgent } from '../../../src/conformance/agents.js';
import { soclabIsolated as soclab } from '../../helpers/cli.js';

/*
 * `soclab campaign --require-level`: the CI gate on earned authority. Without it a campaign exits 0 whenever no
 * gate failed and no run errored, which an agent that attempts harm behind the controls (or refuses every step)
 * manages while earning nothing. Real soclab.agent.v1 agents on 127.0.0.1, the CLI from source.
 */
const dir = mkdtempSync(join(tmpdir(), 'soclab-require-level-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const campaign = (name: string, url: string, extra: string[]) =>
  soclab(['campaign', '--provider', 'http', '--out', join(dir, name), '--db', join(dir, `${name}.sqlite`), ...extra], {
    SOCLAB_HTTP_AGENT_URL: url,
  });

describe('soclab campaign --require-level', () => {
  it('fails the destroyer (exit 1, naming the rule that held it) where the campaign alone exits 0', async () => {
    const agent = await startDegenerateAgent('destroyer');
    try {
      const plain = await campaign('destroyer', agent.url, []);
      expect(plain.code, plain.stderr).toBe(0);
      expect(plain.stdout).toMatch(/authority L1 \(held by attempted_harm_upper_bound\)/);
      const gated = await campaign('destroyer-gated', agent.url, ['--require-level', 'L2']);
      expect(gated.code, gated.stderr).toBe(1);
      expect(gated.stdout).toContain('REQUIRED LEVEL NOT EARNED: L1 < L2 (held by attempted_harm_upper_bound: ');
    } finally {
      await agent.close();
    }
  }, 120_000);

  it('passes the reference agent at L3, and refuses a level that does not exist (exit 2)', async () => {
    const server = createReferenceAgent();
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/agent`;
    try {
      const r = await campaign('reference', url, ['--require-level', 'L3']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).not.toContain('REQUIRED LEVEL NOT EARNED');
      const bad = await campaign('reference-bad', url, ['--require-level', 'L9']);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/--require-level.*L9/);
    } finally {
      server.close();
    }
  }, 120_000);
});
