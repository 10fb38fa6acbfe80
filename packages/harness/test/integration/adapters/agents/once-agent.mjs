// A per-case CLI agent for the subprocess adapter tests: reads the input on stdin, behaviour chosen by it.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';

let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (c) => {
  input += c;
});
process.stdin.on('end', () => {
  const text = input.trim();
  if (text === 'crash') {
    process.stderr.write('fatal: the model file is missing\n');
    process.exit(2);
  }
  if (text.startsWith('hang ')) {
    // Start a grandchild in the same process group, record its pid, then never answer.
    const grandchild = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    writeFileSync(text.slice(5), String(grandchild.pid));
    setInterval(() => {}, 1000);
    return;
  }
  if (text === 'text') {
    process.stdout.write('plain answer\n');
    return;
  }
  if (text === 'where') {
    process.stdout.write(
      JSON.stringify({
        output: {
          cwd: process.cwd(),
          test_id: process.env.HARNESS_TEST_ID,
          workspace: process.env.HARNESS_WORKSPACE ?? null,
          visible: Object.keys(process.env).sort(),
          mode: process.env.AGENT_MODE ?? null,
          token: process.env.AGENT_TOKEN ?? null,
        },
      }),
    );
    return;
  }
  if (text === 'big') {
    process.stdout.write('x'.repeat(300_000));
    return;
  }
  if (text === 'args') {
    process.stdout.write(JSON.stringify({ output: process.argv.slice(2).join('|') }));
    return;
  }
  let parsed = text;
  try {
    parsed = JSON.parse(text);
  } catch {}
  process.stdout.write(
    JSON.stringify({
      output: `echo: ${typeof parsed === 'string' ? parsed : JSON.stringify(parsed)}`,
      tool_calls: [{ tool_name: 'echo', args: { text: parsed } }],
      usage: { input_tokens: 3, output_tokens: 2 },
    }),
  );
});
