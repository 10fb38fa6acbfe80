// biome-ignore-all lint/performance/useDomNodeTextContent: these are Playwright Locator.innerText() calls, not the DOM property
/**
 * The viewer end to end: real `harness run`s write run folders, `harness view` serves them on an ephemeral
 * loopback port, and headless Chromium clicks through run list -> run -> case -> comparison -> history,
 * then watches a run appear and finish live. Screenshots go to test-output/viewer/.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, launchChromium } from '../../helpers/chromium.js';

const ROOT = fileURLToPath(new URL('../../../../../', import.meta.url));
// The built CLI when present (`npm test` builds it first: fast start), else the sources through tsx.
const BUILT = join(ROOT, 'packages/harness/dist/cli/main.js');
const CLI_ARGS = existsSync(BUILT)
  ? [join(ROOT, 'packages/harness/bin/harness.js')]
  : ['--import', 'tsx', join(ROOT, 'packages/harness/src/cli/main.ts')];
const WEB = join(ROOT, 'packages/harness/dist/web/index.html');
const SHOTS = join(ROOT, 'test-output/viewer');

const CHROMIUM_PRESENT = chromiumAvailable('viewer browser test');

// expect.poll gives up after 1 s by default: far too short for a page that fetches and renders on a loaded machine.
const POLL = { timeout: 30_000 };

const XSS = '<img src=x onerror="window.__xss=1"><script>window.__xss=2</script>';

function suite(agent: 'v1' | 'v2' | 'live'): string {
  const good = agent !== 'v2';
  const responses = [
    {
      contains: 'refund',
      output: good ? 'Refund issued for A1' : 'I cannot help with refunds',
      latency: 0.4,
      tool_calls: good
        ? [
            { tool_name: 'lookup_order', args: { id: 'A1' }, result: { status: 'paid', amount: 40 }, duration: 0.12 },
            { tool_name: 'issue_refund', args: { id: 'A1', amount: 40 }, result: { ok: true }, duration: 0.2 },
          ]
        : [],
    },
    { contains: 'where is', output: good ? 'Order B2 has shipped' : 'Unknown order', latency: 0.2 },
    { contains: 'password', output: 'I sent you a reset link', latency: 0.1 },
    { contains: 'html', output: `Here it is: ${XSS}`, latency: 0.1 },
    { contains: 'cancel', output: 'Your subscription is cancelled', latency: 0.1 },
    { contains: 'hello', output: agent === 'v1' ? 'Hi' : 'Hello there', latency: 0.05 },
  ].map((r) => (agent === 'live' ? { ...r, delay_ms: 250 } : r));
  return JSON.stringify({
    version: '1.0',
    name: agent === 'live' ? 'live-demo' : 'viewer-demo',
    agent: { adapter: 'mock', label: `support-bot ${agent}`, options: { responses } },
    metrics: ['success_rate', 'accuracy', 'latency'],
    tests: [
      {
        id: 'refund-order',
        name: 'Refund an order',
        input: 'Please refund order A1',
        expected: 'Refund issued',
        tags: ['billing'],
        evaluators: ['contains', { name: 'tool_usage', options: { expected_tools: ['lookup_order', 'issue_refund'] } }],
      },
      {
        id: 'order-status',
        name: 'Order status',
        input: 'Where is order B2?',
        expected: 'shipped',
        tags: ['orders'],
        evaluators: ['contains'],
      },
      {
        id: 'reset-password',
        name: 'Reset password',
        input: 'Reset my password',
        expected: 'reset link',
        tags: ['account'],
        evaluators: ['contains'],
      },
      {
        id: 'html-echo',
        name: 'Untrusted HTML in output',
        input: 'show me html',
        expected: '<img',
        tags: ['security'],
        evaluators: ['contains'],
      },
      {
        id: 'cancel-sub',
        name: 'Cancel subscription',
        input: 'cancel my subscription',
        expected: 'cancelled',
        tags: ['billing'],
        evaluators: ['contains'],
      },
      {
        id: 'greeting',
        name: 'Greeting',
        input: 'hello',
        expected: 'Hello',
        tags: ['smalltalk'],
        evaluators: ['contains'],
      },
    ],
  });
}

function harness(args: string[], cwd: string): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [...CLI_ARGS, ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });
  void cwd;
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe.skipIf(!CHROMIUM_PRESENT)('harness view in headless Chromium', () => {
  let dir: string;
  let runsDir: string;
  let server: ChildProcess;
  let url: string;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];

  beforeAll(async () => {
    if (!existsSync(WEB)) {
      // `npm run build` builds the bundle; build it here when a developer runs this test alone.
      const build = spawnSync(process.execPath, ['scripts/build-web.mjs'], { cwd: ROOT, encoding: 'utf8' });
      if (build.status !== 0) throw new Error(`web build failed: ${build.stderr}`);
    }
    mkdirSync(SHOTS, { recursive: true });
    dir = mkdtempSync(join(tmpdir(), 'viewer-e2e-'));
    runsDir = join(dir, 'runs');
    for (const v of ['v1', 'v2', 'live'] as const) writeFileSync(join(dir, `suite-${v}.json`), suite(v));
    for (const v of ['v1', 'v2'] as const) {
      const r = harness(
        [
          'run',
          join(dir, `suite-${v}.json`),
          '--runs-dir',
          runsDir,
          '--format',
          'json',
          '--no-progress',
          '--no-thresholds',
        ],
        dir,
      );
      expect(r.stderr).not.toMatch(/warning/);
      expect(r.status).toBe(0);
      await new Promise((res) => setTimeout(res, 1100)); // run folders are named by the second
    }

    server = spawn(process.execPath, [...CLI_ARGS, 'view', '--port', '0', '--runs-dir', runsDir], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    url = await new Promise<string>((resolve, reject) => {
      let out = '';
      server.stdout?.on('data', (d: Buffer) => {
        out += d.toString();
        const m = out.match(/harness view: (http:\/\/127\.0\.0\.1:\d+\/)/);
        if (m?.[1]) resolve(m[1]);
      });
      server.stderr?.on('data', (d: Buffer) => errors.push(d.toString()));
      server.on('exit', (code) => reject(new Error(`harness view exited with ${code}: ${errors.join('')}`)));
    });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
  });

  afterAll(async () => {
    await browser?.close();
    if (server && server.exitCode === null) {
      const exited = new Promise((res) => server.once('exit', res));
      server.kill('SIGINT');
      await exited;
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('lists the runs with their metrics', async () => {
    await page.goto(url);
    await page.getByRole('heading', { name: 'Runs' }).waitFor();
    const rows = page.locator('table.runs tbody tr');
    await expect.poll(() => rows.count(), POLL).toBe(2);
    await expect.poll(() => rows.first().innerText(), POLL).toMatch(/support-bot v2/);
    expect(await rows.nth(1).innerText()).toMatch(/viewer-demo[\s\S]*support-bot v1[\s\S]*completed[\s\S]*83\.3%/);
    expect(await page.locator('body').innerText()).toMatch(/success_rate/);
    await page.screenshot({ path: join(SHOTS, '01-run-list.png'), fullPage: true });
  });

  it('opens a run: metric cards and a filterable, server-paged case grid', async () => {
    await page.locator('table.runs tbody tr').nth(1).getByRole('link').first().click();
    await page.getByText('Pass rate', { exact: true }).waitFor();
    const grid = page.getByRole('grid', { name: 'cases' });
    await expect.poll(() => grid.locator('.vfoot').innerText(), POLL).toBe('6 rows');
    await expect.poll(() => grid.getByRole('row').count(), POLL).toBe(7); // header + 6
    await page.getByLabel('failed', { exact: true }).check();
    await expect.poll(() => grid.locator('.vfoot').innerText(), POLL).toBe('1 rows');
    expect(await grid.locator('.vrow').first().innerText()).toMatch(/greeting/);
    expect(page.url()).toMatch(/status=failed/);
    await page.getByLabel('failed', { exact: true }).uncheck();
    await page.getByRole('button', { name: /#billing/ }).click();
    await expect.poll(() => grid.locator('.vfoot').innerText(), POLL).toBe('2 rows');
    await page.screenshot({ path: join(SHOTS, '02-run.png'), fullPage: true });
  });

  it('drills into a case: evaluations and the tool-call timeline', async () => {
    await page.getByRole('grid', { name: 'cases' }).getByText('refund-order').click();
    await page.getByRole('heading', { name: 'Refund an order' }).waitFor();
    const calls = page.getByRole('list', { name: 'tool calls' });
    await expect.poll(() => calls.locator('li').count(), POLL).toBe(2);
    expect(await calls.innerText()).toMatch(/lookup_order[\s\S]*issue_refund/);
    await calls.getByText('arguments and result').first().click();
    expect(await calls.innerText()).toMatch(/"amount": 40/);
    expect(await page.locator('table').innerText()).toMatch(/tool_usage[\s\S]*passed/);
    await page.screenshot({ path: join(SHOTS, '03-case.png'), fullPage: true });
  });

  it('shows untrusted agent output as text, never as markup', async () => {
    await page.goBack();
    // The run page kept its filters (they live in the URL); clear them to see every case.
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await page.getByRole('grid', { name: 'cases' }).getByText('html-echo').click();
    const output = page.getByLabel('agent output');
    await expect.poll(() => output.innerText(), POLL).toContain(XSS);
    expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
    expect(await page.locator('main img').count()).toBe(0);
  });

  it('compares two runs: paired statistics and per-case deltas', async () => {
    await page.goto(url);
    const rows = page.locator('table.runs tbody tr');
    await expect.poll(() => rows.count(), POLL).toBe(2);
    await rows.nth(0).getByRole('checkbox').check();
    await rows.nth(1).getByRole('checkbox').check();
    await page.getByRole('link', { name: 'Compare selected' }).click();
    await page.getByRole('heading', { name: 'Comparison' }).waitFor();
    const stats = page.getByRole('table', { name: 'paired statistics' });
    await expect.poll(() => stats.innerText(), POLL).toMatch(/pass_rate\s+6\s/);
    const chips = page.getByLabel('case changes');
    expect(await chips.innerText()).toMatch(/newly failing 2[\s\S]*newly passing 1/);
    const grid = page.getByRole('grid', { name: 'case deltas' });
    await expect.poll(() => grid.locator('.vfoot').innerText(), POLL).toBe('3 rows');
    expect(await grid.innerText()).toMatch(/regressed[\s\S]*(refund-order|order-status)/);
    await page.screenshot({ path: join(SHOTS, '04-compare.png'), fullPage: true });
    // A regressed case, side by side: the baseline's answer and trajectory against the candidate's.
    await grid.getByText('refund-order').click();
    await page.getByRole('heading', { name: 'Refund an order' }).waitFor();
    const sides = page.locator('.side');
    await expect.poll(() => sides.nth(1).innerText(), POLL).toMatch(/I cannot help with refunds/);
    expect(await sides.nth(0).innerText()).toMatch(/Refund issued for A1[\s\S]*lookup_order[\s\S]*issue_refund/);
    expect(await sides.nth(1).innerText()).toMatch(/failed[\s\S]*No tool calls or spans recorded/);
    await page.screenshot({ path: join(SHOTS, '05-compare-case.png'), fullPage: true });
    await page.goBack();
    await page.getByRole('heading', { name: 'Comparison' }).waitFor();
  });

  it('charts a metric over the suite history', async () => {
    await page.getByRole('link', { name: 'viewer-demo' }).first().click();
    await page.getByRole('img', { name: 'success_rate over runs' }).waitFor();
    const table = page.getByRole('table', { name: 'metric history' });
    await expect.poll(() => table.locator('tbody tr').count(), POLL).toBe(2);
    expect(await table.innerText()).toMatch(/83\.3%[\s\S]*66\.7%/);
    await page.screenshot({ path: join(SHOTS, '06-history.png'), fullPage: true });
  });

  it('updates live while a run is in progress', async () => {
    await page.goto(url);
    await expect.poll(() => page.locator('table.runs tbody tr').count(), POLL).toBe(2);
    const run = spawn(
      process.execPath,
      [
        ...CLI_ARGS,
        'run',
        join(dir, 'suite-live.json'),
        '--runs-dir',
        runsDir,
        '--format',
        'json',
        '--no-progress',
        '--concurrency',
        '1',
      ],
      { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let runErr = '';
    run.stderr?.on('data', (d: Buffer) => {
      runErr += d.toString();
    });
    const finished = new Promise<number | null>((res) => run.once('exit', res));
    void finished.then((code) => {
      if (code !== 0) errors.push(`live run exited ${code}: ${runErr}`);
    });
    // The new run shows up without a reload, then finishes with all six cases.
    const row = page.locator('table.runs tbody tr', { hasText: 'live-demo' });
    await row.waitFor({ timeout: 30_000 }).catch(async (err: Error) => {
      throw new Error(
        `${err.message}\n${errors.join('\n')}\nruns in the index: ${JSON.stringify(await (await fetch(`${url}api/runs`)).json()).slice(0, 3000)}`,
      );
    });
    await row.getByRole('link').first().click();
    // Scope to the run page's header: until the click navigates, the run list's own 'completed' badges are on screen.
    const head = page.locator('.run-head', { hasText: 'live-demo' });
    await head.getByText('completed', { exact: true }).waitFor({ timeout: 30_000 });
    await expect
      .poll(() => page.getByRole('grid', { name: 'cases' }).locator('.vfoot').innerText(), { timeout: 30_000 })
      .toBe('6 rows');
    await page.screenshot({ path: join(SHOTS, '07-live-run.png'), fullPage: true });
    expect(await finished).toBe(0);
    expect(errors.filter((e) => e.startsWith('page error'))).toEqual([]);
  });
});
