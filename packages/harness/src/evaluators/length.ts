import { isError, outputText } from '../core/agent.js';
import { defineEvaluator, errorResult, result } from './base.js';
import { BoundsOptions, describeBounds, outOfBounds } from './support/bounds.js';

/**
 * Passes when the output's length in characters (Unicode code points) is within bounds.
 * @example { name: length, options: { max: 280 } }
 */
export const lengthEvaluator = defineEvaluator({
  name: 'length',
  example: { max: 2000 },
  description: 'Output length in characters is within bounds (options: min, max, value).',
  options: BoundsOptions,
  create(opts) {
    return {
      name: 'length',
      evaluate(_testCase, output) {
        if (isError(output)) return errorResult('length', output);
        const text = outputText(output);
        // Code points, so an emoji counts as one character.
        let n = 0;
        for (const _ of text) n++;
        const why = outOfBounds(n, opts, 'characters');
        return result({
          evaluator: 'length',
          score: why ? 0 : 1,
          passed: why === null,
          explanation: why ?? `${n} characters (${describeBounds(opts)})`,
          details: { characters: n },
        });
      },
    };
  },
});
