import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importSpecifiers, sourceFiles } from '../../../../harness/test/helpers/source-files.js';

// The invariants docs/architecture.md states, checked on the source: the packages depend one way (models <-
// harness <- soclab, so the harness knows nothing of SOC), soclab's contracts/ depends on nothing else in soclab,
// and the orchestrator reaches neither the simulator nor the control plane (it proposes through its own port
// type). Type-only imports count too: a type is a dependency a later edit can turn into a value.

const PACKAGES = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');
const SOCLAB_SRC = join(PACKAGES, 'soclab', 'src');

/** What a specifier reaches: a workspace package (`@aeh/x`), a path into packages/, or something else. */
function target(file: string, specifier: string): { pkg: string | null; path: string | null } {
  const scoped = /^@aeh\/([^/]+)/.exec(specifier);
  if (scoped) return { pkg: scoped[1] as string, path: null };
  if (!specifier.startsWith('.')) return { pkg: null, path: null };
  const path = resolve(dirname(file), specifier);
  const rel = relative(PACKAGES, path);
  return { pkg: rel.startsWith('..') ? null : (rel.split(/[\\/]/)[0] as string), path };
}

/** Which packages each package may import: one way only. */
const MAY_IMPORT: Readonly<Record<string, readonly string[]>> = {
  models: ['models'],
  harness: ['harness', 'models'],
  soclab: ['soclab', 'harness', 'models'],
};

/** soclab folders and the only soclab folders they may import. */
const SOCLAB_ONLY: Readonly<Record<string, readonly string[]>> = {
  contracts: ['contracts'],
  orchestrator: ['orchestrator', 'contracts'],
};

/** Every breach of the rules above in a set of files (paths absolute, under packages/). */
function violations(files: ReadonlyMap<string, string>): string[] {
  const found: string[] = [];
  for (const [file, text] of files) {
    const rel = relative(PACKAGES, file);
    const pkg = rel.split(/[\\/]/)[0] as string;
    const folder = relative(SOCLAB_SRC, file).split(/[\\/]/);
    const soclabFolder = pkg === 'soclab' && folder.length > 1 ? (folder[0] as string) : null;
    for (const { specifier, line } of importSpecifiers(text)) {
      const to = target(file, specifier);
      const where = `${rel}:${line} imports '${specifier}'`;
      if (to.pkg && !(MAY_IMPORT[pkg] ?? []).includes(to.pkg)) {
        found.push(`${where}: ${pkg} must not depend on ${to.pkg}`);
        continue;
      }
      const allowed = soclabFolder ? SOCLAB_ONLY[soclabFolder] : undefined;
      if (allowed && to.path && to.pkg === 'soclab') {
        const toFolder = relative(SOCLAB_SRC, to.path).split(/[\\/]/)[0] as string;
        if (!allowed.includes(toFolder)) found.push(`${where}: soclab ${soclabFolder}/ must not import ${toFolder}/`);
      }
    }
  }
  return found;
}

describe('workspace import graph', () => {
  it('reports each breach: a package importing one that builds on it, contracts or orchestrator reaching out', () => {
    const at = (path: string) => join(PACKAGES, path);
    const fake = new Map([
      [at('harness/src/runner/x.ts'), "import { runCampaign } from '@aeh/soclab';\n"],
      [at('harness/src/store/y.ts'), "import type { Scorecard } from '../../../soclab/src/reports/scorecard.js';\n"],
      [at('models/src/z.ts'), "const h = await import('@aeh/harness/errors');\n"],
      [at('soclab/src/contracts/c.ts'), "import { redact } from '../control/redaction.js';\n"],
      [
        at('soclab/src/orchestrator/o.ts'),
        "import { z } from 'zod';\nimport type { SimulatorState } from '../simulator/state.js';\n",
      ],
      [at('soclab/src/orchestrator/p.ts'), "export { gateway } from '../control/gateway.js';\n"],
      // Allowed: the orchestrator's own port and the contracts; soclab building on harness and models.
      [
        at('soclab/src/orchestrator/ok.ts'),
        "import type { ProposalPort } from './port.js';\nimport { newUuid } from '../contracts/common.js';\n",
      ],
      [
        at('soclab/src/campaign/ok.ts'),
        "import { sleep } from '@aeh/harness';\nimport type { ModelProvider } from '@aeh/models';\n",
      ],
    ]);
    expect(violations(fake)).toEqual([
      "harness/src/runner/x.ts:1 imports '@aeh/soclab': harness must not depend on soclab",
      "harness/src/store/y.ts:1 imports '../../../soclab/src/reports/scorecard.js': harness must not depend on soclab",
      "models/src/z.ts:1 imports '@aeh/harness/errors': models must not depend on harness",
      "soclab/src/contracts/c.ts:1 imports '../control/redaction.js': soclab contracts/ must not import control/",
      "soclab/src/orchestrator/o.ts:2 imports '../simulator/state.js': soclab orchestrator/ must not import simulator/",
      "soclab/src/orchestrator/p.ts:1 imports '../control/gateway.js': soclab orchestrator/ must not import control/",
    ]);
  });

  it('has no such breach in packages/*/src (and no package.json depends the other way)', () => {
    const files = new Map<string, string>();
    for (const pkg of Object.keys(MAY_IMPORT)) sourceFiles(join(PACKAGES, pkg, 'src'), files);
    // The walk found every package and both checked soclab folders (an empty set would pass vacuously).
    const rels = [...files.keys()].map((f) => relative(PACKAGES, f));
    for (const prefix of ['models/src/', 'harness/src/', 'soclab/src/contracts/', 'soclab/src/orchestrator/'])
      expect(
        rels.some((r) => r.startsWith(prefix)),
        prefix,
      ).toBe(true);
    expect(violations(files)).toEqual([]);
    for (const [pkg, allowed] of Object.entries(MAY_IMPORT)) {
      const manifest = JSON.parse(readFileSync(join(PACKAGES, pkg, 'package.json'), 'utf8')) as {
        dependencies?: Record<string, string>;
      };
      const workspace = Object.keys(manifest.dependencies ?? {}).filter((d) => d.startsWith('@aeh/'));
      expect(
        workspace.filter((d) => !allowed.includes(d.slice('@aeh/'.length))),
        pkg,
      ).toEqual([]);
    }
  });
});
