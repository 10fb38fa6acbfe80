import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { can, TokenRegistry } from '../../../src/api/auth.js';
import { isLoopback, loadServerConfig, parseTokenList, ServerConfigError } from '../../../src/api/config.js';
import { tempDir } from '../../helpers/api.js';

describe('server configuration', () => {
  it('reads the file, then the environment, then the flags (last wins), and resolves the data folder', () => {
    const dir = tempDir('soclab-config-');
    const file = join(dir, 'server.yaml');
    writeFileSync(
      file,
      'port: 9001\ndata_dir: data\ntokens:\n  - { name: ci, role: operator, token: ci-token-0123456789 }\n',
    );
    const config = loadServerConfig({
      file,
      env: { SOCLAB_API_PORT: '9002', SOCLAB_API_TOKENS: 'lead:approver:lead:token:with:colons' },
      overrides: { host: '127.0.0.2' },
    });
    expect(config).toMatchObject({ host: '127.0.0.2', port: 9002, body_limit_bytes: 65536, max_running_campaigns: 1 });
    expect(config.data_dir).toBe(join(process.cwd(), 'data'));
    expect(config.tokens.map((t) => [t.name, t.role, t.token])).toEqual([
      ['ci', 'operator', 'ci-token-0123456789'],
      ['lead', 'approver', 'lead:token:with:colons'],
    ]);
    expect(loadServerConfig({ file, env: {}, overrides: { port: 0 } }).port).toBe(0);
  });

  it('names the file and the field path of every problem', () => {
    const dir = tempDir('soclab-config-');
    const file = join(dir, 'server.json');
    writeFileSync(
      file,
      JSON.stringify({ port: 'x', tokens: [{ name: 'a b', role: 'viewer', token: 't' }], extra: 1 }, null, 2),
    );
    expect(() => loadServerConfig({ file, env: {} })).toThrow(ServerConfigError);
    const messageOf = (f: string) => {
      try {
        loadServerConfig({ file: f, env: {} });
      } catch (error) {
        return (error as Error).message;
      }
      throw new Error(`${f} loaded`);
    };
    // file:line:col of the offending value (of the key for an unknown field), then the field path.
    const message = messageOf(file);
    expect(message).toContain(`${file}:2:11: port:`);
    expect(message).toContain(`${file}:5:15: tokens.0.name:`);
    expect(message).toContain(`${file}:7:16: tokens.0.token: must be at least 16 characters`);
    expect(message).toContain(`${file}:10:3: extra: unknown field`);
    // Syntax errors are located too: strict JSON for .json, YAML indentation.
    writeFileSync(file, '{\n  "port": 1,\n}');
    expect(messageOf(file)).toContain(`${file}:2:12: invalid JSON: trailing comma`);
    const yaml = join(dir, 'server.yaml');
    writeFileSync(yaml, 'port: 80\n  host: x\n');
    expect(messageOf(yaml)).toContain(`${yaml}:2:3: syntax error: bad indentation`);
    writeFileSync(yaml, 'host: 127.0.0.1\nport: 70000\n');
    expect(messageOf(yaml)).toContain(`${yaml}:2:7: port:`);
    expect(() => loadServerConfig({ file: join(dir, 'missing.yaml'), env: {} })).toThrow('no such configuration file');
    expect(() => parseTokenList('ops:operator')).toThrow('SOCLAB_API_TOKENS entry 1: expected name:role:token');
    expect(() => parseTokenList('ops:root:0123456789abcdef0')).toThrow('entry 1 role');
    expect(() =>
      loadServerConfig({ env: { SOCLAB_API_TOKENS: 'a:viewer:0123456789abcdef0,a:admin:0123456789abcdef1' } }),
    ).toThrow("the name 'a' is used twice");
  });

  it('treats only loopback addresses as loopback', () => {
    expect(['127.0.0.1', 'localhost', '::1', '127.0.0.2'].every(isLoopback)).toBe(true);
    expect(['0.0.0.0', '192.168.1.10', '::'].some(isLoopback)).toBe(false);
  });
});

describe('bearer tokens', () => {
  const registry = new TokenRegistry([
    { name: 'ops', role: 'operator', token: 'operator-token-0123456789' },
    {
      name: 'lead',
      role: 'approver',
      token_sha256: createHash('sha256').update('approver-token-0123456789').digest('hex'),
    },
  ]);

  it('accepts a known token (plain or by digest) in a Bearer header and nothing else', () => {
    expect(registry.authenticate('Bearer operator-token-0123456789')).toMatchObject({ name: 'ops', role: 'operator' });
    expect(registry.authenticate('bearer approver-token-0123456789')).toMatchObject({ name: 'lead', role: 'approver' });
    for (const header of [
      undefined,
      '',
      'operator-token-0123456789',
      'Basic b3BzOm9wZXJhdG9yLXRva2VuLTAxMjM0NTY3ODk=',
      'Bearer operator-token-012345678',
      'Bearer operator-token-0123456789x',
      'Bearer  ',
    ]) {
      expect(registry.authenticate(header), String(header)).toBeNull();
    }
  });

  it('keys rate limits on a digest, never on the token', () => {
    const p = registry.authenticate('Bearer operator-token-0123456789')!;
    expect(p.key).toMatch(/^t:[0-9a-f]{16}$/);
    expect(p.key).not.toContain('operator-token');
  });

  it('separates starting campaigns from approving them', () => {
    const op = registry.authenticate('Bearer operator-token-0123456789')!;
    const lead = registry.authenticate('Bearer approver-token-0123456789')!;
    expect([can(op, 'read'), can(op, 'run'), can(op, 'approve')]).toEqual([true, true, false]);
    expect([can(lead, 'read'), can(lead, 'run'), can(lead, 'approve')]).toEqual([true, false, true]);
  });
});
