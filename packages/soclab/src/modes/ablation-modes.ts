import './builtin.js';
import { ABLATABLE_CONTROLS, type AblatableControl, CONTROL_DESCRIPTIONS } from '../control/ablation-switches.js';
import { type ModeDefinition, ModeOptions } from './mode.js';
import { getMode, registerMode } from './registry.js';

/**
 * "Protected minus one control" modes, one per ablatable control, named `protected-without-<control>`. Each runs
 * the protected mode with the `ablate` option set; `scope` also turns the simulator's scope isolation off. The
 * `labels` ablation changes what the model sees, so it is applied to the provider by the campaign (see labels.ts)
 * and runs the plain protected mode.
 */
export const ablationModeName = (control: AblatableControl): string =>
  control === 'labels' ? 'protected' : `protected-without-${control}`;

/** The controls `--ablate each` expands to. */
export const ALL_CONTROLS: readonly AblatableControl[] = ABLATABLE_CONTROLS;

/** Parse `--ablate` values (`each` or control names, comma lists allowed); throws with the known names. */
export function parseAblateList(values: readonly string[] | string | undefined | null): AblatableControl[] {
  if (values === undefined || values === null) return [];
  const parts = (Array.isArray(values) ? values : [values])
    .flatMap((v) => String(v).split(','))
    .map((v) => v.trim().toLowerCase())
    .filter(Boolean);
  const out: AblatableControl[] = [];
  for (const p of parts) {
    if (p === 'each' || p === 'all') {
      for (const c of ALL_CONTROLS) if (!out.includes(c)) out.push(c);
      continue;
    }
    if (!(ABLATABLE_CONTROLS as readonly string[]).includes(p)) {
      throw new RangeError(`unknown control '${p}' for --ablate; use each or one of: ${ABLATABLE_CONTROLS.join(', ')}`);
    }
    if (!out.includes(p as AblatableControl)) out.push(p as AblatableControl);
  }
  return out;
}

let registered = false;

/** Register the `protected-without-<control>` modes (idempotent). */
export function registerAblationModes(): void {
  if (registered) return;
  registered = true;
  const base = getMode('protected');
  for (const control of ABLATABLE_CONTROLS) {
    if (control === 'labels') continue;
    const mode: ModeDefinition = {
      name: ablationModeName(control),
      description: `protected mode without ${CONTROL_DESCRIPTIONS[control]} (ablation study only)`,
      options: ModeOptions,
      enforceScope: control === 'scope' ? false : base.enforceScope,
      controlled: base.controlled,
      create: (context) => base.create({ ...context, options: { ...context.options, ablate: [control] } }),
    };
    registerMode(mode);
  }
}
