import { describe, expect, it } from 'vitest';
import { itemAt } from '../../../src/core/item-at.js';
import { parseShard, shardFilter, shardOfCase } from '../../../src/scale/shard.js';

describe('parseShard', () => {
  it('reads i/n and rejects anything else with the flag name', () => {
    expect(parseShard('2/3')).toEqual({ index: 2, count: 3 });
    expect(parseShard(' 1 / 1 ')).toEqual({ index: 1, count: 1 });
    expect(() => parseShard('0/3')).toThrow(/--shard 0\/3: the shard index must be between 1 and the shard count/);
    expect(() => parseShard('4/3')).toThrow(/between 1 and the shard count/);
    expect(() => parseShard('2of3')).toThrow(/--shard expects i\/n/);
  });
});

describe('shardOfCase', () => {
  const ids = Array.from({ length: 3000 }, (_, i) => `case-${i}`);

  it('puts every case in exactly one shard', () => {
    const filters = [1, 2, 3].map((index) => shardFilter({ index, count: 3 }));
    for (const id of ids) {
      expect(filters.filter((f) => f({ id })).length).toBe(1);
    }
  });

  it('depends only on the case id: adding or removing cases moves no other case', () => {
    const before = new Map(ids.map((id) => [id, shardOfCase(id, 4)]));
    const grown = [...ids.slice(0, 1500), 'a-new-case', ...ids.slice(1500, 2999)];
    for (const id of grown) {
      if (before.has(id)) expect(shardOfCase(id, 4)).toBe(before.get(id));
    }
  });

  it('spreads a large suite roughly evenly', () => {
    const counts = [0, 0, 0, 0, 0];
    for (const id of ids) {
      const shard = shardOfCase(id, 5);
      counts[shard - 1] = itemAt(counts, shard - 1) + 1;
    }
    for (const c of counts) {
      expect(c).toBeGreaterThan(600 * 0.85);
      expect(c).toBeLessThan(600 * 1.15);
    }
  });

  it('with one shard, that shard has everything', () => {
    expect(ids.every((id) => shardOfCase(id, 1) === 1)).toBe(true);
  });
});
