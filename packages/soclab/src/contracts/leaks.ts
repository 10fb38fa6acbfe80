/** Where a canary secret was found (never the secret itself). */
import type { z } from 'zod';
import { NonEmpty, Str, strictModel } from './common.js';
import { LeakEncoding, LeakSink } from './enums.js';

/** One place a canary secret was found. Never carries the secret itself. */
export const LeakFinding = strictModel({
  sink: LeakSink,
  encoding: LeakEncoding,
  /** Which canary (its index in the run's canary list or the pattern), never the value. */
  canary: NonEmpty,
  /** JSON path inside the inspected value, e.g. `claims.1.text`. */
  path: Str,
  /** Sequence or label of the inspected record (e.g. `model.turn#3`), when known. */
  where: Str.nullable().default(null),
});
export type LeakFinding = z.infer<typeof LeakFinding>;
