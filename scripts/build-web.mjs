// Builds every web front end (folders with a vite.config.ts under packages/*/web) into its package's dist.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const packages = readdirSync('packages');
for (const pkg of packages) {
  const dir = join('packages', pkg, 'web');
  if (!existsSync(join(dir, 'vite.config.ts'))) continue;
  const r = spawnSync('npx', ['vite', 'build', '--config', join(dir, 'vite.config.ts'), '--logLevel', 'warn'], {
    stdio: 'inherit',
  });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
