import { z } from 'zod';
import { isError, toolCalls } from '../core/agent.js';
import { itemAt } from '../core/item-at.js';
import { defineEvaluator, errorResult, result } from './base.js';
import { ArgsMatchMode, callMatches, ExpectedToolCall, normalizeExpectation } from './support/tools.js';

const Options = z.strictObject({
  /** Calls that must appear in this order: names, or {name, args, match}. */
  sequence: z.array(ExpectedToolCall).min(1),
  /** Require the calls to be adjacent (no other calls in between). */
  contiguous: z.boolean().default(false),
  /** Default argument comparison for entries that give args without a match mode. */
  args_match: ArgsMatchMode.exclude(['ignore']).default('subset'),
});

/**
 * Passes when the agent's tool calls contain the given sequence in order (other calls may come between,
 * unless `contiguous`). Score is the share of the sequence found in order.
 * @example { name: tool_sequence, options: { sequence: [lookup_order, check_policy, issue_refund] } }
 */
export const toolSequence = defineEvaluator({
  name: 'tool_sequence',
  example: { sequence: ['search', 'answer'] },
  description:
    'Tool calls contain a sequence in order (ordered subsequence, or contiguous); score = share of the sequence found.',
  options: Options,
  create(opts) {
    const seq = opts.sequence.map((e) => normalizeExpectation(e, opts.args_match));
    return {
      name: 'tool_sequence',
      evaluate(_testCase, output) {
        if (isError(output)) return errorResult('tool_sequence', output);
        const calls = toolCalls(output);
        let matched = 0;
        if (opts.contiguous) {
          // Longest prefix of the sequence that appears as a contiguous run somewhere.
          for (let start = 0; start < calls.length && matched < seq.length; start++) {
            let k = 0;
            while (
              k < seq.length &&
              start + k < calls.length &&
              callMatches(itemAt(calls, start + k), itemAt(seq, k))
            ) {
              k++;
            }
            matched = Math.max(matched, k);
          }
        } else {
          let i = 0;
          for (const call of calls) {
            const next = seq[i];
            if (next !== undefined && callMatches(call, next)) i++;
          }
          matched = i;
        }
        const passed = matched === seq.length;
        const names = calls.map((c) => c.tool_name);
        return result({
          evaluator: 'tool_sequence',
          score: matched / seq.length,
          passed,
          explanation: passed
            ? `sequence ${seq.map((s) => s.name).join(' → ')} found${opts.contiguous ? ' contiguously' : ''}`
            : `sequence broke at step ${matched + 1} ('${itemAt(seq, matched).name}'); calls were: ${names.join(', ') || 'none'}`,
          details: { matched, expected: seq.map((s) => s.name), actual: names, contiguous: opts.contiguous },
        });
      },
    };
  },
});
