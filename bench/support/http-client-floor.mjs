// Child process for harness-http-adapter.bench.ts: the floor any HTTP client pays on this machine. It sends the
// same N requests as the harness run, at the same concurrency, with the same undici modules the http adapter
// loads (pooled Agent + request), parses each JSON reply, and does nothing else. Run under GNU time.
//   node bench/support/http-client-floor.mjs <url> <cases> <concurrency>
import { createRequire } from 'node:module';

const require = createRequire(new URL('../../packages/harness/package.json', import.meta.url));
const Agent = require('undici/lib/dispatcher/agent.js');
const request = require('undici/lib/api/api-request.js');

const [url, casesArg, concurrencyArg] = process.argv.slice(2);
const target = new URL(url);
const n = Number(casesArg);
const dispatcher = new Agent({ pipelining: 1, keepAliveTimeout: 30_000 });
let next = 0;
async function lane() {
  while (next < n) {
    const i = next++;
    const res = await request.call(dispatcher, {
      origin: target.origin,
      path: target.pathname,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ question: `What is ${i} + 1?` }),
    });
    if (res.statusCode !== 200) throw new Error(`HTTP ${res.statusCode}`);
    JSON.parse(await res.body.text());
  }
}
await Promise.all(Array.from({ length: Number(concurrencyArg) }, lane));
await dispatcher.close();
