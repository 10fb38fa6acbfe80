import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { formatIssue, PositionedDocument, pathString } from '@aeh/harness/suite-positions';
import { issuePath } from '@aeh/harness/zod-issues';
import { z } from 'zod';

/**
 * Configuration of `soclab serve`: where it listens, where it keeps its data, who may call it and how much.
 * Read from `--config FILE` (JSON or YAML), then environment variables, then command-line flags (last wins).
 *
 * @example soclab.server.yaml
 *   host: 127.0.0.1
 *   port: 8780
 *   data_dir: ./soclab-data
 *   tokens:
 *     - { name: ci, role: operator, token_sha256: "<sha256 hex of the token>" }
 *     - { name: soc-lead, role: approver, token: "<at least 16 characters>" }
 */

export const ROLES = ['viewer', 'operator', 'approver', 'admin'] as const;
export const Role = z.enum(ROLES);
export type Role = z.infer<typeof Role>;

/** One bearer token: the identity it stands for (`name`, also the approver id it decides as) and its role. */
export const TokenConfig = z
  .strictObject({
    name: z
      .string()
      .trim()
      .regex(/^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$/, 'must be 1-64 letters, digits or _ . @ - (starting alphanumeric)'),
    role: Role,
    /** The token itself (at least 16 characters). Prefer `token_sha256` in files. */
    token: z.string().min(16, 'must be at least 16 characters').max(512).optional(),
    /** SHA-256 (hex) of the token, so the file holds no secret. */
    token_sha256: z
      .string()
      .regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hex characters')
      .optional(),
  })
  .refine((t) => (t.token === undefined) !== (t.token_sha256 === undefined), {
    message: 'give exactly one of token or token_sha256',
    path: ['token'],
  });
export type TokenConfig = z.infer<typeof TokenConfig>;

export const ServerConfig = z.strictObject({
  /** Interface to bind; loopback unless told otherwise. */
  host: z.string().trim().min(1).default('127.0.0.1'),
  port: z.number().int().min(0).max(65535).default(8780),
  /** Where the evidence database, campaign run folders and a generated token live. */
  data_dir: z.string().trim().min(1).default('runs/soclab-server'),
  /** Evidence and campaign database; default SQLite `<data_dir>/soclab.sqlite`; `postgres://...` for PostgreSQL. */
  database_url: z.string().trim().min(1).optional(),
  tokens: z.array(TokenConfig).default([]),
  /** Largest accepted request body. */
  body_limit_bytes: z
    .number()
    .int()
    .min(1024)
    .max(10 * 1024 * 1024)
    .default(64 * 1024),
  rate_limit: z
    .strictObject({
      /** Requests per token (or per address without a token) per window. */
      max: z.number().int().min(1).default(600),
      window_ms: z.number().int().min(1000).default(60_000),
    })
    .default({ max: 600, window_ms: 60_000 }),
  /** How long a campaign run waits for a person's decision (`approver: human`). */
  approval_timeout_seconds: z.number().min(1).max(86_400).default(240),
  /** Campaigns running at once (the rest queue). */
  max_running_campaigns: z.number().int().min(1).max(16).default(1),
  /** Campaigns waiting to run, across all callers; a start beyond it is 429 with Retry-After. */
  max_queued_campaigns: z.number().int().min(1).max(10_000).default(20),
  /** Seconds a refused start or PDF request is told to wait (Retry-After). */
  retry_after_seconds: z.number().int().min(1).max(3600).default(30),
  /** PDF reports rendered at once (each is a Chromium process). */
  pdf_concurrency: z.number().int().min(1).max(8).default(1),
  /** PDF requests waiting for a renderer, across all callers; beyond it 429. */
  pdf_max_waiting: z.number().int().min(0).max(1000).default(4),
  /** PDF requests one token may have rendering or waiting at once; beyond it 429. */
  pdf_per_token: z.number().int().min(1).max(100).default(1),
  /** Scenario runs in parallel inside one campaign. */
  campaign_concurrency: z.number().int().min(1).max(64).default(4),
  /**
   * Worker threads that run campaigns off the API's event loop (each runs one campaign at a time); 0 runs them
   * in the server process as before.
   */
  campaign_workers: z.number().int().min(0).max(16).default(1),
  /**
   * Redis of the campaign queue (`redis://` or `rediss://`): the server coordinates each campaign and its scenario
   * runs go to `soclab worker` processes (docs/soclab/operations.md). Default SOCLAB_QUEUE_URL; unset runs them here.
   */
  queue_url: z
    .string()
    .trim()
    .min(1)
    .refine((url) => /^rediss?:\/\/[^\s]+$/i.test(url) && URL.canParse(url), {
      message: 'must be a redis:// or rediss:// URL such as redis://127.0.0.1:6379',
    })
    .optional(),
  /** Chromium for PDF reports; default CHROMIUM_PATH, else `chromium` on PATH. */
  chromium_path: z.string().trim().min(1).optional(),
  /** Log requests to stderr (pino). */
  log: z.boolean().default(false),
  /**
   * Third-party provider modules (paths, relative to the config file) loaded at start, as `--provider-module` on
   * the CLI: each exported ProviderEntry becomes a provider API campaigns can choose.
   */
  provider_modules: z.array(z.string().trim().min(1)).default([]),
});
export type ServerConfig = z.infer<typeof ServerConfig>;
export type ServerConfigInput = z.input<typeof ServerConfig>;

/** A configuration problem: names the file (when any) and the field path. CLI exit 2. */
export class ServerConfigError extends Error {
  override name = 'ServerConfigError';
}

/** Every issue as `<where> <field path>: message` (just `<where>: message` for the value itself), one a line. */
const formatIssues = (error: z.ZodError, where: string): string =>
  error.issues.map((i) => `${[where, issuePath(i, '')].filter(Boolean).join(' ')}: ${i.message}`).join('\n');

/**
 * Tokens from `SOCLAB_API_TOKENS`: entries `name:role:token` separated by commas, semicolons or newlines
 * (a token may itself contain `:`).
 */
export function parseTokenList(text: string, where = 'SOCLAB_API_TOKENS'): TokenConfig[] {
  const out: TokenConfig[] = [];
  const entries = text
    .split(/[,;\n]/)
    .map((e) => e.trim())
    .filter(Boolean);
  entries.forEach((entry, index) => {
    const first = entry.indexOf(':');
    const second = first < 0 ? -1 : entry.indexOf(':', first + 1);
    if (first < 0 || second < 0) {
      throw new ServerConfigError(`${where} entry ${index + 1}: expected name:role:token`);
    }
    const parsed = TokenConfig.safeParse({
      name: entry.slice(0, first),
      role: entry.slice(first + 1, second),
      token: entry.slice(second + 1),
    });
    if (!parsed.success) throw new ServerConfigError(formatIssues(parsed.error, `${where} entry ${index + 1}`));
    out.push(parsed.data);
  });
  return out;
}

/** Read a JSON or YAML configuration file (unknown keys are errors). */
export function readConfigFile(file: string): ServerConfigInput {
  if (!existsSync(file)) throw new ServerConfigError(`${file}: no such configuration file`);
  // The harness's positioned parser (strict JSON for .json, YAML otherwise), so every problem carries file:line:col.
  const source = new PositionedDocument(file, readFileSync(file, 'utf8'), 0, { json: /\.json$/i.test(file) });
  const syntax = source.syntaxIssues();
  if (syntax.length > 0) throw new ServerConfigError(syntax.map(formatIssue).join('\n'));
  const data = source.toJS();
  const parsed = ServerConfig.safeParse(data ?? {});
  if (!parsed.success) {
    const located = parsed.error.issues.flatMap((i) => {
      const path = i.path.filter((k): k is string | number => typeof k !== 'symbol');
      if (i.code === 'unrecognized_keys')
        return i.keys.map((key) => ({
          file,
          ...source.position([...path, key], { key: true }),
          path: pathString([...path, key]),
          message: 'unknown field',
        }));
      return [{ file, ...source.position(path), path: pathString(path), message: i.message }];
    });
    throw new ServerConfigError(located.map(formatIssue).join('\n'));
  }
  return data as ServerConfigInput;
}

export interface LoadConfigOptions {
  file?: string;
  env?: NodeJS.ProcessEnv;
  /** Command-line values (undefined = not given). */
  overrides?: Partial<ServerConfigInput>;
}

/**
 * The effective configuration: file, then environment (`SOCLAB_API_HOST`, `SOCLAB_API_PORT`, `SOCLAB_DATA_DIR`,
 * `SOCLAB_DATABASE_URL`, `SOCLAB_QUEUE_URL`, `SOCLAB_API_TOKENS` added to the file's tokens, `CHROMIUM_PATH`), then
 * overrides.
 */
export function loadServerConfig(options: LoadConfigOptions = {}): ServerConfig {
  const env = options.env ?? process.env;
  const base: Record<string, unknown> = options.file ? { ...readConfigFile(options.file) } : {};
  if (env.SOCLAB_API_HOST) base.host = env.SOCLAB_API_HOST;
  if (env.SOCLAB_API_PORT) base.port = Number(env.SOCLAB_API_PORT);
  if (env.SOCLAB_DATA_DIR) base.data_dir = env.SOCLAB_DATA_DIR;
  if (env.SOCLAB_DATABASE_URL && base.database_url === undefined) base.database_url = env.SOCLAB_DATABASE_URL;
  if (env.SOCLAB_QUEUE_URL && base.queue_url === undefined) base.queue_url = env.SOCLAB_QUEUE_URL;
  if (env.CHROMIUM_PATH && base.chromium_path === undefined) base.chromium_path = env.CHROMIUM_PATH;
  if (env.SOCLAB_API_TOKENS) {
    base.tokens = [...((base.tokens as unknown[]) ?? []), ...parseTokenList(env.SOCLAB_API_TOKENS)];
  }
  for (const [k, v] of Object.entries(options.overrides ?? {})) if (v !== undefined) base[k] = v;
  const parsed = ServerConfig.safeParse(base);
  if (!parsed.success) throw new ServerConfigError(formatIssues(parsed.error, options.file ?? 'configuration'));
  const config = parsed.data;
  const names = new Set<string>();
  for (const t of config.tokens) {
    if (names.has(t.name)) throw new ServerConfigError(`tokens: the name '${t.name}' is used twice`);
    names.add(t.name);
  }
  // Queue workers are other processes that never load these modules, so their providers could not run there.
  if (config.provider_modules.length > 0 && config.queue_url) {
    throw new ServerConfigError('provider_modules: cannot be combined with queue_url (workers do not load them)');
  }
  const moduleBase = options.file ? dirname(resolve(options.file)) : process.cwd();
  return {
    ...config,
    data_dir: isAbsolute(config.data_dir) ? config.data_dir : resolve(config.data_dir),
    provider_modules: config.provider_modules.map((m) => resolve(moduleBase, m)),
  };
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);
export const isLoopback = (host: string): boolean => LOOPBACK.has(host) || /^127\./.test(host);
