import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/cli.js';
import { loadedBefore, modulesLoadedBy } from '../helpers/loaded-modules.js';

// Every `soclab demo` / `soclab campaign` pays for the modules it loads before its first scenario runs (Node 20
// has no compile cache). These stacks are needed only by one provider or one database, so a mock campaign on
// SQLite must not load them: undici (http provider), the MCP server SDK (mcp provider), pg (PostgreSQL URL).
const dir = mkdtempSync(join(tmpdir(), 'soclab-lazy-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const dist = join(REPO_ROOT, 'packages/soclab/dist');

describe('a mock campaign on SQLite loads no provider or database stack it does not use', () => {
  it.skipIf(!existsSync(join(dist, 'campaign/study.js')))(
    'opens a SQLite evidence store and loads the study without undici, the MCP server SDK or pg',
    async () => {
      const loaded = await modulesLoadedBy(
        dir,
        `
const { runStudy } = await import(${JSON.stringify(`file://${dist}/campaign/study.js`)});
const { openEvidenceStore } = await import(${JSON.stringify(`file://${dist}/evidence/index.js`)});
const { soclabProviderRegistry } = await import(${JSON.stringify(`file://${dist}/providers/registry.js`)});
if (typeof runStudy !== 'function') throw new Error('no runStudy');
const store = await openEvidenceStore(':memory:');
await store.append('run-1', { event_type: 'run.started', payload: {} });
await store.close();
soclabProviderRegistry({ env: {} }).check('mock');`,
      );
      // Degenerate check first: the hook saw the modules that were loaded (study, kysely, better-sqlite3).
      expect(loaded.some((m) => m.includes('/campaign/study.js'))).toBe(true);
      expect(loaded.some((m) => m.includes('better-sqlite3'))).toBe(true);
      const unwanted = loaded.filter((m) => /node_modules\/(undici|pg|@modelcontextprotocol\/server)\//.test(m));
      expect(unwanted).toEqual([]);
      // Nor node:http (the scenario check's grounded agent serves HTTP; the study only imports the check's module).
      expect(loaded).toContain('node:fs');
      expect(loaded).not.toContain('node:http');
      // Nor the soclab.agent.v1 schemas (http provider) or the MCP run session (mcp provider): a mock run uses neither.
      expect(loaded.some((m) => m.endsWith('/providers/http.js'))).toBe(true);
      expect(loaded.filter((m) => /\/contracts\/agent-v1\.js$|\/mcp\/session\.js$/.test(m))).toEqual([]);
    },
  );

  it.skipIf(!existsSync(join(dist, 'providers/http.js')))(
    'an http provider loads the agent contract on its first exchange, an mcp provider its session on its first run',
    async () => {
      const loaded = await modulesLoadedBy(
        dir,
        `
const { HttpAgentProvider, AgentTransportError } = await import(${JSON.stringify(`file://${dist}/providers/http.js`)});
const { McpAgentProvider } = await import(${JSON.stringify(`file://${dist}/providers/mcp.js`)});
const transport = async () => { throw new AgentTransportError('connect', 'refused'); };
const provider = new HttpAgentProvider({ url: 'http://127.0.0.1:9/agent', transport });
// Limits the session refuses, so the run stops at the session (no agent is launched).
const mcp = new McpAgentProvider({ command: 'true', limits: { max_calls: -1 } });
mark('created');
const reply = await provider.generate({
  stage: 'collect_endpoint', system_prompt: 's', tools: [], response_schema: null, max_output_tokens: 16,
  temperature: 0, run_id: 'r', trace_id: 't', incident_id: 'INC-1',
  messages: [{ role: 'user', content: 'go', trust: 'trusted', tool_name: null }],
});
if (JSON.parse(reply.output_text).refusal?.code !== 'transport_error') throw new Error('unexpected reply ' + JSON.stringify(reply));
mark('exchanged');
const refused = await mcp.investigate({ incidentId: 'INC-1', alert: {}, port: {}, runId: 'r' }).then(() => null, (e) => e);
if (!refused) throw new Error('the mcp run should have refused its limits');`,
      );
      const contract = (m: string) => m.endsWith('/contracts/agent-v1.js');
      const session = (m: string) => m.endsWith('/mcp/session.js');
      const created = loadedBefore(loaded, 'created');
      // Degenerate check first: both providers were loaded and built before the mark.
      expect(created.some((m) => m.endsWith('/providers/http.js'))).toBe(true);
      expect(created.filter((m) => contract(m) || session(m))).toEqual([]);
      expect(loadedBefore(loaded, 'exchanged').some(contract)).toBe(true);
      expect(loaded.some(session)).toBe(true);
    },
  );

  it.skipIf(!existsSync(join(dist, 'providers/http.js')))(
    'still loads undici when an http provider is built',
    async () => {
      const loaded = await modulesLoadedBy(
        dir,
        `
const { HttpAgentProvider } = await import(${JSON.stringify(`file://${dist}/providers/http.js`)});
HttpAgentProvider.fromEnv({ SOCLAB_HTTP_AGENT_URL: 'http://127.0.0.1:9/agent' });`,
      );
      expect(loaded.some((m) => /node_modules\/undici\//.test(m))).toBe(true);
    },
  );
});

describe('the study loads the report renderers only to write the reports', () => {
  it.skipIf(!existsSync(join(dist, 'campaign/study.js')))(
    'loading the study evaluates neither React nor the renderers; writing reports evaluates both',
    async () => {
      const reportsScript = (write: boolean) => `
const { runStudy } = await import(${JSON.stringify(`file://${dist}/campaign/study.js`)});
if (typeof runStudy !== 'function') throw new Error('no runStudy');
${
  write
    ? `const { writeReports } = await import(${JSON.stringify(`file://${dist}/reports/write.js`)});
if (typeof writeReports !== 'function') throw new Error('no writeReports');`
    : ''
}`;
      const react = (m: string) => /node_modules\/react-dom\/|\/reports\/render\.js$/.test(m);
      const loaded = await modulesLoadedBy(dir, reportsScript(false));
      expect(loaded.some((m) => m.includes('/campaign/study.js'))).toBe(true);
      expect(loaded.filter(react)).toEqual([]);
      // Degenerate check: the same hook does see them once the reports module is loaded.
      const writing = await modulesLoadedBy(dir, reportsScript(true));
      expect(writing.filter((m) => /node_modules\/react-dom\//.test(m)).length).toBeGreaterThan(0);
      expect(writing.some((m) => m.endsWith('/reports/render.js'))).toBe(true);
    },
  );
});

describe('the CLI entry does not evaluate the harness root', () => {
  // Every command (`--version`, `scenarios`) imports cli/common.ts; the harness root evaluates the whole library
  // (adapters, reporters, suites, the run index: ~190M instructions of a fresh `soclab --version`).
  const harnessRoot = (m: string) => /\/harness\/(dist|src)\/index\.(js|ts)$/.test(m);
  it.skipIf(!existsSync(join(dist, 'cli/main.js')))(
    'loading every command module leaves the harness root unloaded; so does the campaign runner',
    async () => {
      // With no command, main prints the help: every command module is loaded, none runs.
      const loaded = await modulesLoadedBy(dir, `await import(${JSON.stringify(`file://${dist}/cli/main.js`)});`);
      // Degenerate check first: the hook saw the CLI and the harness subpaths it uses.
      expect(loaded.some((m) => m.endsWith('/soclab/dist/cli/common.js'))).toBe(true);
      expect(loaded.some((m) => m.endsWith('/harness/dist/core/colour.js'))).toBe(true);
      expect(loaded.filter(harnessRoot)).toEqual([]);
      // The campaign runner imports the narrow entries (`@aeh/harness/runner`, ...), not the root with every plugin.
      const running = await modulesLoadedBy(dir, `await import(${JSON.stringify(`file://${dist}/campaign/run.js`)});`);
      expect(running.some((m) => m.endsWith('/harness/dist/runner/public.js'))).toBe(true);
      expect(running.filter(harnessRoot)).toEqual([]);
    },
  );
});
