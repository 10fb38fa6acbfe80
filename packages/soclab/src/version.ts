import { readFileSync } from 'node:fs';

let cached: string | null = null;

/** The @aeh/soclab package version (read once from package.json, the one source: same relative path from src/ and dist/). */
export function soclabVersion(): string {
  if (cached) return cached;
  try {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      version?: string;
    };
    cached = pkg.version ?? '0.0.0';
  } catch {
    cached = '0.0.0';
  }
  return cached;
}
