/**
 * Side-effect imports of every built-in mode. `baseline` is registered by `registry.ts`; the control plane adds
 * its `protected` mode module here (one import line per mode).
 */
import './registry.js';
import './protected.js';
