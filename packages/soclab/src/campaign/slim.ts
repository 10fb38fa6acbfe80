import type { TestCaseResult } from '@aeh/harness';
import { slimResult } from '@aeh/harness/runner';
import { trustedRecordOf } from './record.js';

/**
 * What the runner keeps in memory per soclab result for the metrics: the harness slim copy plus the scoring facts
 * (outcome, repeat, approvals). The full record stays in the journal.
 */
export function slimSoclabResult(result: TestCaseResult): TestCaseResult {
  const slim = slimResult(result);
  const record = trustedRecordOf(result.output.metadata);
  if (!record) return slim;
  return {
    ...slim,
    output: {
      ...slim.output,
      metadata: {
        soclab_scored: {
          outcome: record.outcome,
          repeat: record.repeat,
          approvals_requested: record.approvals_requested,
        },
      },
    },
  };
}
