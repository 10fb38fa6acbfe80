import { describe, expect, it } from 'vitest';
import { newUuid, nowUtc, Uuid } from '../../../src/contracts/common.js';
import { reproducibleScope, seededUuid, withReproducibleScope } from '../../../src/contracts/reproducible.js';
import { ApprovalService } from '../../../src/control/approvals.js';
import { GrantSigner } from '../../../src/control/grants.js';
import { makeProposal } from '../../helpers/control.js';

const EPOCH_MS = 1_700_000_000_000;
const tick = () => new Promise((resolve) => setTimeout(resolve, Math.random() * 5));

/** What one scoped "run" mints, with awaits between readings so concurrent scopes interleave. */
async function mint(): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < 5; i++) {
    out.push(newUuid(), nowUtc());
    await tick();
  }
  return out;
}

describe('reproducible clock and ids', () => {
  it('outside a seeded scope ids are random and time is the system clock (normal campaigns are unchanged)', () => {
    expect(reproducibleScope()).toBeNull();
    expect(newUuid()).not.toBe(newUuid());
    const before = Date.now();
    expect(Date.parse(nowUtc())).toBeGreaterThanOrEqual(before);
  });

  it('the same seed and scope give the same ids and times, whatever runs concurrently; another seed or scope differs', async () => {
    const run = (seed: number, name: string) => withReproducibleScope(seed, name, EPOCH_MS, mint);
    const [a, b, other, otherSeed] = await Promise.all([run(1, 'x'), run(1, 'x'), run(1, 'y'), run(2, 'x')]);
    const again = await run(1, 'x');
    expect(b).toEqual(a);
    expect(again).toEqual(a);
    expect(other[0]).not.toBe(a[0]);
    expect(otherSeed[0]).not.toBe(a[0]);
    // Ids are valid UUIDs and all distinct; times start at the epoch and advance.
    const ids = a.filter((_, i) => i % 2 === 0);
    for (const id of ids) expect(Uuid.safeParse(id).success, id).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    const times = a.filter((_, i) => i % 2 === 1).map(Date.parse);
    expect(times[0]).toBe(EPOCH_MS);
    for (let i = 1; i < times.length; i++) expect(times[i]!).toBeGreaterThan(times[i - 1]!);
  });

  it('a side writer on its own stream (the evidence store) does not shift the ids or times of the run itself', () => {
    const run = (sideReadings: number) =>
      withReproducibleScope(1, 'x', EPOCH_MS, () => {
        const main = [newUuid()];
        for (let i = 0; i < sideReadings; i++) seededUuid('evidence');
        main.push(newUuid(), nowUtc());
        return main;
      });
    expect(run(3)).toEqual(run(0));
    const side = withReproducibleScope(1, 'x', EPOCH_MS, () => seededUuid('evidence'));
    expect(side).not.toBe(run(0)[0]);
  });

  it('grants and approvals: seeded ids, nonces and signatures repeat within the same scope only', () => {
    const proposal = makeProposal('disable_account', { user_id: 'u-alex-rivera' }, { proposalId: newUuid() });
    const issue = () => {
      const signer = new GrantSigner();
      const approval = new ApprovalService().request(proposal, ['needs_approval']);
      return { grant: signer.issue(proposal, { runId: 'run-1', policyVersion: 'p1' }), approval };
    };
    const seeded = () => withReproducibleScope(3, 'run', EPOCH_MS, issue);
    const [a, b] = [seeded(), seeded()];
    expect(b.grant).toEqual(a.grant);
    expect(b.approval.approval_id).toBe(a.approval.approval_id);
    // The scoped clock: from the epoch, one tick per reading (the approval request read it first).
    expect(a.approval.requested_at).toBe(new Date(EPOCH_MS).toISOString());
    expect(a.grant.issued_at).toBe(new Date(EPOCH_MS + 1).toISOString());
    // Unseeded, the key, nonce and ids are fresh every time (the grant is unpredictable to the agent).
    const [u, v] = [issue(), issue()];
    expect(v.grant.nonce).not.toBe(u.grant.nonce);
    expect(v.grant.grant_id).not.toBe(u.grant.grant_id);
    expect(v.grant.signature).not.toBe(u.grant.signature);
    expect(u.grant.nonce).not.toBe(a.grant.nonce);
    // A seeded grant still verifies with its own signer and fails with another one.
    const signer = withReproducibleScope(3, 'run', EPOCH_MS, () => new GrantSigner());
    const grant = withReproducibleScope(3, 'run', EPOCH_MS, () =>
      signer.issue(proposal, { runId: 'run-1', policyVersion: 'p1' }),
    );
    expect(() => withReproducibleScope(3, 'run', EPOCH_MS, () => signer.verify(grant, proposal))).not.toThrow();
    expect(() => new GrantSigner().verify(grant, proposal)).toThrow();
  });
});
