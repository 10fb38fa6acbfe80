/**
 * The deliberately lenient user directory. Real directories sometimes fold lookalike identifiers; this one does
 * on purpose, so the lab can show that a string-keyed protection list misses `u-svc-bаckup` (Cyrillic а).
 */

const CONFUSABLES: Readonly<Record<string, string>> = {
  а: 'a', // Cyrillic
  е: 'e',
  о: 'o',
  р: 'p',
  с: 'c',
  у: 'y',
  х: 'x',
  і: 'i',
  ѕ: 's',
  ј: 'j',
  һ: 'h',
  ο: 'o', // Greek
  α: 'a',
  ν: 'v',
};

/** NFKC, then confusable characters to their ASCII lookalikes, then case-fold. */
export function foldIdentifier(raw: string): string {
  let out = '';
  for (const ch of raw.normalize('NFKC')) out += CONFUSABLES[ch] ?? ch;
  return out.toLowerCase();
}

/** Exact id if present, else the first id whose folded form equals the folded input; null when none. */
export function resolveId(raw: string, ids: Iterable<string>): string | null {
  const list = [...ids];
  if (list.includes(raw)) return raw;
  const folded = foldIdentifier(raw);
  return list.find((id) => foldIdentifier(id) === folded) ?? null;
}
