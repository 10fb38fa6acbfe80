import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { htmlReporter } from '../../src/reporters/html.js';
import { chromiumAvailable, launchChromium } from '../helpers/chromium.js';
import { defined } from '../helpers/defined.js';
import { cases, experiment } from '../unit/comparison/fixtures.js';

const chromiumPresent = chromiumAvailable('html report browser test');
const OUT = resolve(__dirname, '../../test-output/html-report');
const ATTACK = '</script><script>alert("pwned")</script><img src=x onerror=alert(2)>';

describe.skipIf(!chromiumPresent)('html report in headless Chromium', () => {
  let browser: Browser;
  let file = '';

  beforeAll(async () => {
    mkdirSync(OUT, { recursive: true });
    const run = experiment(
      'browser-run',
      cases(
        30,
        (i) => i % 3 !== 1,
        (i) => ({ output: i === 4 ? `answer ${ATTACK}` : `answer ${i}`, name: `case ${i}` }),
      ),
      {
        metrics: {
          success_rate: {
            name: 'success_rate',
            value: 0.67,
            formatted_value: '66.7%',
            interval: { lower: 0.49, upper: 0.81 },
          },
        },
      },
    );
    run.results.forEach((r, i) => {
      r.tags = i % 2 === 0 ? ['billing'] : ['search'];
    });
    const fifth = defined(run.results[4], 'result 4');
    fifth.output.tool_calls = [
      { tool_name: 'lookup', args: { q: ATTACK }, result: { ok: true }, duration: 0.1, status: 'success', error: null },
      { tool_name: 'refund', args: {}, result: null, duration: 0.3, status: 'error', error: 'denied' },
    ];
    defined(fifth.evaluations[0], 'the first evaluation of result 4').explanation = `explained ${ATTACK}`;
    file = join(OUT, 'report.html');
    await htmlReporter.create({} as never).report(run, file);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
  });

  it('runs its own script, never the agent output, and shows the output as text in the drill-down', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    const dialogs: string[] = [];
    const errors: string[] = [];
    const requests: string[] = [];
    page.on('dialog', async (d) => {
      dialogs.push(d.message());
      await d.dismiss();
    });
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('request', (r) => {
      if (!r.url().startsWith('file:')) requests.push(r.url());
    });
    await page.goto(pathToFileURL(file).href);
    await page.waitForSelector('html[data-ready="1"]');
    expect(await page.locator('script').count()).toBe(2);
    expect(await page.textContent('#f-count')).toBe('30 of 30 shown');

    await page.selectOption('#f-status', 'failed');
    expect(await page.textContent('#f-count')).toBe('10 of 30 shown');
    await page.selectOption('#f-tag', 'search');
    expect(await page.textContent('#f-count')).toBe('5 of 30 shown');
    await page.selectOption('#f-tag', '');
    await page.selectOption('#f-status', '');
    await page.fill('#f-text', 'pwned');
    expect(await page.textContent('#f-count')).toBe('1 of 30 shown');

    await page.click('#case-4');
    await page.waitForSelector('#drill:not([hidden])');
    const drill = await page.textContent('#drill-content');
    expect(drill).toContain(`answer ${ATTACK}`);
    expect(drill).toContain(`explained ${ATTACK}`);
    expect(drill).toContain('Tool-call trajectory (2)');
    expect(drill).toContain('denied');
    await page.screenshot({ path: join(OUT, 'drill-down.png') });
    await page.keyboard.press('Escape');
    expect(await page.isHidden('#drill')).toBe(true);

    expect(dialogs).toEqual([]);
    expect(errors).toEqual([]);
    expect(requests).toEqual([]);
    await page.close();
  });

  it('sorts by a column and draws only the rows in view of a large run', async () => {
    const big = experiment(
      'big',
      cases(
        3000,
        (i) => i % 7 !== 0,
        (i) => ({ name: `row ${i}`, score: i % 7 === 0 ? 0 : 1 - (i % 100) / 1000 }),
      ),
    );
    const bigFile = join(OUT, 'big.html');
    await htmlReporter.create({} as never).report(big, bigFile);
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(pathToFileURL(bigFile).href);
    await page.waitForSelector('html[data-ready="1"]');
    expect(await page.locator('#grid-rows .row').count()).toBeLessThan(120);
    await page.click('.row.head [data-sort="score"]');
    expect(await page.textContent('#grid-rows .row[data-k="0"] .badge')).toBe('fail');
    await page.click('.row.head [data-sort="score"]');
    expect(await page.textContent('#grid-rows .row[data-k="0"] .badge')).toBe('pass');
    await page.evaluate(() => {
      const v = document.getElementById('grid-viewport') as HTMLElement;
      v.scrollTop = v.scrollHeight;
    });
    await page.waitForSelector('#grid-rows .row[data-k="2999"]');
    expect(await page.locator('#grid-rows .row').count()).toBeLessThan(120);
    await page.close();
  });

  it('opens a case from its #case-N link', async () => {
    const page = await browser.newPage();
    await page.goto(`${pathToFileURL(file).href}#case-7`);
    await page.waitForSelector('#drill:not([hidden])');
    expect(await page.textContent('#drill-content h3')).toBe('case 7');
    await page.close();
  });
});
