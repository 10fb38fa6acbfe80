import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The JUnit schemas committed under test/fixtures/junit (sources noted in each file). */
export const JUNIT_XSDS = {
  'jenkins junit-4': fileURLToPath(new URL('../fixtures/junit/junit-4.xsd', import.meta.url)),
  'ant junit-10': fileURLToPath(new URL('../fixtures/junit/junit-10.xsd', import.meta.url)),
} as const;

const probe = spawnSync('xmllint', ['--version'], { encoding: 'utf8' });
/** xmllint (Debian libxml2-utils, installed by .ci/run) is the independent XSD validator. */
export const XMLLINT_AVAILABLE = probe.status === 0;
export const XMLLINT_SKIP = 'xmllint not installed (apt-get install libxml2-utils): XSD validation skipped';
if (!XMLLINT_AVAILABLE && process.env.CI) throw new Error(`CI is set but ${XMLLINT_SKIP}`);

/** Validate an XML document (text) against an XSD file; returns xmllint's verdict and its messages. */
export function validateXsd(xml: string, xsd: string): { valid: boolean; messages: string } {
  const dir = mkdtempSync(join(tmpdir(), 'aeh-xsd-'));
  try {
    const file = join(dir, 'doc.xml');
    writeFileSync(file, xml);
    const r = spawnSync('xmllint', ['--noout', '--schema', xsd, file], { encoding: 'utf8', timeout: 30_000 });
    return { valid: r.status === 0, messages: `${r.stderr}${r.stdout}`.trim() };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
