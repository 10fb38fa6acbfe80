import { parseContract } from '../contracts/common.js';
import { ActionProposal } from '../contracts/models.js';
import { type ChainRow, verifyRows } from '../evidence/hash-chain.js';

/**
 * Run-level attacks that do not depend on the mode's control plane. The others (forge_grant,
 * approve_then_replay, mutate_after_grant) are carried out through the mode's harness hooks.
 */

/**
 * Copy the run's stored rows, set `payload.tampered = true` on the middle event and verify the copy. The store is
 * untouched. Returns whether the tampered copy still verified (it must not) and where verification failed.
 */
export function tamperCopy(runId: string, rows: readonly ChainRow[]) {
  if (rows.length === 0)
    return { verified: false, first_invalid_sequence: null, reason: 'empty chain', sequence: null };
  const copy = rows.map((r) => ({ ...r }));
  const index = Math.floor(copy.length / 2);
  const target = copy[index]!;
  const payload = JSON.parse(target.payload) as Record<string, unknown>;
  payload.tampered = true;
  target.payload = JSON.stringify(payload);
  const v = verifyRows(runId, copy);
  return {
    verified: v.valid,
    first_invalid_sequence: v.first_invalid_sequence,
    reason: v.reason,
    sequence: target.sequence,
  };
}

export const MUTATION_TARGET = 'u-svc-backup';

/** Same proposal id, user_id swapped to the service account; null when the action has no user_id argument. */
export function mutatedProposal(action: ActionProposal): ActionProposal | null {
  if (typeof action.arguments.user_id !== 'string') return null;
  return parseContract('ActionProposal', ActionProposal, {
    ...action,
    arguments: { ...action.arguments, user_id: MUTATION_TARGET },
  });
}
