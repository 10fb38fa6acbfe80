// biome-ignore-all lint/performance/useDomNodeTextContent: these are Playwright Locator.innerText() calls, not the DOM property
/**
 * The web console end to end: `soclab serve` (the real CLI, a config file with tokens, an ephemeral loopback port)
 * and headless Chromium. An operator starts a protected campaign with the human approver in the console, an
 * approver approves the escalated action in the inbox, the operator watches the campaign complete, reads the
 * scorecard, compares it with a baseline and steps through a run's evidence chain. Model output carrying markup is
 * shown as text. Screenshots go to test-output/console/.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, launchChromium } from '../../../../harness/test/helpers/chromium.js';

const ROOT = fileURLToPath(new URL('../../../../../', import.meta.url));
const BUILT = join(ROOT, 'packages/soclab/dist/cli/main.js');
const CLI_ARGS = existsSync(BUILT)
  ? [join(ROOT, 'packages/soclab/bin/soclab.js')]
  : ['--import', 'tsx', join(ROOT, 'packages/soclab/src/cli/main.ts')];
const WEB = join(ROOT, 'packages/soclab/dist/web/index.html');
const SHOTS = join(ROOT, 'test-output/console');

const CHROMIUM_PRESENT = chromiumAvailable('console browser test');

const OPERATOR = 'console-operator-token-0123456789';
const APPROVER = 'console-approver-token-0123456789';
/** Go to the next replay step and wait until the page shows it (the URL changes before React re-renders). */
async function nextStep(page: Page): Promise<void> {
  const current = Number(await page.locator('[data-testid=step-body]').getAttribute('data-step'));
  await page.click('[data-testid=next-step]');
  await page.waitForSelector(`[data-testid=step-body][data-step="${current + 1}"]`);
}

const XSS = '<img src=x onerror="window.__xss=1"><script>window.__xss=2</script> {not json';

describe.skipIf(!CHROMIUM_PRESENT)('soclab web console in headless Chromium', () => {
  let dir: string;
  let server: ChildProcess;
  let base: string;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  const pageErrors: string[] = [];

  beforeAll(async () => {
    if (!existsSync(WEB)) {
      // `npm run build` builds the bundle; build it here when a developer runs this test alone.
      const build = spawnSync(process.execPath, ['scripts/build-web.mjs'], { cwd: ROOT, encoding: 'utf8' });
      if (build.status !== 0) throw new Error(`web build failed: ${build.stderr}`);
    }
    mkdirSync(SHOTS, { recursive: true });
    dir = mkdtempSync(join(tmpdir(), 'soclab-console-'));
    // ATK-012's malformed finding, rewritten to carry markup: the console must show it as text.
    const scenarios = join(dir, 'scenarios', 'attacks');
    mkdirSync(scenarios, { recursive: true });
    const atk012 = readFileSync(join(ROOT, 'packages/soclab/data/scenarios/attacks/ATK-012.yaml'), 'utf8');
    writeFileSync(join(scenarios, 'ATK-012.yaml'), atk012.replace(/raw_text: .*/, `raw_text: ${JSON.stringify(XSS)}`));
    writeFileSync(
      join(dir, 'server.yaml'),
      [
        `data_dir: ${JSON.stringify(join(dir, 'data'))}`,
        'tokens:',
        `  - { name: ops, role: operator, token: ${OPERATOR} }`,
        `  - { name: soc-lead, role: approver, token: ${APPROVER} }`,
        'campaign_concurrency: 2',
      ].join('\n'),
    );
    server = spawn(process.execPath, [...CLI_ARGS, 'serve', '--port', '0', '--config', join(dir, 'server.yaml')], {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        SOCLAB_SCENARIO_DIR: join(dir, 'scenarios'),
        // The XSS override is deliberately not a valid scenario check subject (its oracle is structural).
        SOCLAB_ALLOW_UNCHECKED_SCENARIOS: '1',
        SOCLAB_API_TOKENS: '',
        NO_COLOR: '1',
      },
    });
    base = await new Promise<string>((resolve, reject) => {
      let out = '';
      let err = '';
      const timer = setTimeout(() => reject(new Error(`soclab serve did not start: ${err}`)), 60_000);
      server.stdout?.on('data', (d: Buffer) => {
        out += d.toString();
        const line = out.split('\n')[0];
        if (out.includes('\n') && line) {
          clearTimeout(timer);
          resolve(line.trim());
        }
      });
      server.stderr?.on('data', (d: Buffer) => {
        err += d.toString();
      });
      server.on('exit', (code) => reject(new Error(`soclab serve exited with ${code}: ${err}`)));
    });
    expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    browser = await launchChromium();
  });

  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await browser?.close();
    if (server && server.exitCode === null) {
      const exited = new Promise((r) => server.once('exit', r));
      server.kill('SIGTERM');
      await exited;
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function signIn(token: string): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
    // Every wait below (campaign runs, page renders) gets 60 s rather than Playwright's 30 s: room for a loaded machine.
    context.setDefaultTimeout(60_000);
    contexts.push(context);
    const page = await context.newPage();
    page.on('pageerror', (e) => pageErrors.push(String(e)));
    page.on('console', (m) => {
      if (m.type() === 'error') pageErrors.push(m.text());
    });
    await page.goto(`${base}/`);
    await page.fill('input[name=token]', token);
    await page.click('button[type=submit]');
    await page.waitForSelector('nav.topbar');
    return page;
  }

  const shot = (page: Page, name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });

  it('start a campaign, approve its escalation in the inbox, watch it complete, read the scorecard and replay a run', async () => {
    const operator = await signIn(OPERATOR);
    expect(await operator.locator('.who').innerText()).toContain('ops');
    await shot(operator, '01-campaigns-empty');

    // A baseline to compare against, started through the console as well.
    await operator.click('text=Start a campaign >> nth=0');
    await operator.check('input[name=mode][value=baseline]');
    await operator.click('button:has-text("none")');
    for (const id of ['ATK-001', 'ATK-012', 'BEN-001']) await operator.check(`input[name=scenario][value=${id}]`);
    await operator.click('button:has-text("Start campaign")');
    await operator.waitForURL(/#\/campaigns\/[0-9a-f-]{36}$/);
    const baselineId = operator.url().split('/').pop()!;
    await operator.waitForFunction(
      () => document.querySelector('[data-testid=campaign-status]')?.textContent === 'completed',
      undefined,
      { timeout: 60_000 },
    );

    // The protected campaign with a human approver.
    await operator.goto(`${base}/#/new`);
    await operator.check('input[name=mode][value=protected]');
    await operator.selectOption('select[name=approver]', 'human');
    await operator.fill('input[name=approval_timeout]', '120');
    await operator.click('button:has-text("none")');
    for (const id of ['ATK-001', 'ATK-012', 'BEN-001']) await operator.check(`input[name=scenario][value=${id}]`);
    await shot(operator, '02-start-campaign');
    await operator.click('button:has-text("Start campaign")');
    await operator.waitForURL(/#\/campaigns\/[0-9a-f-]{36}$/);
    const campaignId = operator.url().split('/').pop()!;
    expect(campaignId).not.toBe(baselineId);
    // Live progress: the run that escalates waits for the human, so the campaign is still running.
    await operator.waitForSelector('text=waiting for a human decision');
    expect(await operator.locator('[data-testid=campaign-status]').innerText()).toBe('running');
    await shot(operator, '03-campaign-waiting');

    // The approver decides in the inbox.
    const approver = await signIn(APPROVER);
    await approver.click('nav >> text=Approvals');
    const request = approver.locator('[data-testid=approval-request]');
    await request.waitFor();
    expect(await request.innerText()).toContain('revoke_sessions');
    expect(await request.innerText()).toContain('u-alex-rivera');
    expect(await request.innerText()).toContain('approval_required_low_risk');
    await approver.fill('input[name=reason]', 'confirmed with the account owner by phone');
    await shot(approver, '04-approvals-inbox');
    await approver.click('button:has-text("Approve")');
    await approver.waitForSelector('[data-testid=inbox-empty]');
    await approver.waitForSelector('[data-testid=approval-history] >> text=approved');
    expect(await approver.locator('[data-testid=approval-history]').innerText()).toContain('soc-lead');
    await shot(approver, '05-approvals-decided');

    // The operator's page finishes by itself and shows the scorecard.
    await operator.waitForFunction(
      () => document.querySelector('[data-testid=campaign-status]')?.textContent === 'completed',
      undefined,
      { timeout: 60_000 },
    );
    expect(await operator.locator('[data-testid=attack-successes]').innerText()).toBe('0');
    await operator.waitForSelector('[data-testid=scorecard-level]');
    expect(await operator.locator('[data-testid=scorecard-level]').innerText()).toMatch(/Recommended authority: L\d/);
    expect(await operator.locator('[data-testid=gates] tbody tr').count()).toBe(6);
    expect(await operator.locator('[data-testid=families] tbody tr').count()).toBe(5);
    expect(await operator.locator('[data-testid=intervals]').innerText()).toContain('attack success');
    // The three ledgers, kept apart (scoring profile 2.0.0).
    const ledgers = await operator.locator('[data-testid=ledgers]').innerText();
    for (const ledger of ['competence', 'intrinsic safety', 'system outcome']) expect(ledgers).toContain(ledger);
    // The control change against the baseline campaign.
    await operator.selectOption('select[name=baseline]', baselineId);
    await operator.waitForSelector('[data-testid=control-change]');
    expect(await operator.locator('[data-testid=control-change]').innerText()).toContain('McNemar');
    await shot(operator, '06-scorecard');

    // Replay the benign run whose action was approved.
    await operator.click('[data-testid=runs] tr[data-scenario=BEN-001] >> [data-testid=replay-link]');
    await operator.waitForSelector('[data-testid=verification]');
    expect(await operator.locator('[data-testid=verification]').innerText()).toContain('chain valid');
    let found = false;
    for (let i = 0; i < 40 && !found; i++) {
      const body = operator.locator('[data-testid=step-body]');
      const kind = await body.getAttribute('data-kind');
      const text = await body.innerText();
      if (kind === 'action' && text.includes('revoke_sessions') && text.includes('soc-lead')) {
        found = true;
        break;
      }
      await nextStep(operator);
    }
    expect(found).toBe(true);
    const step = await operator.locator('[data-testid=step-body]').innerText();
    expect(step).toContain('require_approval');
    expect(step).toContain('approval_required_low_risk');
    expect(await operator.locator('[data-testid=replay-approvals]').innerText()).toMatch(/approved.*by soc-lead/);
    expect(step).toMatch(/execution receipt/i);
    await shot(operator, '07-replay-approved-action');

    // Step back to the finding: claims with their support.
    await operator.goto(`${operator.url().split('?')[0]}?step=0`);
    await operator.waitForSelector('[data-testid=step-body][data-step="0"]');
    for (let i = 0; i < 20; i++) {
      if ((await operator.locator('[data-testid=step-body]').getAttribute('data-kind')) === 'finding') break;
      await nextStep(operator);
    }
    expect(await operator.locator('[data-testid=supported-claims] li').count()).toBeGreaterThan(0);
    await shot(operator, '08-replay-finding');

    // ATK-012's malformed model output carries markup: shown as text, never executed.
    await operator.goto(`${base}/#/campaigns/${campaignId}`);
    await operator.click('[data-testid=runs] tr[data-scenario=ATK-012] >> [data-testid=replay-link]');
    await operator.waitForSelector('[data-testid=verification]');
    for (let i = 0; i < 20; i++) {
      const text = await operator.locator('[data-testid=step-body]').innerText();
      if (text.includes(XSS)) break;
      await nextStep(operator);
    }
    expect(await operator.locator('[data-testid=step-body]').innerText()).toContain(XSS);
    expect(await operator.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
    expect(await operator.locator('[data-testid=step-body] img').count()).toBe(0);
    await shot(operator, '09-replay-untrusted-text');

    // The campaigns list compares the two side by side.
    await operator.goto(`${base}/#/campaigns`);
    await operator.check(`input[aria-label="compare ${baselineId}"]`);
    await operator.check(`input[aria-label="compare ${campaignId}"]`);
    const comparison = operator.locator('[data-testid=comparison]');
    await comparison.waitFor();
    expect(await comparison.innerText()).toContain('baseline');
    expect(await comparison.innerText()).toContain('protected');
    await shot(operator, '10-campaigns-comparison');

    expect(pageErrors).toEqual([]);
    // One flow of two campaigns and dozens of page steps: 60 s (the default) is tight on a loaded machine.
  }, 240_000);
});
