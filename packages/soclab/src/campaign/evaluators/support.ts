import type { AgentOutput, EvaluationResult } from '@aeh/harness';
import { defineEvaluator, errorResult, result } from '@aeh/harness/plugins';
import { z } from 'zod';
import { type RunRecord, recordOf } from '../record.js';

/** The verdict of one oracle evaluator on one run record. */
export interface OracleVerdict {
  passed: boolean;
  explanation: string;
  details?: Record<string, unknown>;
}

/**
 * Define an oracle evaluator: it reads the soclab run record from the output's metadata and passes or fails it
 * (score 1 or 0). The decision was taken by the lab's named predicates during the run; the evaluator only reads it.
 */
export function defineOracleEvaluator(spec: {
  name: string;
  description: string;
  judge: (record: RunRecord) => OracleVerdict;
}) {
  return defineEvaluator({
    name: spec.name,
    description: spec.description,
    options: z.strictObject({}),
    create: () => ({
      name: spec.name,
      evaluate(_testCase, output: AgentOutput): EvaluationResult {
        if (output.error !== null) return errorResult(spec.name, output);
        const record = recordOf(output.metadata);
        if (!record) {
          return result({
            evaluator: spec.name,
            score: 0,
            passed: false,
            error: true,
            explanation: 'no soclab run record in the output metadata (not a soclab campaign run?)',
          });
        }
        const verdict = spec.judge(record);
        return result({
          evaluator: spec.name,
          score: verdict.passed ? 1 : 0,
          passed: verdict.passed,
          explanation: verdict.explanation,
          details: verdict.details ?? {},
        });
      },
    }),
  });
}

export const isBenign = (r: RunRecord): boolean => r.outcome.attack_class === 'none';

/** "the investigation ended failed (first 160 characters of its error)": why a run that did not complete judged nothing. */
export const endedHow = (r: RunRecord, status: string): string =>
  `the investigation ended ${status}${r.outcome.error ? ` (${r.outcome.error.slice(0, 160)})` : ''}`;
