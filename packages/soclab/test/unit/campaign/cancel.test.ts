import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ModelProvider } from '@aeh/models';
import { afterAll, describe, expect, it } from 'vitest';
import { runCampaign } from '../../../src/campaign/run.js';
import { groundedMock } from '../../../src/conformance/agents.js';
import type { AttackScenario } from '../../../src/contracts/scenarios.js';
import { openEvidenceStore } from '../../../src/evidence/store.js';

const dir = mkdtempSync(join(tmpdir(), 'soclab-cancel-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ANSWERING = new Set(['generate', 'generateStructured', 'requestTool', 'continueAfterTool']);

/** The grounded mock, except that no call answers until `gate` opens: a model call still in flight at cancel time. */
function heldBack(scenario: AttackScenario, gate: Promise<void>, onCall: () => void): ModelProvider {
  const inner = groundedMock(scenario);
  return new Proxy(inner, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver);
      if (typeof name !== 'string' || !ANSWERING.has(name) || typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        onCall();
        await gate;
        return value.apply(target, args);
      };
    },
  });
}

describe('a cancelled campaign', () => {
  it('returns only after its scenario runs in flight have written their chains to the end', async () => {
    const evidence = await openEvidenceStore(':memory:');
    const controller = new AbortController();
    // The model answers 300 ms after the cancellation, ignoring it, as a slow vendor call would.
    const gate = new Promise<void>((resolve) =>
      controller.signal.addEventListener('abort', () => setTimeout(resolve, 300), { once: true }),
    );
    const cancelOnFirstCall = () => {
      if (!controller.signal.aborted) setImmediate(() => controller.abort());
    };
    try {
      await runCampaign(
        { mode: 'protected', scenarios: ['BEN-001', 'ATK-001'] },
        {
          evidence,
          runDir: join(dir, 'cancelled'),
          signal: controller.signal,
          providerFactory: (scenario) => heldBack(scenario, gate, cancelOnFirstCall),
          answersItself: true,
        },
      ).catch(() => undefined);
      expect(controller.signal.aborted).toBe(true);
      const runIds = await evidence.runIds();
      expect(runIds.length).toBeGreaterThan(0);
      // Nothing is written after the campaign returned: each chain already ends with the run's own last event.
      for (const runId of runIds) {
        const rows = await evidence.rows(runId);
        expect(rows.at(-1)?.event_type).toBe('run.finished');
      }
      const counts = await Promise.all(runIds.map(async (id) => (await evidence.rows(id)).length));
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(await Promise.all(runIds.map(async (id) => (await evidence.rows(id)).length))).toEqual(counts);
    } finally {
      await evidence.close();
    }
  });
});
