import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { errorMessage } from '@aeh/harness/errors';
import { firstZodIssue } from '@aeh/harness/zod-issues';
import { z } from 'zod';
import { canonicalJson, sha256Hex } from '../../contracts/canonical.js';
import { PolicyLoadError } from './engine.js';

/** The bundled policy folder (`packages/soclab/data/policies`), the same relative path from `src/` and `dist/`. */
export const BUNDLED_POLICY_DIR = fileURLToPath(new URL('../../../data/policies/', import.meta.url));

/** `dir` if given, else `SOCLAB_POLICY_DIR`, else the bundled folder. */
export function resolvePolicyDir(dir?: string, env: NodeJS.ProcessEnv = process.env): string {
  const chosen = dir ?? (env.SOCLAB_POLICY_DIR?.trim() || undefined);
  return chosen ? resolve(chosen) : BUNDLED_POLICY_DIR;
}

const Manifest = z.strictObject({
  name: z.string().min(1).optional(),
  version: z.string().trim().min(1),
  description: z.string().optional(),
});

export interface SourceFile {
  /** Path as shown in error messages. */
  path: string;
  text: string;
}

/** The raw files of a policy folder. */
export interface PolicyFolder {
  dir: string;
  schema: SourceFile;
  policies: SourceFile[];
  version: string;
  digest: string;
}

/**
 * Read a policy folder: exactly one `*.cedarschema`, one or more `*.cedar`, and an optional `manifest.json` whose
 * `version` is recorded on every decision (without one the version is `unversioned-<digest prefix>`).
 */
export function readPolicyFolder(dir: string): PolicyFolder {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    throw new PolicyLoadError(`${dir}: policy folder not found`);
  }
  const names = readdirSync(dir).sort();
  const schemas = names.filter((n) => n.endsWith('.cedarschema'));
  const policyNames = names.filter((n) => n.endsWith('.cedar'));
  if (schemas.length !== 1) {
    throw new PolicyLoadError(
      `${dir}: expected exactly one *.cedarschema file, found ${schemas.length === 0 ? 'none' : schemas.join(', ')}`,
    );
  }
  if (policyNames.length === 0) throw new PolicyLoadError(`${dir}: no *.cedar policy files`);
  const read = (name: string): SourceFile => ({ path: join(dir, name), text: readFileSync(join(dir, name), 'utf8') });
  const schema = read(schemas[0] as string);
  const policies = policyNames.map(read);
  const manifestPath = join(dir, 'manifest.json');
  const manifestText = existsSync(manifestPath) ? readFileSync(manifestPath, 'utf8') : null;
  const digest = sha256Hex(
    canonicalJson(
      [schema, ...policies, ...(manifestText === null ? [] : [{ path: manifestPath, text: manifestText }])].map(
        (f) => ({
          file: basename(f.path),
          sha256: sha256Hex(f.text),
        }),
      ),
    ),
  );
  let version = `unversioned-${digest.slice(0, 12)}`;
  if (manifestText !== null) {
    let raw: unknown;
    try {
      raw = JSON.parse(manifestText);
    } catch (error) {
      throw new PolicyLoadError(`${manifestPath}: not valid JSON (${errorMessage(error)})`);
    }
    const parsed = Manifest.safeParse(raw);
    if (!parsed.success) {
      throw new PolicyLoadError(`${manifestPath}: ${firstZodIssue(parsed.error)}`);
    }
    version = parsed.data.version;
  }
  return { dir, schema, policies, version, digest };
}

/** `file:line:col` for a byte offset into `text` (Cedar reports UTF-8 byte offsets). */
export function positionOf(file: SourceFile, byteOffset: number | undefined): string {
  if (byteOffset === undefined) return `${file.path}:1:1`;
  const prefix = Buffer.from(file.text, 'utf8').subarray(0, byteOffset).toString('utf8');
  const lines = prefix.split('\n');
  const line = lines.length;
  const col = (lines[lines.length - 1]?.length ?? 0) + 1;
  return `${file.path}:${line}:${col}`;
}
