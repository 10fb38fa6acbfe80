// A persistent JSON-lines agent for the subprocess adapter tests.
import { createInterface } from 'node:readline';

process.stdout.write('agent starting (not protocol traffic)\n');
const started = Date.now();
const rl = createInterface({ input: process.stdin });
rl.on('line', (line) => {
  const req = JSON.parse(line);
  const reply = (body) => process.stdout.write(`${JSON.stringify({ id: req.id, ...body })}\n`);
  const input = req.input;
  if (input === 'hang') return;
  if (input === 'crash') {
    process.stderr.write('segfault-ish: cannot continue\n');
    process.exit(3);
  }
  if (input === 'fail') return reply({ output: '', error: 'I cannot answer that' });
  if (input === 'pid') return reply({ output: String(process.pid) });
  if (input === 'context') return reply({ output: req.context });
  const delay = typeof input === 'object' && input !== null ? (input.delay ?? 0) : 0;
  setTimeout(
    () =>
      reply({
        output: `echo: ${typeof input === 'string' ? input : input.text}`,
        tool_calls: [{ name: 'echo', arguments: { started } }],
        usage: { input_tokens: 1, output_tokens: 1 },
      }),
    delay,
  );
});
