import { resolve } from 'node:path';
import { CliError, EXIT } from '../../cli/common.js';
import type { PluginContext } from '../../plugins/registry.js';
import type { RunExperimentOptions } from '../../runner/experiment.js';
import type { JudgeContext } from './judge.js';
import { JudgeCacheError, JudgeSession } from './judge-cache.js';

/** A suite's secret scrubber, whichever spelling its API has (`text` or `scrub`). */
type Scrubber = { text?: (t: string) => string; scrub?: (t: string) => string };

/**
 * Give a `harness run` its judge session: the reply cache is written to `<run folder>/judge-cache.jsonl` (and to
 * the `--record` folder), and filled beforehand from the `--replay` folder or the run being resumed, so judge
 * verdicts of a replayed run come from the recording with zero judge calls. `--timeout` also bounds each judge
 * call whose evaluator sets no `timeout`.
 */
export function attachJudgeSession(
  options: RunExperimentOptions,
  suite: { baseDir: string; redactor?: Scrubber },
  mode: { record?: string; replay?: string; resume?: string; timeout?: number },
): JudgeSession {
  const r = suite.redactor;
  const scrub = (t: string) => (r?.text ? r.text(t) : r?.scrub ? r.scrub(t) : t);
  const session = new JudgeSession({ scrub, callTimeoutSeconds: mode.timeout });
  try {
    if (mode.replay) session.load(mode.replay);
    if (mode.resume) {
      const target = resolve(mode.resume);
      session.load(target.endsWith('.jsonl') ? resolve(target, '..') : target);
    }
  } catch (err) {
    // A damaged recording is a usage problem: say which line, before any case runs.
    if (err instanceof JudgeCacheError) throw new CliError(err.message, EXIT.usage, { cause: err });
    throw err;
  }
  const given: PluginContext = options.context ?? { baseDir: suite.baseDir, env: process.env };
  const context: JudgeContext = { ...given, judges: session };
  options.context = context;
  const onStart = options.onStart;
  options.onStart = (info) => {
    session.persistTo(info.runDir);
    if (mode.record) session.persistTo(mode.record);
    onStart?.(info);
  };
  return session;
}
