import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defined } from '../../helpers/defined.js';
import { filesUnder, harnessAsync, reporterNames } from '../../helpers/harness-cli.js';
import { json, listen, readBody, type TestServer } from './servers.js';

/** `harness run` through the real CLI (built bin) in a child process, against real loopback agents. */

const root = fileURLToPath(new URL('../../../../../', import.meta.url));
const TOKEN = 'tok-7c1f0e2a-NEVER-PRINT-ME';

/** `harness run` with `env` on top of this process's, from the repository root. */
const harness = (args: string[], env: Record<string, string> = {}) => harnessAsync(args, root, env);

let agent: TestServer;
const correct = 0.5;

beforeAll(async () => {
  agent = await listen(async (req, res) => {
    const body = JSON.parse((await readBody(req)) || '{}') as { question?: string };
    const auth = String(req.headers.authorization ?? '');
    const q = body.question ?? '';
    if (auth !== `Bearer ${TOKEN}`) return json(res, 401, { error: `rejected credentials ${auth}` });
    if (q.includes('boom')) {
      // A careless server error that quotes the credentials it was sent.
      res.writeHead(500, { 'content-type': 'text/plain' });
      return res.end(`internal error while handling ${auth}`);
    }
    // Non-deterministic agent: right or wrong at random, with random latency, so only a replay can repeat it.
    await new Promise((r) => setTimeout(r, Math.random() * 30));
    const right = Math.random() < correct;
    return json(res, 200, {
      answer: right ? `The answer is 42. (auth seen: ${auth})` : `No idea, token ${TOKEN}`,
      steps: [{ tool: 'think', input: { token_echo: TOKEN } }],
      usage: { prompt_tokens: 5, completion_tokens: right ? 6 : 4 },
    });
  });
});

afterAll(async () => {
  await agent.close();
});

function writeSuite(dir: string, name: string, tests: string, url = agent.url): string {
  const path = join(dir, `${name}.yaml`);
  writeFileSync(
    path,
    `version: "1.0"
name: ${name}
agent:
  adapter: http
  options:
    url: ${url}/ask
    body: { question: "{{input}}" }
    response: { output: $.answer, tool_calls: "$.steps[*]", usage: $.usage }
    auth: { type: bearer, token: "\${AGENT_TOKEN}" }
evaluators: [contains]
metrics: [success_rate, accuracy, latency]
tests:
${tests}`,
  );
  return path;
}

describe('harness run with the http adapter (real CLI)', () => {
  it('never writes the bearer token anywhere: journal, reports, cassette, stdout, stderr', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'harness-token-'));
    const suite = writeSuite(
      dir,
      'token-leak-check',
      `  - { id: ok-1, input: "what is 6*7", expected: "42" }
  - { id: ok-2, input: "and 40+2", expected: "42" }
  - { id: server-error, input: "boom", expected: "42" }
`,
    );
    const out = join(dir, 'run');
    const cassette = join(dir, 'cassette');
    const formats = reporterNames().join(',');
    const r = await harness(
      ['run', suite, '--out', out, '--format', formats, '--record', cassette, '--no-thresholds'],
      {
        AGENT_TOKEN: TOKEN,
        HARNESS_LOG_LEVEL: 'debug',
      },
    );
    expect(r.stderr).toContain('run folder:');
    const written = [...filesUnder(out), ...filesUnder(cassette)];
    expect(written.map((f) => f.slice(dir.length + 1)).sort()).toEqual(
      expect.arrayContaining([
        'cassette/cassette.jsonl',
        'run/journal.jsonl',
        'run/experiment.json',
        'run/report.json',
      ]),
    );
    const b64 = Buffer.from(TOKEN).toString('base64');
    for (const file of written) {
      const text = readFileSync(file, 'utf8');
      expect(text.includes(TOKEN), `${file} contains the token`).toBe(false);
      expect(text.includes(b64), `${file} contains the base64 token`).toBe(false);
    }
    expect(r.stdout.includes(TOKEN)).toBe(false);
    expect(r.stderr.includes(TOKEN)).toBe(false);
    // The run did talk to the agent with the token: the server error quoting it is recorded, redacted.
    const journal = readFileSync(join(out, 'journal.jsonl'), 'utf8');
    expect(journal).toContain('HTTP 500 Internal Server Error');
    expect(journal).toContain('Bearer [REDACTED]');
  });

  it('replays a recorded run offline with exactly the same scores, and errors on a missing entry', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'harness-replay-'));
    const tests = Array.from(
      { length: 12 },
      (_, i) => `  - { id: q${i}, input: "question ${i}", expected: "42", repeat: 2 }`,
    ).join('\n');
    const suite = writeSuite(dir, 'replay-check', `${tests}\n`);
    const cassette = join(dir, 'cassette');
    const recorded = await harness(
      ['run', suite, '--out', join(dir, 'recorded'), '--format', 'json', '--record', cassette],
      {
        AGENT_TOKEN: TOKEN,
      },
    );
    expect(recorded.code, recorded.stderr).toBe(0);

    // Replay against a suite whose agent URL points nowhere: the agent must not be called at all.
    const offline = writeSuite(dir, 'replay-check', `${tests}\n`, 'http://127.0.0.1:9');
    const replayed = await harness(
      ['run', offline, '--out', join(dir, 'replayed'), '--format', 'json', '--replay', cassette],
      {
        AGENT_TOKEN: TOKEN,
      },
    );
    expect(replayed.code, replayed.stderr).toBe(0);

    type Exp = {
      results: {
        test_id: string;
        repeat: number;
        score: number;
        status: string;
        evaluations: { score: number }[];
        output: { error: string | null };
      }[];
      metrics: Record<string, { value: number }>;
    };
    const a = JSON.parse(readFileSync(join(dir, 'recorded/experiment.json'), 'utf8')) as Exp;
    const b = JSON.parse(readFileSync(join(dir, 'replayed/experiment.json'), 'utf8')) as Exp;
    const scores = (e: Exp) =>
      e.results.map((r) => [r.test_id, r.repeat, r.status, r.score, r.evaluations.map((v) => v.score)]);
    expect(a.results).toHaveLength(24);
    // The agent is random, so a run that scored everything the same would prove nothing.
    expect(new Set(a.results.map((r) => r.score)).size).toBe(2);
    expect(scores(b)).toEqual(scores(a));
    for (const name of ['success_rate', 'accuracy', 'latency'])
      expect(b.metrics[name]?.value).toBe(defined(a.metrics[name], `metric ${name}`).value);

    // A case the cassette does not know is an error, not a silent pass.
    const extra = writeSuite(
      dir,
      'replay-check',
      `${tests}\n  - { id: new-case, input: "never recorded", expected: "42" }\n`,
    );
    const missing = await harness(
      ['run', extra, '--out', join(dir, 'missing'), '--format', 'json', '--replay', cassette],
      {
        AGENT_TOKEN: TOKEN,
      },
    );
    expect(missing.stderr).toContain('run folder:');
    const m = JSON.parse(readFileSync(join(dir, 'missing/experiment.json'), 'utf8')) as Exp;
    const newCase = m.results.find((r) => r.test_id === 'new-case');
    expect(newCase?.status).toBe('error');
    expect(newCase?.output.error).toMatch(/^replay: no recorded exchange for case 'new-case' repeat 0/);

    const noCassette = await harness(['run', suite, '--replay', join(dir, 'nowhere')], { AGENT_TOKEN: TOKEN });
    expect(noCassette.code).toBe(2);
    expect(noCassette.stderr).toMatch(/no cassette at .*nowhere/);
  });
});
