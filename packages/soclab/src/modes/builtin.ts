/**
 * Side-effect imports of every built-in mode. `baseline` is registered by `modes.ts`; the control plane adds
 * its `protected` mode module here (one import line per mode).
 */
import './modes.js';
import '../control/protected-mode.js';
