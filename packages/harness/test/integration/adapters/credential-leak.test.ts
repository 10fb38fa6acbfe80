import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { secretForms } from '../../../src/secrets/scrubber.js';
import { filesUnder, harnessAsync, reporterNames } from '../../helpers/harness-cli.js';
import { json, listen, readBody, type TestServer } from './servers.js';

/**
 * Issue 15 defect 4: a value in a credential position is a secret whatever its source. The agent below echoes
 * every header and the URL it received (raw and base64), so any unscrubbed credential would reach the journal,
 * experiment.json, the reports and the run index. None of the variable names looks like a secret.
 */

const root = fileURLToPath(new URL('../../../../../', import.meta.url));
const SECRETS = {
  AGENT_BEARER: 'bearer-6f1d0c9a-NEVER-PRINT',
  AGENT_CRUMB: 'crumb-2b7e15a8-NEVER-PRINT',
  AGENT_QUERY: 'query-90aa41c3-NEVER-PRINT',
};
const TENANT = 'tenant-5d3c8e71-NEVER-PRINT';

/** `harness run` at debug log level, from the repository root; `out` is everything it printed. */
async function harness(args: string[], env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  const r = await harnessAsync(args, root, { ...env, HARNESS_LOG_LEVEL: 'debug' });
  return { code: r.code, out: r.stdout + r.stderr };
}

let agent: TestServer;
let seen = 0;

beforeAll(async () => {
  agent = await listen(async (req, res) => {
    const body = JSON.parse((await readBody(req)) || '{}') as { question?: string };
    seen++;
    const echo = {
      url: req.url,
      headers: req.headers,
      b64: Buffer.from(JSON.stringify(req.headers)).toString('base64'),
    };
    if (body.question?.includes('boom')) {
      res.writeHead(500, { 'content-type': 'text/plain' });
      return res.end(`internal error: ${JSON.stringify(echo)}`);
    }
    return json(res, 200, { answer: `42 ${JSON.stringify(echo)}`, tool_calls: [{ tool_name: 'echo', args: echo }] });
  });
});

afterAll(async () => {
  await agent.close();
});

describe('credentials templated from any source never reach a run file', () => {
  it('Bearer {{env.X}}, Cookie $ENV,  {{env.X}} in a key-like query and {{vars.x}} in an *-token header', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'harness-credential-'));
    const suite = join(dir, 'suite.yaml');
    writeFileSync(
      suite,
      `version: "1.0"
name: credential-leak
agent:
  adapter: http
  options:
    url: ${agent.url}/ask
    headers:
      Authorization: "Bearer {{env.AGENT_BEARER}}"
      Cookie: "theme=dark; crumb=\${AGENT_CRUMB}"
      X-Tenant-Token: "{{vars.tenant}}"
    query: { api_key: "{{env.AGENT_QUERY}}" }
    body: { question: "{{input}}" }
    response: { output: $.answer, tool_calls: "$.tool_calls[*]" }
evaluators: [contains]
metrics: [success_rate]
tests:
  - { id: ok-1, input: "what is 6*7", expected: "42", vars: { tenant: "${TENANT}" } }
  - { id: ok-2, input: "and 40+2", expected: "42", vars: { tenant: "${TENANT}" } }
  - { id: server-error, input: "boom", expected: "42", vars: { tenant: "${TENANT}" } }
`,
    );
    const runs = join(dir, 'runs');
    const out = join(runs, 'r1');
    const r = await harness(
      ['run', suite, '--out', out, '--runs-dir', runs, '--format', reporterNames().join(','), '--no-thresholds'],
      SECRETS,
    );
    expect(r.out).toContain('run folder:');
    // The agent was really called with the credentials (a run that never sent them would prove nothing).
    expect(seen).toBeGreaterThanOrEqual(3);
    const journal = readFileSync(join(out, 'journal.jsonl'), 'utf8');
    // The echoed Authorization header is recorded, its whole value redacted.
    expect(journal).toContain(String.raw`authorization\":\"[REDACTED]\"`);
    expect(journal).toContain('HTTP 500');

    const written = filesUnder(runs);
    expect(written.map((f) => f.slice(runs.length + 1))).toEqual(
      expect.arrayContaining(['r1/journal.jsonl', 'r1/experiment.json', 'r1/report.html', 'index.sqlite']),
    );
    for (const secret of [...Object.values(SECRETS), TENANT]) {
      const forms = secretForms(secret);
      for (const file of written) {
        const bytes = readFileSync(file);
        for (const form of forms) expect(bytes.includes(form), `${file} holds ${form}`).toBe(false);
      }
      for (const form of forms) expect(r.out.includes(form), `the CLI printed ${form}`).toBe(false);
    }
  });
});
