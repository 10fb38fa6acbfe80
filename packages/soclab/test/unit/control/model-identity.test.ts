import { describe, expect, it } from 'vitest';
import { matchApprovedModel, modelMatches } from '../../../src/control/model-identity.js';

describe('model identity: the name a vendor returns against the approved one', () => {
  it('degenerate names never match', () => {
    expect(modelMatches('', '')).toBe(false);
    expect(modelMatches('gpt-4o-mini', '')).toBe(false);
    expect(modelMatches('', 'gpt-4o-mini')).toBe(false);
  });

  it('exact names and dated snapshots match', () => {
    expect(modelMatches('gpt-4o-mini', 'gpt-4o-mini')).toBe(true);
    expect(modelMatches('gpt-4o-mini', 'gpt-4o-mini-2024-07-18')).toBe(true);
    expect(modelMatches('claude-sonnet-4', 'claude-sonnet-4-20250514')).toBe(true);
    expect(modelMatches('gemini-2.5-flash', 'models/gemini-2.5-flash')).toBe(true);
  });

  it('Anthropic aliases (-0, -latest) match their dated ids', () => {
    expect(modelMatches('claude-sonnet-4-0', 'claude-sonnet-4-20250514')).toBe(true);
    expect(modelMatches('claude-3-5-haiku-latest', 'claude-3-5-haiku-20241022')).toBe(true);
  });

  it('anything else stays unapproved: another family, extra words, a bad date, the reverse direction', () => {
    expect(modelMatches('gpt-4o-mini', 'gpt-4o')).toBe(false);
    expect(modelMatches('gpt-4o', 'gpt-4o-mini-2024-07-18')).toBe(false);
    expect(modelMatches('gpt-4o-mini', 'gpt-4o-mini-2024-07-18-ft-evil')).toBe(false);
    expect(modelMatches('gpt-4o-mini', 'gpt-4o-mini-2024-7-18')).toBe(false);
    expect(modelMatches('gpt-4o-mini', 'gpt-4o-mini-preview')).toBe(false);
    expect(modelMatches('gpt-4o-mini-2024-07-18', 'gpt-4o-mini')).toBe(false);
    expect(modelMatches('claude-sonnet-4-0', 'claude-opus-4-20250514')).toBe(false);
  });

  it('matches within the same provider only, preferring the exact pair', () => {
    const approved = [
      ['openai', 'gpt-4o-mini'],
      ['azure_openai', 'gpt-4o-mini'],
    ] as const;
    expect(matchApprovedModel(approved, 'openai', 'gpt-4o-mini-2024-07-18')).toEqual(['openai', 'gpt-4o-mini']);
    expect(matchApprovedModel(approved, 'xai', 'gpt-4o-mini-2024-07-18')).toBeNull();
    expect(matchApprovedModel([], 'openai', 'gpt-4o-mini')).toBeNull();
  });
});
