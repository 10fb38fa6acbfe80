import { isError, outputText } from '../core/agent.js';
import { defineEvaluator, errorResult, result } from './base.js';
import { BoundsOptions, describeBounds, outOfBounds } from './support/bounds.js';

/** Count whitespace-separated words. */
export function wordCount(text: string): number {
  const t = text.trim();
  return t === '' ? 0 : t.split(/\s+/u).length;
}

/**
 * Passes when the output's word count is within bounds.
 * @example { name: word_count, options: { min: 20, max: 120 } }
 */
export const wordCountEvaluator = defineEvaluator({
  name: 'word_count',
  example: { max: 100 },
  description: 'Number of words in the output is within bounds (options: min, max, value).',
  options: BoundsOptions,
  create(opts) {
    return {
      name: 'word_count',
      evaluate(_testCase, output) {
        if (isError(output)) return errorResult('word_count', output);
        const n = wordCount(outputText(output));
        const why = outOfBounds(n, opts, 'words');
        return result({
          evaluator: 'word_count',
          score: why ? 0 : 1,
          passed: why === null,
          explanation: why ?? `${n} words (${describeBounds(opts)})`,
          details: { words: n },
        });
      },
    };
  },
});
