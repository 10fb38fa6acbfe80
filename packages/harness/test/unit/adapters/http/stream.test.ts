import { describe, expect, it } from 'vitest';
import { compileJsonPath } from '../../../../src/adapters/http/json-path.js';
import { defaultDelta, NdjsonParser, SseParser, StreamAccumulator } from '../../../../src/adapters/http/stream.js';

describe('SseParser', () => {
  it('assembles events split across arbitrary chunk boundaries', () => {
    const wire =
      'event: token\r\ndata: {"delta":"Hel"}\r\n\r\n: comment\ndata: line1\ndata: line2\nid: 7\n\ndata: tail';
    for (let cut = 1; cut < wire.length; cut += 3) {
      const p = new SseParser();
      const events = [...p.push(wire.slice(0, cut)), ...p.push(wire.slice(cut)), ...p.end()];
      expect(events).toEqual([
        { event: 'token', data: '{"delta":"Hel"}' },
        { event: 'message', data: 'line1\nline2', id: '7' },
        { event: 'message', data: 'tail', id: '7' },
      ]);
    }
  });
});

describe('NdjsonParser', () => {
  it('yields complete lines and flushes the last one', () => {
    const p = new NdjsonParser();
    expect(p.push('{"a":1}\n{"b"')).toEqual(['{"a":1}']);
    expect(p.push(':2}\n\n')).toEqual(['{"b":2}']);
    expect(p.push('{"c":3}')).toEqual([]);
    expect(p.end()).toEqual(['{"c":3}']);
  });
});

describe('defaultDelta', () => {
  it('understands the common streaming formats', () => {
    expect(defaultDelta({ choices: [{ delta: { content: 'a' } }] })).toBe('a');
    expect(defaultDelta({ choices: [{ text: 'b' }] })).toBe('b');
    expect(defaultDelta({ type: 'content_block_delta', delta: { type: 'text_delta', text: 'c' } })).toBe('c');
    expect(defaultDelta({ message: { content: 'd' } })).toBe('d');
    expect(defaultDelta({ token: 'e' })).toBe('e');
    expect(defaultDelta('raw')).toBe('raw');
    expect(defaultDelta({ usage: { input_tokens: 1 } })).toBeUndefined();
  });
});

describe('StreamAccumulator', () => {
  it('joins pieces, stops at the sentinel and timestamps the first non-empty piece', () => {
    let t = 0;
    const acc = new StreamAccumulator(null, '[DONE]', () => ++t);
    acc.add('{"choices":[{"delta":{"role":"assistant"}}]}');
    acc.add('{"choices":[{"delta":{"content":"Hi"}}]}');
    acc.add('{"choices":[{"delta":{"content":" there"}}]}');
    acc.add('[DONE]');
    acc.add('{"choices":[{"delta":{"content":"ignored"}}]}');
    expect(acc.text).toBe('Hi there');
    expect(acc.firstTokenAt).toBe(1);
    expect(acc.done).toBe(true);
  });

  it('uses a configured delta path and records error events', () => {
    const acc = new StreamAccumulator(compileJsonPath('$.piece'), '[DONE]', () => 0);
    acc.add('{"piece":"x","token":"not this"}');
    acc.add('{"message":"quota exceeded"}', 'error');
    expect(acc.text).toBe('x');
    expect(acc.error).toBe('quota exceeded');
  });
});
