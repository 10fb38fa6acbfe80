import { describe, expect, it } from 'vitest';
import { SecretScrubber } from '../../../src/adapters/secrets.js';
import { agentOutput } from '../../../src/core/agent.js';

describe('SecretScrubber', () => {
  it('removes secrets and their encoded forms from text and nested values', () => {
    const s = new SecretScrubber(['s3cr3t/+=', undefined, 'ab']);
    const b64 = Buffer.from('s3cr3t/+=').toString('base64');
    expect(s.text(`x s3cr3t/+= y ${encodeURIComponent('s3cr3t/+=')} z ${b64}`)).toBe(
      'x [REDACTED] y [REDACTED] z [REDACTED]',
    );
    expect(s.text('ab stays: too short to be a secret')).toContain('ab stays');
    const out = s.output(
      agentOutput({
        output: { echo: 's3cr3t/+=', 'k-s3cr3t/+=': 1 },
        error: 'bad s3cr3t/+=',
        tool_calls: [{ tool_name: 't', args: { a: 's3cr3t/+=' } }],
        metadata: { raw: ['s3cr3t/+='] },
      }),
    );
    expect(JSON.stringify(out)).not.toContain('s3cr3t');
    expect(out.error).toBe('bad [REDACTED]');
  });
});
