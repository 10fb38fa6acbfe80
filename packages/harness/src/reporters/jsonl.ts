import { z } from 'zod';
import { defineReporter } from './base.js';
import { renderTo } from './support/sink.js';
import { asView } from './support/text.js';

const JsonlOptions = z.strictObject({
  /**
   * Write the run as a journal (a header line, `{"type":"result",...}` lines and an end line) that
   * `harness compare`, `view` and `export` can open, instead of bare result objects.
   */
  journal: z.boolean().default(false),
});
export type JsonlOptions = z.infer<typeof JsonlOptions>;

/**
 * One JSON object per line, streamed: each case x repeat result as stored (or a loadable journal).
 *
 * @example harness export runs/latest --format jsonl --out results.jsonl
 */
export const jsonlReporter = defineReporter({
  name: 'jsonl',
  description: 'JSON Lines, one result per line, streamed (optionally as a loadable journal)',
  extension: 'jsonl',
  options: JsonlOptions as z.ZodType<JsonlOptions>,
  create(options) {
    const o = JsonlOptions.parse(options ?? {});
    return {
      name: 'jsonl',
      async report(run, destination) {
        const view = asView(run);
        return renderTo(destination, async (sink) => {
          const { metrics, thresholds, state, finished_at, ...rest } = view.header;
          if (o.journal) {
            const header = { ...rest, metrics: {}, thresholds: null, state: 'running', finished_at: null };
            await sink.write(`${JSON.stringify({ type: 'header', experiment: header })}\n`);
          }
          for await (const r of view.results()) {
            await sink.write(`${JSON.stringify(o.journal ? { type: 'result', result: r } : r)}\n`);
          }
          if (o.journal) {
            const end = {
              type: 'end',
              state,
              finished_at: finished_at ?? new Date().toISOString(),
              metrics,
              thresholds,
            };
            await sink.write(`${JSON.stringify(end)}\n`);
          }
        });
      },
    };
  },
});
