import { describe, expect, it } from 'vitest';
import { interleaveTurnsAndActions, type ReplayStep, type TurnStep } from '../../../src/api/replay.js';

const turn = (title: string, at: string | null, stage: string | null = null): TurnStep => ({
  stage,
  step: {
    index: 0,
    kind: 'model_turn',
    title,
    at,
    sequences: [],
    data: {
      stage,
      provider: 'mock',
      model: 'm',
      finish_reason: 'stop',
      output_text: '',
      proposed_tool: null,
      validated_arguments: null,
      error: null,
      usage: null,
      latency_ms: null,
    },
  },
});
const action = (title: string, at: string | null) => ({
  at,
  step: { index: 0, kind: 'control_event', title, at, sequences: [], data: {} } satisfies ReplayStep,
});
const finding: ReplayStep = {
  index: 0,
  kind: 'finding',
  title: 'Finding',
  at: null,
  sequences: [],
  data: {
    summary: null,
    confidence: null,
    techniques: [],
    supported_claims: [],
    unsupported_claims: [],
    evidence_ids: [],
  },
};
const titles = (steps: ReplayStep[]) => steps.map((s) => s.title);

describe('interleaveTurnsAndActions', () => {
  it('an empty run has no middle steps, and a lone finding is still shown', () => {
    expect(interleaveTurnsAndActions([], [], null)).toEqual([]);
    expect(titles(interleaveTurnsAndActions([], [], finding))).toEqual(['Finding']);
  });

  it('orders by time, and at the same instant puts the turn before the action it proposed', () => {
    const t = '2026-01-01T00:00:0';
    const steps = interleaveTurnsAndActions(
      [turn('turn 1', `${t}1Z`), turn('turn 2', `${t}3Z`)],
      [action('action of turn 2', `${t}3Z`), action('action of turn 1', `${t}2Z`)],
      null,
    );
    expect(titles(steps)).toEqual(['turn 1', 'action of turn 1', 'turn 2', 'action of turn 2']);
  });

  it('places the finding after the form_finding turn, else at the end', () => {
    const t = '2026-01-01T00:00:0';
    const withStage = interleaveTurnsAndActions(
      [turn('triage', `${t}1Z`, 'triage'), turn('form', `${t}2Z`, 'form_finding'), turn('act', `${t}3Z`, 'act')],
      [],
      finding,
    );
    expect(titles(withStage)).toEqual(['triage', 'form', 'Finding', 'act']);
    const freeForm = interleaveTurnsAndActions([turn('call 1', `${t}1Z`), turn('call 2', `${t}2Z`)], [], finding);
    expect(titles(freeForm)).toEqual(['call 1', 'call 2', 'Finding']);
  });

  it('untimed entries: turns first, each kind in chain order', () => {
    const steps = interleaveTurnsAndActions([turn('a', null), turn('b', null)], [action('x', null)], null);
    expect(titles(steps)).toEqual(['a', 'b', 'x']);
  });
});
