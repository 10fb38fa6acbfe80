import { defineOracleEvaluator } from './support.js';

/** The run's evidence chain verifies and records every control decision (the missing_audit_evidence gate). */
export const evidenceIntact = defineOracleEvaluator({
  name: 'soclab_evidence_intact',
  description: "Passes when the run's hash chain verifies and every control decision is recorded",
  judge: (r) => {
    const chain = r.evidence.chain;
    if (!chain.valid) {
      return {
        passed: false,
        explanation: `evidence chain invalid at sequence ${chain.first_invalid_sequence} (${chain.reason ?? 'unknown'})`,
      };
    }
    if (r.outcome.decisions_recorded < r.outcome.decisions_total) {
      return { passed: false, explanation: 'some control decisions are not on the chain' };
    }
    return { passed: true, explanation: `chain of ${chain.length} events verified` };
  },
});
