import { outputText } from '../../core/agent.js';
import type { Experiment } from '../../core/experiment.js';
import type { TestCaseResult } from '../../core/result.js';
import { type ExperimentView, isView, viewOf } from '../../core/view.js';

/** Reporters accept either an in-memory experiment or a streamed view. */
export function asView(run: Experiment | ExperimentView): ExperimentView {
  return isView(run) ? run : viewOf(run);
}

/** The case input as text (objects as compact JSON). */
export function inputOf(result: TestCaseResult): string {
  const input = result.input;
  if (input === undefined) return '';
  return typeof input === 'string' ? input : JSON.stringify(input);
}

/** The agent output as text. */
export function outputOf(result: TestCaseResult): string {
  return outputText(result.output);
}

/**
 * Why a case did not pass (or what the first evaluator said): the agent error, else the first failing
 * evaluation's explanation, else the first explanation.
 */
export function reasonOf(result: TestCaseResult): string {
  if (result.output.error !== null && result.output.error !== undefined) return `agent error: ${result.output.error}`;
  const failing = result.evaluations.find((e) => !e.passed && e.explanation);
  if (failing) return `${failing.evaluator}: ${failing.explanation}`;
  const first = result.evaluations.find((e) => e.explanation)?.explanation;
  if (first !== undefined) return first;
  // A case nothing judged carries the runner's note; without it the report would show an empty reason.
  const note = result.metadata?.note;
  return typeof note === 'string' ? note : '';
}

/** Text for a Markdown table cell: no line breaks, pipes escaped, HTML neutralised, length capped. */
export function markdownCell(text: string, max = 200): string {
  let s = text
    .replace(/\r\n|\r|\n/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (s.length > max) s = `${s.slice(0, max - 1)}…`;
  return s
    .replace(/\\/g, '\\\\')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/\|/g, '\\|')
    .replace(/`/g, '\\`')
    .replace(/([*_[\]])/g, '\\$1');
}

/** `snake_case` -> `Snake Case` (the seed's metric titles). */
export function titleCase(name: string): string {
  return name
    .replace(/_/g, ' ')
    .toLowerCase()
    .replace(/(^|[^a-z0-9])([a-z])/g, (_, sep: string, c: string) => sep + c.toUpperCase());
}

export function directionLabel(direction: string): string {
  if (direction === 'higher_is_better') return 'Higher is better';
  if (direction === 'lower_is_better') return 'Lower is better';
  return 'Neutral';
}

/** `12.3%`-style share, `—` when there is nothing to divide by. */
export function percent(part: number, total: number, digits = 1): string {
  return total > 0 ? `${((part / total) * 100).toFixed(digits)}%` : '—';
}
