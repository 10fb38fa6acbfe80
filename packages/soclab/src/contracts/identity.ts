/**
 * Identifier folding shared by the simulator's lenient directory and the approval service's self-approval check:
 * NFKC, confusable characters to their ASCII lookalikes, case-fold. Kept here (not in the simulator) so the control
 * plane can use it without importing the simulator (see test/unit/modes/port-discipline.test.ts).
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
