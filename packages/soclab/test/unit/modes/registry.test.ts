import { describe, expect, it } from 'vitest';
import '../../../src/modes/builtin.js';
import { registerAblationModes } from '../../../src/modes/ablation-modes.js';
import { getMode, modeNames } from '../../../src/modes/registry.js';

describe('mode registry', () => {
  it('rejects a misspelt mode naming the closest registered one and the known list', () => {
    expect(() => getMode('protcted')).toThrow(
      /unknown mode 'protcted'; did you mean 'protected'\? \(known: baseline, protected/,
    );
    expect(() => getMode('')).toThrow(/unknown mode ''/);
  });

  it('finds the built-in modes, and the ablation modes once registered', () => {
    expect(getMode('baseline').controlled).toBe(false);
    expect(getMode('protected').enforceScope).toBe(true);
    registerAblationModes();
    // Scope ablation turns the simulator's isolation off; the others keep protected mode's.
    expect(getMode('protected-without-scope').enforceScope).toBe(false);
    expect(getMode('protected-without-grants').enforceScope).toBe(true);
    expect(modeNames()).toContain('protected-without-policy');
    expect(modeNames()).not.toContain('protected-without-labels');
  });
});
