import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

/**
 * The one way both packages' browser tests find and start Chromium (harness report and viewer, soclab console and
 * daily-use pages): `CHROMIUM_PATH`, else Debian's `/usr/bin/chromium`.
 */
export const CHROMIUM: string | undefined =
  process.env.CHROMIUM_PATH || (existsSync('/usr/bin/chromium') ? '/usr/bin/chromium' : undefined);

/** Headless, no sandbox (CI runs as root), and none of the background traffic a fresh profile starts. */
export const CHROMIUM_FLAGS: readonly string[] = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

/**
 * Whether the browser test `what` can run. Under CI a missing Chromium fails the file (a skipped browser test must
 * never pass for a green run); locally it is skipped with a message.
 */
export function chromiumAvailable(what: string): boolean {
  if (!CHROMIUM && process.env.CI) {
    throw new Error('CHROMIUM_PATH is not set: CI must provide Chromium (apt-get install chromium)');
  }
  if (!CHROMIUM) console.warn(`Chromium not found (set CHROMIUM_PATH or apt-get install chromium): ${what} skipped`);
  return CHROMIUM !== undefined;
}

/** Start headless Chromium with the shared flags. */
export function launchChromium(): Promise<Browser> {
  if (!CHROMIUM) throw new Error('Chromium not found (set CHROMIUM_PATH or apt-get install chromium)');
  return chromium.launch({ executablePath: CHROMIUM, args: [...CHROMIUM_FLAGS], headless: true });
}
