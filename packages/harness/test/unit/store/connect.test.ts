import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_POSTGRES_CONNECT_TIMEOUT_MS,
  postgresConnectTimeoutMs,
  resolveStoreTarget,
} from '../../../src/store/connect.js';
import { redactUrl } from '../../../src/store/index.js';
import { jsonCodec } from '../../../src/store/json.js';

describe('resolveStoreTarget', () => {
  it('defaults to runs/index.sqlite, then HARNESS_STORE_URL, then --store', () => {
    expect(resolveStoreTarget({ env: {} })).toMatchObject({
      dialect: 'sqlite',
      location: resolve('runs/index.sqlite'),
    });
    expect(resolveStoreTarget({ env: {}, runsDir: '/tmp/r' }).location).toBe('/tmp/r/index.sqlite');
    const env = { HARNESS_STORE_URL: 'postgres://u:s3cret@db:5432/h' };
    expect(resolveStoreTarget({ env })).toMatchObject({ dialect: 'postgres', display: 'postgres://u:***@db:5432/h' });
    expect(resolveStoreTarget({ env, store: 'sqlite:/tmp/x.sqlite' })).toMatchObject({
      dialect: 'sqlite',
      location: '/tmp/x.sqlite',
    });
    expect(resolveStoreTarget({ env: {}, store: 'postgresql://h/db' }).dialect).toBe('postgres');
    expect(resolveStoreTarget({ env: {}, store: ':memory:' }).location).toBe(':memory:');
  });

  it('never shows a password', () => {
    expect(redactUrl('postgres://user:p%40ss@host/db')).toBe('postgres://user:***@host/db');
    expect(redactUrl('postgres://host/db')).toBe('postgres://host/db');
    // libpq and node-postgres read a password from the query string too.
    const env = { HARNESS_STORE_URL: 'postgres://u@db/h?password=s3cret-Q&sslmode=require' };
    expect(resolveStoreTarget({ env }).display).toBe('postgres://u@db/h?password=***&sslmode=require');
    // Not a URL (port out of range): nothing after the scheme is shown.
    expect(resolveStoreTarget({ env: {}, store: 'postgres://u:s3cret@x@db:99999/h' }).display).toBe(
      'postgres://... (not a valid URL, not shown)',
    );
  });
});

describe('jsonCodec', () => {
  it('keeps NUL in SQLite and replaces only real NUL escapes in PostgreSQL', () => {
    const value = { a: 'x\u0000y', b: 'literal \\u0000 text' };
    expect(jsonCodec('sqlite').decode(jsonCodec('sqlite').encode(value))).toEqual(value);
    const pg = JSON.parse(jsonCodec('postgres').encode(value));
    expect(pg).toEqual({ a: 'x\ufffdy', b: 'literal \\u0000 text' });
    expect(jsonCodec('postgres').text('a\u0000b')).toBe('a\ufffdb');
    expect(jsonCodec('postgres').decode({ already: 'parsed' })).toEqual({ already: 'parsed' });
  });
});

describe('postgresConnectTimeoutMs', () => {
  const url = 'postgres://u:p@db.example:5432/runs';
  it("takes the URL's connect_timeout (seconds, 0 = wait forever), else PGCONNECT_TIMEOUT, else 15 s", () => {
    expect(postgresConnectTimeoutMs(`${url}?connect_timeout=3`, { PGCONNECT_TIMEOUT: '9' })).toBe(3000);
    expect(postgresConnectTimeoutMs(`${url}?sslmode=disable&connect_timeout=0`, {})).toBe(0);
    expect(postgresConnectTimeoutMs(url, { PGCONNECT_TIMEOUT: '9' })).toBe(9000);
    expect(postgresConnectTimeoutMs(url, {})).toBe(DEFAULT_POSTGRES_CONNECT_TIMEOUT_MS);
    expect(DEFAULT_POSTGRES_CONNECT_TIMEOUT_MS).toBe(15_000);
  });

  it('ignores what is not a whole number of seconds, and a URL it cannot parse', () => {
    for (const odd of ['-1', '1.5', 'soon', '', '9999999999', '1e3']) {
      expect(postgresConnectTimeoutMs(`${url}?connect_timeout=${encodeURIComponent(odd)}`, {})).toBe(15_000);
      expect(postgresConnectTimeoutMs(url, { PGCONNECT_TIMEOUT: odd })).toBe(15_000);
    }
    expect(postgresConnectTimeoutMs('postgres://u:p@[bad/x?connect_timeout=2', {})).toBe(15_000);
  });
});
