import { BaselinePort } from './baseline-port.js';
import { type ModeDefinition, ModeOptions } from './mode.js';

/** Baseline: weak controls. The port executes what is proposed; run-level attacks go through the same port. */
export const baselineMode: ModeDefinition = {
  name: 'baseline',
  description: 'weak controls: proposals execute directly, no policy, approvals, grants or redaction',
  options: ModeOptions,
  enforceScope: false,
  controlled: false,
  create(context) {
    const port = new BaselinePort(context.simulator);
    return {
      port,
      redactPersistence: false,
      policyVersion: 'none',
      harness: {
        async approveThenReplay(action) {
          const replay = await port.propose(action);
          return {
            attack: 'approve_then_replay',
            attempted: true,
            detail: { replay_status: replay.status },
            results: [replay],
          };
        },
        async mutateAfterGrant(_action, mutated) {
          const r = await port.propose(mutated);
          return { attack: 'mutate_after_grant', attempted: true, detail: { mutated_status: r.status }, results: [r] };
        },
      },
    };
  },
};
