import { readFileSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { z } from 'zod';
import { makeDirectory } from '../core/directories.js';
import { copyWrittenExperiment, writeExperimentFile } from '../runner/run-folder.js';
import { defineReporter } from './base.js';
import { asView } from './support/text.js';

const JsonOptions = z.strictObject({
  /** Above this size (bytes) `report()` returns '' instead of re-reading the written file. */
  max_return_bytes: z
    .number()
    .int()
    .min(0)
    .default(8 * 1024 * 1024),
});
export type JsonOptions = z.infer<typeof JsonOptions>;

/**
 * The whole Experiment as JSON (schema_version "1"): exactly what `experiment.json` holds, readable by
 * `loadRun`, `compare` and `view`. Results are streamed to the file one at a time, so a 100,000-case run
 * is never one string; for such runs `report()` returns '' rather than the text.
 */
export const jsonReporter = defineReporter({
  name: 'json',
  description: 'The whole Experiment as versioned JSON (same as experiment.json)',
  extension: 'json',
  options: JsonOptions as z.ZodType<JsonOptions>,
  create(options) {
    const o = JsonOptions.parse(options ?? {});
    return {
      name: 'json',
      async report(run, destination) {
        const view = asView(run);
        if (!destination) {
          const results = [];
          for await (const r of view.results()) results.push(r);
          return `${JSON.stringify({ ...view.header, results }, null, 2)}\n`;
        }
        const target = resolve(destination);
        makeDirectory(dirname(target));
        // After a run, experiment.json already holds these bytes (unless scrubbing changed them): copy it.
        if (!copyWrittenExperiment(view, target)) await writeExperimentFile(view, target);
        return statSync(target).size <= o.max_return_bytes ? readFileSync(target, 'utf8') : '';
      },
    };
  },
});
