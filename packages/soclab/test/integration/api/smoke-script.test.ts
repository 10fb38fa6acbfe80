/** The curl walkthrough in docs/soclab/api-smoke.sh runs as documented (it starts its own server). */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../../../', import.meta.url));
const hasCurl = spawnSync('sh', ['-c', 'command -v curl'], { encoding: 'utf8' }).status === 0;
if (!hasCurl && process.env.CI) throw new Error('curl is missing: CI must provide it (apt-get install curl)');
if (!hasCurl) console.warn('curl not found (apt-get install curl): the API smoke script test is skipped');

describe.skipIf(!hasCurl)('docs/soclab/api-smoke.sh', () => {
  it('walks through auth, a human-approved campaign, evidence and reports with curl', () => {
    const r = spawnSync('bash', [join(ROOT, 'docs/soclab/api-smoke.sh')], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 120_000,
      env: { ...process.env, SOCLAB_URL: '', SOCLAB_API_TOKENS: '', SOCLAB_DATABASE_URL: '' },
    });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('== no token -> 401\n401');
    expect(r.stdout).toContain('== an operator cannot decide -> 403\n403');
    expect(r.stdout).toContain('== approving twice -> 409\n409');
    expect(r.stdout).toMatch(/"status":"completed","attack_success":"0 of 2"/);
    expect(r.stdout).toMatch(/BEN-001 valid=true/);
    expect(r.stdout.trimEnd().endsWith('smoke test passed')).toBe(true);
  });
});
