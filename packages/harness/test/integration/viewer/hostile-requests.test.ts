/**
 * The viewer against a hostile client on loopback: unreadable paths get the viewer's own error body and code
 * (docs/errors.md), never the framework's; traversal spellings never leave the web root; a non-loopback Host is
 * refused (DNS-rebinding guard).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type RunStore } from '../../../src/store/index.js';
import { startViewer, type Viewer } from '../../../src/viewer/server.js';
import { writeRunFolder } from '../../unit/store/run-fixtures.js';

/** A GET sent with the path exactly as given (fetch would normalise `..` and percent-encoding). */
function rawGet(base: string, path: string, headers: Record<string, string> = {}) {
  const url = new URL(base);
  return new Promise<{ status: number; type: string; body: string }>((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path, method: 'GET', headers, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type'] ?? ''), body }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

describe('viewer: hostile requests', () => {
  let dir: string;
  let store: RunStore;
  let viewer: Viewer;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'viewer-hostile-'));
    writeRunFolder(dir, { id: 'run-1', suite: 'hostile', startedAt: '2026-02-01T10:00:00Z', cases: [] });
    store = await openStore({ runsDir: dir });
    await store.syncIndex(dir);
    viewer = await startViewer({ store, runsDir: dir, port: 0, watch: false });
  });
  afterAll(async () => {
    await viewer?.close();
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers a path that is not valid percent-encoded UTF-8 with the viewer error body and code', async () => {
    for (const path of ['/api/runs/%', '/api/runs/%zz', '/api/runs/%c0%ae', '/api/runs/run-1/cases/%ff/0']) {
      const r = await rawGet(viewer.url, path);
      expect(r.status, path).toBe(400);
      expect(r.type, path).toMatch(/^application\/json/);
      expect(JSON.parse(r.body), path).toEqual({
        error: 'path: not valid percent-encoded UTF-8',
        code: 'AEH_ERR_VIEWER_BAD_REQUEST',
      });
    }
  });

  it('answers unknown API paths as JSON 404s however the path is spelled', async () => {
    for (const path of ['/api/nope', '/%61pi/nope', '/%61%70%69/runs/run-1/nope', '/api/runs/run-1/cases/x/y/z']) {
      const r = await rawGet(viewer.url, path);
      expect(r.status, path).toBe(404);
      expect(r.type, path).toMatch(/^application\/json/);
      expect(JSON.parse(r.body).code, path).toBe('AEH_ERR_VIEWER_NOT_FOUND');
    }
    // The encoded spelling of a real route reaches that route.
    const run = await rawGet(viewer.url, '/%61pi/runs/run-1');
    expect(run.status).toBe(200);
    expect(JSON.parse(run.body)).toMatchObject({ id: 'run-1' });
  });

  it('keeps traversal spellings inside the web root and refuses a foreign Host', async () => {
    for (const path of [
      '/../package.json',
      '/%2e%2e/package.json',
      '/..%2f..%2fpackage.json',
      '/assets/..%5c..%5cpackage.json',
    ]) {
      const r = await rawGet(viewer.url, path);
      expect(r.body, path).not.toContain('"name"');
      expect([400, 404, 503], path).toContain(r.status);
    }
    const foreign = await rawGet(viewer.url, '/api/runs', { host: 'attacker.example' });
    expect(foreign.status).toBe(403);
    expect(JSON.parse(foreign.body).code).toBe('AEH_ERR_VIEWER_HOST');
  });
});
