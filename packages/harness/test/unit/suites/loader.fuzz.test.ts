import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { validateSuite } from '../../../src/suites/loader.js';
import '../../../src/adapters/index.js';
import '../../helpers/plugins.js';

/**
 * Property tests of the suite loader (issue 15): for YAML, JSON, JSONL and CSV input, broken or hostile, the
 * result is a clear error or a valid suite: never a thrown exception, a stack trace in a message, a hang, or a
 * file written. The test suite runs a short fixed-seed slice; `npm run fuzz` (scripts/fuzz.mjs) sets FUZZ_RUNS and
 * FUZZ_SEED for a longer run and prints the seed that reproduces a failure.
 */

const runs = Number(process.env.FUZZ_RUNS);
const seed = Number(process.env.FUZZ_SEED);
const params = (suiteRuns: number) => ({
  numRuns: Number.isInteger(runs) && runs > 0 ? runs : suiteRuns,
  seed: Number.isInteger(seed) ? seed : 15_015,
  endOnFailure: true as const,
});
const timeout = (suiteRuns: number) => Math.max(60_000, params(suiteRuns).numRuns * 150);

/** One validation may take this long before it counts as a hang (a loaded CI machine is slow; this is no benchmark). */
const HANG_MS = 20_000;

const root = mkdtempSync(join(tmpdir(), 'aeh-fuzz-'));
let n = 0;
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Tokens that stress parsers: YAML indicators, aliases, quotes, brackets, encodings, prototype keys. */
const TOKENS = [
  '&a ',
  '*a',
  '&b [*a, *a, *a]',
  '[',
  ']',
  '{',
  '}',
  ',',
  ':',
  '- ',
  '? ',
  '"',
  "'",
  '\\',
  '#',
  '\n',
  '\r\n',
  '\t',
  '  ',
  '!!binary ',
  '!!js/function ',
  '<<: *a',
  '__proto__',
  'constructor',
  // Suite-level environment interpolation, on purpose (a set and an unset variable).
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the suite's ${VAR} syntax, not a JS template
  '${HOME}',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the suite's ${VAR} syntax, not a JS template
  '${UNSET_VAR}',
  '{{input}}',
  'file://cases.jsonl',
  'file://../../etc/passwd',
  '\u0000',
  '\ufeff',
  '\u2028',
  '😀',
  '1e999',
  '-0',
  '0x1F',
  '~',
  'null',
  '---\n',
  '...\n',
  '%YAML 1.2\n',
];

/** A plausible suite (so mutations land in interesting places), as a plain object. */
const suiteObject = fc.record({
  version: fc.constantFrom('1.0', 1, '2.0'),
  name: fc.string({ maxLength: 12 }),
  agent: fc.oneof(
    fc.constant({ adapter: 'echo' }),
    fc.record({
      adapter: fc.constantFrom('echo', 'mock', 'http', 'nope'),
      options: fc.dictionary(fc.string(), fc.jsonValue()),
    }),
  ),
  evaluators: fc.array(fc.oneof(fc.constantFrom('exact_match', 'contains', 'bogus'), fc.jsonValue()), { maxLength: 3 }),
  tests: fc.array(
    fc.record(
      {
        id: fc.string({ maxLength: 8 }),
        input: fc.jsonValue({ maxDepth: 4 }),
        expected: fc.jsonValue({ maxDepth: 2 }),
      },
      { requiredKeys: [] },
    ),
    { maxLength: 6 },
  ),
});

type Edit = { at: number; cut: number; insert: string };
const edits = fc.array(
  fc.record({
    at: fc.nat(),
    cut: fc.nat({ max: 4 }),
    insert: fc.oneof(fc.constantFrom(...TOKENS), fc.string({ maxLength: 6, unit: 'binary' })),
  }),
  { maxLength: 6 },
);

function mutate(text: string, list: Edit[]): string {
  let out = text;
  for (const e of list) {
    const at = out.length === 0 ? 0 : e.at % (out.length + 1);
    out = out.slice(0, at) + e.insert + out.slice(at + e.cut);
  }
  return out;
}

/** Raw bytes, sometimes not UTF-8. */
const bytes = fc.oneof(
  fc.uint8Array({ maxLength: 300 }),
  fc.string({ maxLength: 300, unit: 'binary' }).map((s) => new Uint8Array(Buffer.from(s))),
);

interface Outcome {
  issues: { file: string; line: number; col: number; message: string }[];
  valid: boolean;
}

/** Validate a suite in a fresh folder; fails the property on a throw, a hang, a bad issue or a written file. */
async function check(files: Record<string, string | Uint8Array>, suiteName: string): Promise<Outcome> {
  const dir = join(root, String(n++));
  rmSync(dir, { recursive: true, force: true });
  (await import('node:fs')).mkdirSync(dir);
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
  const before = readdirSync(dir).sort();
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`validation did not finish within ${HANG_MS} ms`)), HANG_MS);
  });
  try {
    const { suite, issues } = await Promise.race([validateSuite(join(dir, suiteName), { env: {} }), hang]);
    expect(readdirSync(dir).sort(), 'the loader wrote a file').toEqual(before);
    for (const i of issues) {
      expect(typeof i.file).toBe('string');
      expect(Number.isInteger(i.line) && i.line >= 0 && Number.isInteger(i.col) && i.col >= 0).toBe(true);
      expect(i.message.length).toBeGreaterThan(0);
      // A clear message, not an internal failure surfacing: no stack frames, no "undefined"/"[object Object]".
      expect(i.message).not.toMatch(/\n\s+at |\[object Object\]|Cannot read propert|is not a function/);
    }
    // Exactly one of the two: a valid suite with no issue, or issues and no suite.
    expect(suite === null).toBe(issues.length > 0);
    if (suite) for await (const _ of suite.cases()) expect(_.id.length).toBeGreaterThan(0);
    return { issues, valid: suite !== null };
  } finally {
    clearTimeout(timer);
  }
}

describe('suite loader under hostile input: clear error or valid result, never a crash', () => {
  it(
    'YAML suites: mutated plausible suites and raw bytes',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(
            suiteObject.chain((o) => edits.map((e) => mutate(stringify(o), e))),
            bytes,
          ),
          async (content) => {
            await check({ 'suite.yaml': content }, 'suite.yaml');
          },
        ),
        params(60),
      );
    },
    timeout(60),
  );

  it(
    'JSON suites: mutated JSON text (trailing commas, comments, quotes) and raw bytes',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(
            suiteObject.chain((o) => edits.map((e) => mutate(JSON.stringify(o, null, 1), e))),
            bytes,
          ),
          async (content) => {
            await check({ 'suite.json': content }, 'suite.json');
          },
        ),
        params(60),
      );
    },
    timeout(60),
  );

  it(
    'JSONL and CSV case files: mutated lines and raw bytes',
    async () => {
      const jsonl = fc
        .array(
          fc.record({ id: fc.string({ maxLength: 6 }), input: fc.jsonValue({ maxDepth: 5 }) }, { requiredKeys: [] }),
          {
            maxLength: 8,
          },
        )
        .chain((rows) => edits.map((e) => mutate(rows.map((r) => JSON.stringify(r)).join('\n'), e)));
      const csv = fc
        .array(fc.array(fc.string({ maxLength: 8 }), { minLength: 1, maxLength: 4 }), { maxLength: 8 })
        .chain((rows) =>
          edits.map((e) =>
            mutate(
              [
                'id,input,expected',
                ...rows.map((r) => r.map((c) => (/[",\n]/.test(c) ? `"${c.replace(/"/g, '""')}"` : c)).join(',')),
              ].join('\n'),
              e,
            ),
          ),
        );
      await fc.assert(
        fc.asyncProperty(fc.oneof(jsonl, bytes), fc.oneof(csv, bytes), async (lines, table) => {
          const head = 'version: "1.0"\nname: fuzz\nagent: { adapter: echo }\n';
          await check({ 'suite.yaml': `${head}tests: file://cases.jsonl\n`, 'cases.jsonl': lines }, 'suite.yaml');
          await check({ 'suite.yaml': `${head}tests: file://cases.csv\n`, 'cases.csv': table }, 'suite.yaml');
        }),
        params(40),
      );
    },
    timeout(40),
  );

  it('the degenerate cases first: an empty file and a valid minimal suite', async () => {
    expect((await check({ 'suite.yaml': '' }, 'suite.yaml')).valid).toBe(false);
    const ok = await check(
      { 'suite.yaml': 'version: "1.0"\nname: ok\nagent: { adapter: echo }\ntests: [{ id: a, input: hi }]\n' },
      'suite.yaml',
    );
    expect(ok).toEqual({ issues: [], valid: true });
  });
});
