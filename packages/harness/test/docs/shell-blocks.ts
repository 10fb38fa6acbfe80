import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** One command of a shell block in the README or docs/, with where it is written. */
export interface DocCommand {
  file: string;
  line: number;
  command: string;
}

const FENCE = /^```(sh|bash|shell|console)\s*$/;

function markdownFiles(root: string): string[] {
  const out = [join(root, 'README.md')];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.md')) out.push(p);
    }
  };
  walk(join(root, 'docs'));
  return out.sort();
}

/**
 * Every command of every sh/bash/shell/console block: `\` continuations joined, a leading `$ ` prompt removed,
 * comments and blank lines skipped, a trailing `# comment` cut (outside quotes it is shell comment too).
 */
export function docCommands(root: string): DocCommand[] {
  const out: DocCommand[] = [];
  for (const path of markdownFiles(root)) {
    const lines = readFileSync(path, 'utf8').split('\n');
    let inBlock = false;
    let pending: { line: number; text: string } | null = null;
    for (let i = 0; i < lines.length; i++) {
      const raw = lines[i] as string;
      if (!inBlock) {
        inBlock = FENCE.test(raw.trim());
        continue;
      }
      if (raw.trim().startsWith('```')) {
        inBlock = false;
        pending = null;
        continue;
      }
      let text = raw.trim().replace(/^\$ /, '');
      if (!pending && (text === '' || text.startsWith('#'))) continue;
      const continues = text.endsWith('\\');
      if (continues) text = text.slice(0, -1).trim();
      pending = pending ? { line: pending.line, text: `${pending.text} ${text}` } : { line: i + 1, text };
      if (continues) continue;
      const command = pending.text.replace(/\s+#\s.*$/, '').trim();
      out.push({ file: relative(root, path), line: pending.line, command });
      pending = null;
    }
  }
  return out;
}
