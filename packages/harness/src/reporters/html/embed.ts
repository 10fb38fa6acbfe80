/**
 * JSON that is safe inside an HTML `<script>` element: `<`, `>` and `&` become \u escapes (so agent output
 * holding `</script>` or `<!--` cannot end or confuse the element) and U+2028/U+2029 are escaped too
 * (line terminators in older JavaScript parsers). JSON.parse reads it back unchanged.
 */
export function jsonForScript(value: unknown): string {
  return (JSON.stringify(value) ?? 'null').replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** Cut a string to `max` characters, saying how much was left out. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n… (${text.length - max} more characters not shown; see the JSON report)`;
}

/** Pretty JSON for display (strings unchanged). */
export function pretty(value: unknown): string {
  if (value === undefined) return '';
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value, null, 2) ?? '';
  } catch {
    return String(value);
  }
}
