import { createRequire } from 'node:module';
import type { Ajv2020, ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import { errorMessage } from '../../core/errors.js';

/** One JSON Schema violation with the instance path it concerns. */
export interface SchemaViolation {
  path: string;
  message: string;
  keyword: string;
}

type FormatsFn = (ajv: Ajv2020) => Ajv2020;

let shared: Ajv2020 | undefined;
const cache = new WeakMap<object, ValidateFunction>();

/** A shared ajv instance (draft 2020-12, every violation reported, formats on, no coercion). */
export function ajv(): Ajv2020 {
  if (!shared) {
    // Loaded on first use (ajv is CommonJS, so require keeps this synchronous) to keep CLI start-up fast.
    const require = createRequire(import.meta.url);
    const { Ajv2020: AjvClass } = require('ajv/dist/2020.js') as { Ajv2020: typeof Ajv2020 };
    const formats = require('ajv-formats') as FormatsFn & { default?: FormatsFn };
    shared = new AjvClass({ allErrors: true, strict: false, validateFormats: true });
    (formats.default ?? formats)(shared);
  }
  return shared;
}

/** Compile a schema once (cached by object identity); throws with ajv's message when the schema is invalid. */
export function compileSchema(schema: object): ValidateFunction {
  let fn = cache.get(schema);
  if (!fn) {
    fn = ajv().compile(schema);
    cache.set(schema, fn);
  }
  return fn;
}

/** Check that a value is a valid JSON Schema; returns an error message or null. */
export function schemaProblem(schema: unknown): string | null {
  if (schema === null || typeof schema !== 'object') return 'a JSON Schema must be an object';
  try {
    compileSchema(schema);
    return null;
  } catch (err) {
    return errorMessage(err);
  }
}

function toViolation(e: ErrorObject): SchemaViolation {
  let message = e.message ?? 'is invalid';
  if (e.keyword === 'additionalProperties')
    message = `has unexpected property '${(e.params as { additionalProperty: string }).additionalProperty}'`;
  if (e.keyword === 'required')
    message = `is missing required property '${(e.params as { missingProperty: string }).missingProperty}'`;
  if (e.keyword === 'enum')
    message = `must be one of ${JSON.stringify((e.params as { allowedValues: unknown[] }).allowedValues)}`;
  return { path: e.instancePath === '' ? '/' : e.instancePath, message, keyword: e.keyword };
}

/** Validate `value`; returns every violation (empty when valid). */
export function validateAgainst(schema: object, value: unknown): SchemaViolation[] {
  const fn = compileSchema(schema);
  if (fn(value)) return [];
  return (fn.errors ?? []).map(toViolation);
}
