// biome-ignore-all lint/performance/useDomNodeTextContent: these are Playwright Locator.innerText() calls, not the DOM property
/**
 * The pages people read at a glance, in headless Chromium, with screenshots in test-output/daily-use/: the
 * technical report's decisions as readable rows, the console replay of a run-level attack with its verdict,
 * the harness viewer's run page (gate, headline, charts, failures by reason) and the viewer's comparison of
 * the two soclab demo runs (nested under the runs folder) leading with soclab's headline.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../../../harness/src/store/run-store.js';
import { startViewer } from '../../../../harness/src/viewer/server.js';
import { chromiumAvailable, launchChromium } from '../../../../harness/test/helpers/chromium.js';
import { call, finished, startServer, TOKENS } from '../../helpers/api.js';

const ROOT = fileURLToPath(new URL('../../../../../', import.meta.url));
const SHOTS = join(ROOT, 'test-output/daily-use');
const HARNESS_WEB = join(ROOT, 'packages/harness/dist/web');
const SOCLAB_WEB = join(ROOT, 'packages/soclab/dist/web');
const POLL = { timeout: 30_000 };

const CHROMIUM_PRESENT = chromiumAvailable('daily-use browser test');

describe.skipIf(!CHROMIUM_PRESENT)('pages people read at a glance (Chromium)', () => {
  let dir: string;
  let browser: Browser;
  const errors: string[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'soclab-daily-use-'));
    mkdirSync(SHOTS, { recursive: true });
    const demo = spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        join(ROOT, 'packages/soclab/src/cli/main.ts'),
        'demo',
        '--out',
        join(dir, 'runs', 'demo'),
        '--db',
        join(dir, 'soclab.sqlite'),
      ],
      { cwd: ROOT, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' }, timeout: 120_000 },
    );
    expect(demo.status, demo.stderr).toBe(0);
    browser = await launchChromium();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function page(): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1300, height: 1000 } });
    context.setDefaultTimeout(60_000);
    const p = await context.newPage();
    p.on('pageerror', (e) => errors.push(String(e)));
    return p;
  }

  it('technical report: decisions as rows with badges, grouped and collapsible, raw JSON one click away', async () => {
    const p = await page();
    await p.goto(`file://${join(dir, 'runs', 'demo', 'technical.html')}`);
    const group = p.locator('details.decision-group').first();
    await group.locator(':scope > summary').click();
    await expect.poll(() => group.getAttribute('open'), POLL).not.toBeNull();
    const row = group.locator('tr.event-row').first();
    expect(await row.innerText()).toMatch(/Policy decision[\s\S]*matched policies/);
    // The raw JSON is present but closed until clicked.
    const raw = row.locator('details.raw');
    expect(await raw.getAttribute('open')).toBeNull();
    expect(await raw.locator('pre').isVisible()).toBe(false);
    await raw.locator(':scope > summary').click();
    expect(await raw.locator('pre').innerText()).toMatch(/^\{"/);
    await group.scrollIntoViewIfNeeded();
    await p.screenshot({ path: join(SHOTS, '01-technical-report-decisions.png') });
    await p.context().close();
  });

  it('console replay: a run-level attack step shows "stopped" and what stopped it, not JSON', async () => {
    const server = await startServer({}, { webRoot: SOCLAB_WEB });
    try {
      const started = await call(server.base, 'POST', '/api/v1/campaigns', {
        as: 'operator',
        body: { mode: 'protected', scenario_ids: ['ATK-010'] },
      });
      expect(started.status).toBe(202);
      const done = await finished(server.base, started.body.campaign_id);
      const runId = done.runs[0].evidence.run_id as string;
      const replay = await call(server.base, 'GET', `/api/v1/runs/${runId}/replay`, { as: 'viewer' });
      const step = replay.body.steps.findIndex((s: { kind: string }) => s.kind === 'harness_attack');
      expect(step).toBeGreaterThan(0);
      const p = await page();
      await p.addInitScript((token) => sessionStorage.setItem('soclab.console.token', token), TOKENS.viewer);
      await p.goto(`${server.base}/#/runs/${runId}?step=${step}`);
      const body = p.locator(`[data-testid=step-body][data-step="${step}"]`);
      await body.waitFor();
      await p.screenshot({ path: join(SHOTS, '02-replay-run-level-attack.png') });
      expect(await body.innerText()).toMatch(/^[\s\S]*stopped/);
      expect(await p.locator('[data-testid=step-verdict]').innerText()).toBe('stopped');
      expect(await p.locator('[data-testid=step-facts]').innerText()).toMatch(/stopped by/);
      await p.screenshot({ path: join(SHOTS, '02-replay-run-level-attack.png') });
      await p.goto(`${server.base}/#/runs/${runId}?step=0`);
      await p.locator('[data-testid=step-body][data-step="0"]').waitFor();
      expect(await p.locator('[data-testid=step-facts]').innerText()).toMatch(/scenario\s+ATK-010/);
      await p.context().close();
    } finally {
      await server.close();
    }
  }, 180_000);

  it('harness viewer: nested soclab runs indexed; run page and comparison tell soclab’s story', async () => {
    const runsDir = join(dir, 'runs');
    const store = await openStore({ store: join(dir, 'index.sqlite'), runsDir });
    const rebuilt = await store.rebuildIndex(runsDir);
    expect(rebuilt.errors).toEqual([]);
    expect(rebuilt.indexed).toHaveLength(2);
    const ids = Object.fromEntries(rebuilt.indexed.map((r) => [r.location.split('/').at(-1), r.id]));
    const viewer = await startViewer({ store, runsDir, port: 0, watch: false, webRoot: HARNESS_WEB });
    try {
      const p = await page();
      await p.goto(`${viewer.url}#/runs/${ids.baseline}`);
      await p.locator('[data-testid=run-title]').waitFor();
      expect(await p.locator('[data-testid=run-title]').innerText()).toMatch(/^baseline/);
      expect(await p.locator('[data-testid=gate-verdict]').innerText()).toMatch(/No thresholds declared/);
      expect(await p.locator('[data-testid=headline]').innerText()).toMatch(
        /Headline: soclab_attack_success_rate\s+\d+\.\d% \(\d+\/\d+\)[\s\S]*95% CI \[\d+\.\d%, \d+\.\d%\]/i,
      );
      await p.locator('[data-testid=failure-groups] tbody tr').first().waitFor();
      expect(await p.locator('[data-testid=failure-groups]').innerText()).toMatch(/failed soclab_/);
      expect(await p.locator('[data-testid=run-charts] svg').count()).toBeGreaterThanOrEqual(3);
      expect(await p.title()).toMatch(/^baseline · harness view$/);
      expect(await p.locator('link[rel=icon]').count()).toBe(1);
      await p.screenshot({ path: join(SHOTS, '03-viewer-run-page.png'), fullPage: true });

      await p.goto(`${viewer.url}#/compare/${ids.baseline}/${ids.protected}`);
      const headline = p.locator('[data-testid=compare-headline]');
      await headline.waitFor();
      expect(await headline.innerText()).toMatch(
        /soclab_attack_success_rate \(lower is better\): \d+\.\d% \(\d+\/\d+\) → 0\.0% \(0\/\d+\), -\d+\.\d pt, better/,
      );
      const metrics = await p.locator('table').first().innerText();
      expect(metrics).not.toMatch(/\+300/);
      await p.screenshot({ path: join(SHOTS, '04-viewer-soclab-compare.png'), fullPage: true });
      await p.context().close();
    } finally {
      await viewer.close();
      await store.close();
    }
    expect(errors).toEqual([]);
  }, 120_000);
});
