import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StudyResult } from '../../../src/campaign/study.js';
import { findLeaks } from '../../../src/control/redaction.js';
import { type EvidenceStore, openEvidenceStore } from '../../../src/evidence/store.js';
import { findChromium, PdfSupportError, renderPdf } from '../../../src/reports/pdf.js';
import { smallStudy } from '../../helpers/report-fixtures.js';

const chromium = process.env.CHROMIUM_PATH;
const hasPoppler = (() => {
  try {
    execFileSync('pdftotext', ['-v'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

describe('PDF support', () => {
  it('without Chromium, names the Debian package to install', () => {
    expect(() => findChromium({ CHROMIUM_PATH: '/nonexistent/chromium' })).toThrow(PdfSupportError);
    expect(() => findChromium({ CHROMIUM_PATH: '/nonexistent/chromium' })).toThrow(/Debian package `chromium`/);
  });
});

if (!chromium && !process.env.CI) {
  describe.skip('one-page executive PDF (set CHROMIUM_PATH; install the Debian package `chromium`)', () => {
    it('skipped', () => {});
  });
} else {
  describe('one-page executive PDF (headless Chromium)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'soclab-pdf-'));
    let evidence: EvidenceStore;
    let study: StudyResult;
    beforeAll(async () => {
      evidence = await openEvidenceStore(':memory:');
      study = await smallStudy(join(dir, 'study'), evidence);
    });
    afterAll(async () => {
      await evidence?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('renders one page that leads with the level, carries no canary, and is byte-identical for the same scorecard', async () => {
      if (!chromium) throw new Error('CHROMIUM_PATH is not set: install the Debian package `chromium` (CI=true)');
      if (!hasPoppler) {
        if (process.env.CI)
          throw new Error('pdftotext is missing: install the Debian package `poppler-utils` (CI=true)');
        return;
      }
      const card = study.scorecards.baseline!;
      const first = await renderPdf(card, { chromiumPath: chromium });
      const second = await renderPdf(card, { chromiumPath: chromium });
      expect(first.subarray(0, 5).toString()).toBe('%PDF-');
      expect(first.equals(second)).toBe(true);
      const file = join(dir, 'executive.pdf');
      writeFileSync(file, first);
      const info = execFileSync('pdfinfo', [file], { encoding: 'utf8' });
      expect(info).toMatch(/^Pages:\s+1$/m);
      expect(info).toContain(`Executive assurance summary: baseline (${card.campaign.campaign_id})`);
      const text = execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });
      expect(text.indexOf('Executive assurance summary')).toBeLessThan(text.indexOf('Mandatory gates'));
      expect(text).toContain(`Recommended authority level: ${card.assessment.authority.level}`);
      expect(text).toContain('Mandatory gate failed');
      expect(findLeaks(text, { sink: 'report' })).toEqual([]);
      expect(text).not.toContain('<script');
    });
  });
}
