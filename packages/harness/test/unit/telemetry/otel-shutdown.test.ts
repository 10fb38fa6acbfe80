import { createServer, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { SecretScrubber } from '../../../src/secrets/scrubber.js';
import { createTracing } from '../../../src/telemetry/otel.js';

describe('an OTLP collector that never answers', () => {
  it('stops waiting after 5 s and names the endpoint without its credentials', async () => {
    // Accepts connections and never answers: the exporter's request hangs until shutdown gives up.
    const sockets: Socket[] = [];
    const silent = createServer((socket) => sockets.push(socket));
    await new Promise<void>((ok) => silent.listen(0, '127.0.0.1', ok));
    const { port } = silent.address() as { port: number };
    try {
      const tracing = createTracing({
        serviceName: 'otel-shutdown-test',
        scrubber: new SecretScrubber(),
        endpoint: `http://collector:pw-Canary-3131@127.0.0.1:${port}/?api_key=key-Canary-3132`,
        env: {},
      });
      tracing.start('one span', {}).end();
      const error = await tracing.shutdown().then(
        () => null,
        (e: unknown) => e as Error,
      );
      expect(error?.message).toMatch(
        /^no OTLP collector answered within 5 s at http:\/\/collector:\*\*\*@127\.0\.0\.1:/,
      );
      expect(error?.message).toContain('api_key=***');
      expect(error?.message).not.toContain('Canary');
    } finally {
      for (const socket of sockets) socket.destroy();
      silent.close();
    }
  }, 20_000);
});
