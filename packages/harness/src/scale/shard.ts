import { createHash } from 'node:crypto';

/** One shard of a run: `index` is 1-based (`--shard 2/3` is index 2 of count 3). */
export interface ShardSpec {
  index: number;
  count: number;
}

/** What a shard run records in its header's `metadata.shard`, so `harness merge` can check and combine. */
export interface ShardRecord extends ShardSpec {
  /** How cases are assigned; a merge refuses shards assigned by another rule. */
  assignment: typeof SHARD_ASSIGNMENT;
}

export const SHARD_ASSIGNMENT = 'sha256(case id) mod count';

/** Parse `i/n` (1 <= i <= n); throws a message naming the flag on anything else. */
export function parseShard(text: string, flag = '--shard'): ShardSpec {
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  if (!m) throw new Error(`${flag} expects i/n, e.g. 2/3 (got '${text}')`);
  const index = Number(m[1]);
  const count = Number(m[2]);
  if (count < 1 || index < 1 || index > count) {
    throw new Error(`${flag} ${text}: the shard index must be between 1 and the shard count`);
  }
  return { index, count };
}

/**
 * The 1-based shard a case belongs to. It depends only on the case id and the shard count, so adding or
 * removing a case never moves any other case to another shard (unlike position-based splitting).
 */
export function shardOfCase(caseId: string, count: number): number {
  if (count <= 1) return 1;
  const digest = createHash('sha256').update(caseId).digest();
  // 48 bits of the digest: uniform enough for any practical shard count, exact in a double.
  const value = digest.readUIntBE(0, 6);
  return (value % count) + 1;
}

/** A case predicate selecting the cases of one shard. */
export function shardFilter(shard: ShardSpec): (testCase: { id: string }) => boolean {
  return (tc) => shardOfCase(tc.id, shard.count) === shard.index;
}

/** Read the shard a run header recorded (`metadata.shard`), or null when the run is not a shard. */
export function shardOfHeader(metadata: Record<string, unknown> | undefined): ShardRecord | null {
  const raw = metadata?.shard;
  if (!raw || typeof raw !== 'object') return null;
  const { index, count, assignment } = raw as Record<string, unknown>;
  if (typeof index !== 'number' || typeof count !== 'number') return null;
  return { index, count, assignment: (assignment as typeof SHARD_ASSIGNMENT) ?? SHARD_ASSIGNMENT };
}

export function formatShard(shard: ShardSpec): string {
  return `${shard.index}/${shard.count}`;
}
