import { z } from 'zod';
import { isError, outputText } from '../core/agent.js';
import { defineEvaluator, errorResult, result } from './base.js';
import { expectedText, isMissing, resolveExpected } from './support/expected.js';

const Options = z.strictObject({
  /** Correct letter(s); defaults to the case's `expected`. A list means any of them is accepted. */
  value: z.union([z.string().regex(/^[A-Za-z]$/), z.array(z.string().regex(/^[A-Za-z]$/)).min(1)]).optional(),
  /** The option letters offered (default A-E); letters outside this set are never taken as the answer. */
  choices: z
    .array(z.string().regex(/^[A-Za-z]$/))
    .min(2)
    .default(['A', 'B', 'C', 'D', 'E']),
});

/**
 * Find the chosen option letter, most explicit form first: "ANSWER: B" / "the answer is (B)", then an
 * output that is only a letter, then a line that starts with "B)" / "(B)" / "B.", then a lone "(B)".
 * Returns the letters found at the first level that has any, so callers can reject ambiguous replies.
 */
export function extractChoice(text: string, letters: readonly string[]): string[] {
  const set = new Set(letters.map((l) => l.toUpperCase()));
  const levels = choicePatterns([...set].join(''));
  for (const [i, re] of levels.entries()) {
    re.lastIndex = 0;
    const found = [...text.matchAll(re)].map((m) => (m[1] ?? '').toUpperCase()).filter((l) => set.has(l));
    // Level 0 is case-insensitive for "answer" but the letter itself must be an option; an explicit final
    // "ANSWER: X" overrides earlier mentions, so keep only the last one.
    if (found.length > 0) return i === 0 ? found.slice(-1) : [...new Set(found)];
  }
  return [];
}

const patternCache = new Map<string, RegExp[]>();

/** The four extraction patterns for a set of letters (compiled once per set). */
function choicePatterns(letters: string): RegExp[] {
  const cached = patternCache.get(letters);
  if (cached) return cached;
  const cls = `[${letters}]`;
  const levels = [
    new RegExp(`\\banswer\\b\\s*(?:is|:|=|-)?\\s*(?:option\\s*)?\\(?\\*{0,2}(${cls})\\*{0,2}\\)?(?![A-Za-z])`, 'gi'),
    new RegExp(`^\\s*\\(?\\*{0,2}(${cls})\\*{0,2}\\)?[.)]?\\s*$`, 'g'),
    new RegExp(`^\\s*\\(?(${cls})[).:](?:\\s|$)`, 'gm'),
    new RegExp(`\\((${cls})\\)`, 'g'),
  ];
  if (patternCache.size > 100) patternCache.clear();
  patternCache.set(letters, levels);
  return levels;
}

/**
 * Multiple-choice grading: extracts the chosen letter from the reply ("ANSWER: C", "(C)", "C) ...") and
 * compares it with the correct one. Replies naming several letters without an explicit answer fail.
 * @example { name: choice, options: { choices: [A, B, C, D] } }
 */
export const choice = defineEvaluator({
  name: 'choice',
  description:
    'Multiple-choice: extracts the chosen letter (ANSWER: C, (C), C) ...) and compares with the correct one.',
  options: Options,
  create(opts) {
    const letters = opts.choices.map((c) => c.toUpperCase());
    return {
      name: 'choice',
      evaluate(testCase, output) {
        if (isError(output)) return errorResult('choice', output);
        const raw = resolveExpected(opts.value, testCase);
        if (isMissing(raw)) {
          return result({
            evaluator: 'choice',
            score: 0,
            passed: false,
            explanation: 'no correct letter (option `value` or case `expected`)',
          });
        }
        const correct = (Array.isArray(raw) ? raw : [raw]).map((v) => expectedText(v).trim().toUpperCase());
        const found = extractChoice(outputText(output), letters);
        const [answer] = found;
        if (answer === undefined || found.length > 1) {
          return result({
            evaluator: 'choice',
            score: 0,
            passed: false,
            explanation:
              found.length === 0 ? 'no answer letter found in the output' : `ambiguous answer: ${found.join(', ')}`,
            details: { found, correct },
          });
        }
        const passed = correct.includes(answer);
        return result({
          evaluator: 'choice',
          score: passed ? 1 : 0,
          passed,
          explanation: passed
            ? `answered ${found[0]} (correct)`
            : `answered ${found[0]}, correct is ${correct.join(' or ')}`,
          details: { answer: found[0], correct },
        });
      },
    };
  },
});
