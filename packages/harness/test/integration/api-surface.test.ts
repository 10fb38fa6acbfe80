import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The public surface of each workspace package: its `exports` map and the runtime names each entry exports.
// The committed `packages/<pkg>/api-surface.txt` is the reviewed surface; a change to it is a change to what
// users can import, so it must be made on purpose: `UPDATE_API_SURFACE=1 npx vitest run <this file>` rewrites it.

const REPO = fileURLToPath(new URL('../../../../', import.meta.url));
const PACKAGES = ['models', 'harness', 'soclab'] as const;
type PackageName = (typeof PACKAGES)[number];
type ExportTarget = string | { types: string; default: string };

function exportsMap(pkg: PackageName): Record<string, ExportTarget> {
  const manifest = JSON.parse(readFileSync(`${REPO}packages/${pkg}/package.json`, 'utf8')) as {
    exports: Record<string, ExportTarget>;
  };
  return manifest.exports;
}

/** Entries that are modules (everything but `./package.json`), as import specifiers. */
function moduleSpecifiers(pkg: PackageName): string[] {
  return Object.entries(exportsMap(pkg))
    .filter(([, target]) => typeof target !== 'string')
    .map(([subpath]) => `@aeh/${pkg}${subpath.slice(1)}`);
}

function renderSurface(pkg: PackageName, namesBySpecifier: Record<string, string[]>): string {
  const lines = [
    `# Public surface of @aeh/${pkg}: the exports map and the runtime names of each entry.`,
    '# Rewrite on purpose only: UPDATE_API_SURFACE=1 npx vitest run packages/harness/test/integration/api-surface.test.ts',
    '',
    'exports:',
    ...Object.keys(exportsMap(pkg)).map((subpath) => `  ${subpath}`),
  ];
  for (const [specifier, names] of Object.entries(namesBySpecifier)) {
    lines.push('', `${specifier}:`, ...names.map((name) => `  ${name}`));
  }
  return `${lines.join('\n')}\n`;
}

/** Lines only in `actual` (+) or only in `expected` (-), each under the section it belongs to. */
function surfaceDiff(expected: string, actual: string): string[] {
  const keyed = (text: string) => {
    const out: string[] = [];
    let section = '';
    for (const line of text.split('\n')) {
      if (line.startsWith('#') || line === '') continue;
      if (!line.startsWith('  ')) section = line;
      else out.push(`${section} ${line.trim()}`);
    }
    return out;
  };
  const before = new Set(keyed(expected));
  const after = new Set(keyed(actual));
  return [
    ...[...after].filter((l) => !before.has(l)).map((l) => `+ ${l}`),
    ...[...before].filter((l) => !after.has(l)).map((l) => `- ${l}`),
  ];
}

async function sourceSurface(pkg: PackageName): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const specifier of moduleSpecifiers(pkg)) {
    // Resolved through vitest's aliases, which are built from the same exports map (vitest.config.ts).
    const mod = (await import(/* @vite-ignore */ specifier)) as Record<string, unknown>;
    out[specifier] = Object.keys(mod).sort();
  }
  return out;
}

describe('public API surface', () => {
  it.each(PACKAGES)('@aeh/%s exports only named entries, each built and backed by a source file', (pkg) => {
    const map = exportsMap(pkg);
    expect(Object.keys(map)).toContain('.');
    for (const [subpath, target] of Object.entries(map)) {
      // A wildcard would make every internal file public again.
      expect(subpath, `${pkg}: wildcard export ${subpath}`).not.toContain('*');
      if (typeof target === 'string') continue;
      const source = target.default.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts');
      expect(existsSync(`${REPO}packages/${pkg}/${source}`), `${pkg} ${subpath}: no ${source}`).toBe(true);
      for (const built of [target.default, target.types]) {
        expect(existsSync(`${REPO}packages/${pkg}/${built}`), `${pkg} ${subpath}: ${built} not built (tsc -b)`).toBe(
          true,
        );
      }
    }
  });

  it.each(PACKAGES)('@aeh/%s matches its committed api-surface.txt', async (pkg) => {
    const file = `${REPO}packages/${pkg}/api-surface.txt`;
    const actual = renderSurface(pkg, await sourceSurface(pkg));
    if (process.env.UPDATE_API_SURFACE === '1') writeFileSync(file, actual);
    const expected = existsSync(file) ? readFileSync(file, 'utf8') : '';
    const diff = surfaceDiff(expected, actual);
    expect(
      diff,
      `the public surface of @aeh/${pkg} changed (+ added, - removed). If intended, run ` +
        'UPDATE_API_SURFACE=1 npx vitest run packages/harness/test/integration/api-surface.test.ts and commit ' +
        `packages/${pkg}/api-surface.txt`,
    ).toEqual([]);
    expect(actual).toBe(expected);
  });

  it('the built packages import through their exports maps in plain Node, and nothing else is reachable', () => {
    // A consumer's view: Node resolves @aeh/* through node_modules and each package.json `exports`, into dist/.
    const specifiers = PACKAGES.flatMap(moduleSpecifiers);
    const script = `
      const out = {};
      for (const s of ${JSON.stringify(specifiers)}) out[s] = Object.keys(await import(s)).sort();
      let blocked;
      try { await import('@aeh/harness/runner/runner'); } catch (err) { blocked = err.code; }
      console.log(JSON.stringify({ out, blocked }));`;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: REPO,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const { out, blocked } = JSON.parse(run.stdout) as { out: Record<string, string[]>; blocked: string };
    // An internal module stays internal for users of the built package.
    expect(blocked).toBe('ERR_PACKAGE_PATH_NOT_EXPORTED');
    for (const pkg of PACKAGES) {
      const committed = readFileSync(`${REPO}packages/${pkg}/api-surface.txt`, 'utf8');
      const fromDist = Object.fromEntries(moduleSpecifiers(pkg).map((s) => [s, out[s] ?? []]));
      expect(surfaceDiff(committed, renderSurface(pkg, fromDist)), `dist of @aeh/${pkg} vs api-surface.txt`).toEqual(
        [],
      );
    }
  });
});
