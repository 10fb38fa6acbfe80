import { Registry } from '@aeh/harness/registry';
import { baselineMode } from './baseline.js';
import type { ModeDefinition } from './mode.js';

/** Modes by name; an unknown name fails with the known ones and the closest (did you mean). */
const modes = new Registry<ModeDefinition<never>>('mode');

/** Register a mode (replaces one of the same name, case-insensitive). */
export function registerMode(definition: ModeDefinition): void {
  // The registry stores plugins with their options erased, as the harness's plugin registries do.
  modes.register(definition as unknown as ModeDefinition<never>);
}

/** The registered mode of that name; throws `UnknownPluginError` naming the closest registered one. */
export function getMode(name: string): ModeDefinition<never> {
  return modes.get(name);
}

export const modeNames = (): string[] => modes.names();

// Baseline needs nothing beyond the simulator, so it is always there; the control plane's modes register from
// `builtin.ts`.
registerMode(baselineMode);
