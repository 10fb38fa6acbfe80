import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { renderHtml } from './render.js';
import type { Scorecard } from './scorecard.js';

/** Chromium is not installed (or CHROMIUM_PATH points nowhere): the PDF cannot be rendered. */
export class PdfSupportError extends Error {
  override name = 'PdfSupportError';
}

const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

/** `CHROMIUM_PATH`, else `chromium` on the PATH; throws PdfSupportError naming the package to install. */
export function findChromium(env: NodeJS.ProcessEnv = process.env): string {
  const configured = env.CHROMIUM_PATH?.trim();
  if (configured) {
    if (!existsSync(configured)) {
      throw new PdfSupportError(
        `CHROMIUM_PATH=${configured} does not exist; install the Debian package \`chromium\` (sudo apt-get install chromium) or point CHROMIUM_PATH at a Chromium binary`,
      );
    }
    return configured;
  }
  for (const name of ['chromium', 'chromium-browser']) {
    try {
      const found = execFileSync('which', [name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
      if (found) return found;
    } catch {
      // not on the PATH
    }
  }
  throw new PdfSupportError(
    'the PDF report needs Chromium: install the Debian package `chromium` (sudo apt-get install chromium) or set CHROMIUM_PATH to a Chromium binary; `--format text` and `--format html` work without it',
  );
}

/** `D:YYYYMMDDHHmmSS+00'00'` for a date (PDF date format). */
function pdfDate(date: Date): string {
  const iso = date.toISOString();
  return `D:${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}+00'00'`;
}

/**
 * Pin the PDF's creation and modification dates to the report date (SOURCE_DATE_EPOCH), replacing each date
 * string in place with one of the same length so cross-reference offsets stay valid.
 */
function pinDates(pdf: Buffer, date: Date): Buffer {
  const text = pdf.toString('latin1');
  const stamp = pdfDate(date);
  const pinned = text.replace(/\/(CreationDate|ModDate) ?\((D:[^)]*)\)/g, (match, _key: string, value: string) => {
    if (value.length !== stamp.length) return match;
    return match.replace(value, stamp);
  });
  return Buffer.from(pinned, 'latin1');
}

export interface PdfOptions {
  chromiumPath?: string;
  /** Where CHROMIUM_PATH is read (default process.env). */
  env?: NodeJS.ProcessEnv;
}

/**
 * Render the one-page executive summary of a scorecard as an A4 PDF through headless Chromium (playwright-core).
 * Content taller than a page is scaled down to fit one page.
 */
export async function renderPdf(scorecard: Scorecard, options: PdfOptions = {}): Promise<Buffer> {
  const executablePath = options.chromiumPath ?? findChromium(options.env);
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath, args: CHROMIUM_FLAGS, headless: true });
  try {
    // The printable area of A4 with 10 mm margins at 96 dpi: 718 x 1047 px.
    const page = await browser.newPage({ viewport: { width: 718, height: 1047 } });
    // Nothing in the page may reach the network (the report is self-contained).
    await page.route('**/*', (route) =>
      route.request().url().startsWith('data:') ? route.continue() : route.abort('blockedbyclient'),
    );
    await page.setContent(renderHtml(scorecard, 'onepage'), { waitUntil: 'load' });
    const height = await page.evaluate(() => document.documentElement.scrollHeight);
    const scale = Math.max(0.4, Math.min(1, 1040 / Math.max(1, height)));
    const pdf = await page.pdf({
      format: 'A4',
      printBackground: true,
      margin: { top: '10mm', bottom: '10mm', left: '10mm', right: '10mm' },
      scale,
      pageRanges: '1',
    });
    // The scorecard's date (SOURCE_DATE_EPOCH when it was built): the same scorecard gives the same dates.
    return pinDates(Buffer.from(pdf), new Date(scorecard.generated_at));
  } finally {
    await browser.close();
  }
}
