import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SOCLAB_VERSION } from '../../src/index.js';
import { soclabVersion } from '../../src/version.js';

describe('soclab version', () => {
  it('is the version in package.json, wherever it is read (no second hard-coded copy to forget on a bump)', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(pkg.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(soclabVersion()).toBe(pkg.version);
    expect(SOCLAB_VERSION).toBe(pkg.version);
  });
});
