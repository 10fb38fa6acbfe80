import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type RunStore } from '../../../src/store/index.js';
import { viewerOpenApi } from '../../../src/viewer/openapi.js';
import { startViewer, type Viewer } from '../../../src/viewer/server.js';
import { responseChecker } from '../../helpers/openapi-check.js';
import { endLine, resultLine, writeRunFolder } from '../../unit/store/run-fixtures.js';
import { createTempDatabase, PG_URL, requirePgOrSkip, type TempDatabase } from '../store/pg-database.js';

const havePg = requirePgOrSkip();
const backends: { name: string; pg: boolean }[] = [{ name: 'sqlite', pg: false }];
if (havePg) backends.push({ name: 'postgres', pg: true });

describe.each(backends)('viewer API on $name', (backend) => {
  let dir: string;
  let store: RunStore;
  let viewer: Viewer;
  let live: string;
  let pgDb: TempDatabase | null = null;

  // Every response the tests see is checked against the OpenAPI document's schema for its route and status.
  const contract = responseChecker(viewerOpenApi(), { notFoundSchema: 'Error' });

  async function get<T>(path: string): Promise<{ status: number; body: T }> {
    const url = new URL(path, viewer.url);
    const res = await fetch(url);
    const body = (await res.json()) as T;
    contract.check('GET', url.pathname, res.status, res.headers.get('content-type'), body);
    return { status: res.status, body };
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'viewer-api-'));
    const cases = Array.from({ length: 120 }, (_, i) => ({
      id: `case-${String(i).padStart(3, '0')}`,
      status: (i % 10 === 0 ? 'failed' : i % 25 === 0 ? 'error' : 'passed') as 'failed' | 'error' | 'passed',
      tags: i % 2 === 0 ? ['even'] : ['odd'],
      evals: { exact_match: i % 10 !== 0, contains: i % 3 !== 0 },
    }));
    writeRunFolder(dir, {
      id: 'base-run',
      suite: 'api-suite',
      startedAt: '2026-02-01T10:00:00Z',
      cases,
      metrics: { success_rate: { value: 0.88 } },
    });
    writeRunFolder(dir, {
      id: 'cand-run',
      suite: 'api-suite',
      startedAt: '2026-02-02T10:00:00Z',
      cases: cases.map((c, i) => ({ ...c, status: i < 30 ? ('failed' as const) : c.status })),
      metrics: { success_rate: { value: 0.7 } },
    });
    live = writeRunFolder(dir, {
      id: 'live-run',
      suite: 'api-suite',
      startedAt: '2026-02-03T10:00:00Z',
      state: 'running',
      cases: [],
    });
    if (backend.pg) pgDb = await createTempDatabase(PG_URL as string, 'harness_viewer_test');
    store = await openStore({ runsDir: dir, store: pgDb?.url });
    await store.syncIndex(dir);
    viewer = await startViewer({ store, runsDir: dir, port: 0, pollIntervalMs: 100 });
  });

  afterAll(async () => {
    await viewer?.close();
    await store?.close();
    await pgDb?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  describe('endpoints', () => {
    it('binds loopback and lists runs with metrics', async () => {
      expect(viewer.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
      const { body } = await get<{
        total: number;
        items: { id: string; metrics: Record<string, { value: number }> }[];
      }>('api/runs');
      expect(body.items.map((r) => r.id)).toEqual(['live-run', 'cand-run', 'base-run']);
      expect(body.items[2]?.metrics.success_rate?.value).toBe(0.88);
    });

    it('pages and filters cases on the server', async () => {
      const page = await get<{ total: number; items: { test_id: string }[] }>(
        'api/runs/base-run/cases?offset=100&limit=50',
      );
      expect(page.body.total).toBe(120);
      expect(page.body.items).toHaveLength(20);
      expect(page.body.items[0]?.test_id).toBe('case-100');
      const failedOdd = await get<{ total: number; items: { test_id: string }[] }>(
        'api/runs/base-run/cases?status=failed,error&tag=odd',
      );
      expect(failedOdd.body.items.map((c) => c.test_id)).toEqual(['case-025', 'case-075']);
      const evalFailed = await get<{ total: number }>(
        'api/runs/base-run/cases?evaluator=contains&evaluator_passed=false',
      );
      expect(evalFailed.body.total).toBe(40);
      const search = await get<{ total: number }>('api/runs/base-run/cases?q=CASE-11');
      expect(search.body.total).toBe(10);
    });

    it('returns one case in full and clear errors for bad requests', async () => {
      const c = await get<{ test_id: string; evaluations: { explanation: string }[] }>(
        'api/runs/base/cases/case-003/0',
      );
      expect(c.status).toBe(200);
      expect(c.body.evaluations[1]?.explanation).toBe('contains says no');
      type ErrorBody = { error: string; code: string };
      // Every error carries its stable code (docs/errors.md) beside the message, so clients match on the code.
      const noCase = await get<ErrorBody>('api/runs/base-run/cases/nope/0');
      expect(noCase.status).toBe(404);
      expect(noCase.body.code).toBe('AEH_ERR_VIEWER_NOT_FOUND');
      const unknown = await get<ErrorBody>('api/runs/zzz');
      expect(unknown.status).toBe(404);
      expect(unknown.body.error).toMatch(/no stored run matches 'zzz'/);
      expect(unknown.body.code).toBe('AEH_ERR_RUN_LOOKUP');
      const bad = await get<ErrorBody>('api/runs/base-run/cases?status=good');
      expect(bad.status).toBe(400);
      expect(bad.body.error).toMatch(/^query\.status/);
      expect(bad.body.code).toBe('AEH_ERR_VIEWER_BAD_REQUEST');
      const nothing = await get<ErrorBody>('api/nothing');
      expect(nothing.status).toBe(404);
      expect(nothing.body).toEqual({ error: 'no such endpoint: GET /api/nothing', code: 'AEH_ERR_VIEWER_NOT_FOUND' });
    });

    it('compares two runs with paired statistics and paged per-case deltas', async () => {
      const cmp = await get<{
        counts: { regressed: number };
        comparison: { paired: { measures: { name: string; p_value: number | null; verdict: string }[] } } | null;
        comparison_error: string | null;
      }>('api/compare?baseline=base-run&candidate=cand-run');
      expect(cmp.body.comparison_error).toBeNull();
      // 30 first cases fail in the candidate; 3 of them (0, 10, 20) already failed.
      expect(cmp.body.counts.regressed).toBe(26);
      const passRate = cmp.body.comparison?.paired.measures.find((m) => m.name === 'pass_rate');
      expect(passRate?.verdict).toBe('regression');
      expect(passRate?.p_value).toBeLessThan(0.001);
      const deltas = await get<{ total: number; items: { test_id: string; change: string }[] }>(
        'api/compare/cases?baseline=base-run&candidate=cand-run&change=regressed&limit=5',
      );
      expect(deltas.body.total).toBe(26);
      expect(deltas.body.items.every((d) => d.change === 'regressed')).toBe(true);
    });

    it('gives the metric history and flaky cases of a suite', async () => {
      const h = await get<{ id: string; value: number }[]>('api/suites/api-suite/history?metric=success_rate');
      expect(h.body.map((p) => [p.id, p.value])).toEqual([
        ['base-run', 0.88],
        ['cand-run', 0.7],
      ]);
      const f = await get<{ runs_considered: number }>('api/suites/api-suite/flaky');
      expect(f.body.runs_considered).toBe(3);
    });

    it('serves its OpenAPI document, and every response so far matched it', async () => {
      const run = await get<{ id: string; header: { id: string } }>('api/runs/base-run');
      expect(run.body.header.id).toBe('base-run');
      const { status, body } = await get<{ openapi: string; paths: Record<string, unknown> }>('api/openapi.json');
      expect(status).toBe(200);
      expect(body).toEqual(JSON.parse(JSON.stringify(viewerOpenApi())));
      // The hook saw real traffic on the main routes (a test that skipped them would prove nothing).
      for (const route of [
        'GET /api/runs 200',
        'GET /api/runs/{id} 200',
        'GET /api/runs/{id} 404',
        'GET /api/runs/{id}/cases 200',
        'GET /api/runs/{id}/cases 400',
        'GET /api/compare 200',
      ]) {
        expect(contract.seen).toContain(route);
      }
    });

    it('refuses requests addressed to another host name (DNS rebinding)', async () => {
      const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request(new URL('api/runs', viewer.url), { headers: { host: 'attacker.example' } }, (res) => {
          let text = '';
          res.on('data', (chunk: Buffer) => {
            text += chunk.toString();
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        });
        req.on('error', reject);
        req.end();
      });
      expect(status).toBe(403);
      expect(JSON.parse(body)).toMatchObject({ code: 'AEH_ERR_VIEWER_HOST' });
      // No run data leaks into the refusal.
      expect(body).not.toContain('base-run');
    });

    it('streams a live event when a running run grows, and serves its new cases', async () => {
      const controller = new AbortController();
      const res = await fetch(new URL('api/events', viewer.url), { signal: controller.signal });
      expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
      const reader = (res.body as ReadableStream<Uint8Array>).getReader();
      appendFileSync(join(live, 'journal.jsonl'), resultLine({ id: 'l1', status: 'passed' }) + endLine('completed'));
      let text = '';
      // Read until the whole event (its data line and the blank line ending it) is in: a chunk may end mid-event.
      while (!/"id":"live-run"[^\n]*\n\n/.test(text)) {
        const { value, done } = await reader.read();
        if (done) break;
        text += new TextDecoder().decode(value);
      }
      controller.abort();
      expect(text).toMatch(/event: run\ndata: \{"type":"run","id":"live-run","state":"completed","added":1/);
      const run = await get<{ state: string; total: number }>('api/runs/live-run');
      expect(run.body).toMatchObject({ state: 'completed', total: 1 });
    });
  });
});
