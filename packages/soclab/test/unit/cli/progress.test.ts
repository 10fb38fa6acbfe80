import { describe, expect, it } from 'vitest';
import { StudyProgress } from '../../../src/cli/progress.js';

function harness(tty: boolean, quiet = false) {
  let t = 0;
  let out = '';
  const p = new StudyProgress({ write: (s) => (out += s) }, { tty, quiet, now: () => t, width: 10 });
  return { p, tick: (ms: number) => (t += ms), out: () => out };
}

describe('soclab progress (degenerate cases first)', () => {
  it('quiet prints nothing; a configuration with no runs prints its start and end only', () => {
    const q = harness(false, true);
    q.p.start('baseline', 33);
    q.p.update(10, 0);
    q.p.end(33, 0);
    expect(q.out()).toBe('');
    const empty = harness(false);
    empty.p.start('baseline', 0);
    empty.p.update(0, 0);
    empty.p.end(0, 0);
    expect(empty.out()).toBe('baseline: 0/0 runs\nbaseline: 0/0 runs in 0 ms\n');
  });

  it('piped: plain lines at each quarter or every 10 s at most, with an ETA, and a closing line', () => {
    const h = harness(false);
    h.p.start('protected', 40);
    for (let done = 1; done <= 40; done++) {
      h.tick(100);
      h.p.update(done, done >= 30 ? 1 : 0);
    }
    h.p.end(40, 1);
    const lines = h.out().trim().split('\n');
    expect(lines[0]).toBe('protected: 0/40 runs');
    expect(lines.slice(1, -1)).toEqual([
      'protected: 10/40 runs (25%), ETA 3.00 s',
      'protected: 20/40 runs (50%), ETA 2.00 s',
      'protected: 30/40 runs (75%), 1 error, ETA 1.00 s',
    ]);
    expect(lines.at(-1)).toBe('protected: 40/40 runs, 1 error in 4.00 s');
    expect(h.out()).not.toContain('\r');
  });

  it('piped and slow: a line every 10 s even between quarters', () => {
    const h = harness(false);
    h.p.start('baseline', 100);
    h.tick(11_000);
    h.p.update(1, 0);
    h.tick(2_000);
    h.p.update(2, 0);
    expect(h.out().trim().split('\n')).toEqual(['baseline: 0/100 runs', 'baseline: 1/100 runs (1%), ETA 18 min 9 s']);
  });

  it('on a terminal: one bar redrawn in place with counts and ETA, ending on a newline', () => {
    const h = harness(true);
    h.p.start('baseline', 4);
    h.tick(1000);
    h.p.update(2, 0);
    expect(h.out().split('\r').at(-1)).toBe('baseline   █████░░░░░ 2/4 ETA 1.00 s');
    h.tick(1000);
    h.p.end(4, 0);
    expect(h.out().endsWith('baseline   ██████████ 4/4 done in 2.00 s\n')).toBe(true);
  });
});
