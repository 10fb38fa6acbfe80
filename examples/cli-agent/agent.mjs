#!/usr/bin/env node
// A command-line agent for the harness `subprocess` adapter.
//   JSON-lines mode (default): one process; each stdin line {id, input, context} gets one stdout line
//     {id, output, tool_calls, usage}. Diagnostics go to stderr, never stdout.
//   --once: read one input from stdin, print the answer as plain text, exit (plain-text mode).
import { createInterface } from 'node:readline';

const UNITS = { km: 1000, m: 1, cm: 0.01, mi: 1609.344, ft: 0.3048 };

/** Converts lengths ("3 km in mi") or counts words; reports each skill as a tool call. */
function solve(input) {
  const text = typeof input === 'string' ? input : String(input?.question ?? JSON.stringify(input));
  const m = /(-?\d+(?:\.\d+)?)\s*(km|cm|mi|ft|m)\b\s+(?:in|to)\s+(km|cm|mi|ft|m)\b/i.exec(text);
  if (m) {
    const [value, from, to] = [Number(m[1]), m[2].toLowerCase(), m[3].toLowerCase()];
    const result = Math.round(((value * UNITS[from]) / UNITS[to]) * 1000) / 1000;
    return {
      output: `${value} ${from} = ${result} ${to}`,
      tool_calls: [{ tool_name: 'convert_units', args: { value, from, to }, result }],
    };
  }
  if (/^count words:/i.test(text)) {
    const words = text.slice(12).trim().split(/\s+/).filter(Boolean).length;
    return {
      output: String(words),
      tool_calls: [{ tool_name: 'word_count', args: { text: text.slice(12).trim() }, result: words }],
    };
  }
  return { output: `I can convert lengths or count words, not: ${text}`, tool_calls: [] };
}

if (process.argv.includes('--once')) {
  let data = '';
  process.stdin.on('data', (c) => {
    data += c;
  });
  process.stdin.on('end', () => process.stdout.write(`${solve(data.trim()).output}\n`));
} else {
  process.stderr.write('cli-agent: ready (JSON lines on stdin)\n');
  createInterface({ input: process.stdin }).on('line', (line) => {
    if (!line.trim()) return;
    let req;
    try {
      req = JSON.parse(line);
    } catch {
      process.stderr.write(`cli-agent: ignoring a line that is not JSON\n`);
      return;
    }
    const reply = solve(req.input);
    const usage = { input_tokens: JSON.stringify(req.input).length, output_tokens: reply.output.length };
    process.stdout.write(`${JSON.stringify({ id: req.id, ...reply, usage })}\n`);
  });
}
