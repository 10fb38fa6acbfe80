import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

type Json = Record<string, unknown>;

/** OpenAPI 3.0's `nullable: true` as JSON Schema 2020-12 (`type: [X, 'null']`, or an anyOf with null). */
function from30(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(from30);
  if (!schema || typeof schema !== 'object') return schema;
  const out: Json = {};
  for (const [k, v] of Object.entries(schema as Json)) {
    if (k === 'nullable' || k === 'example') continue;
    out[k] = from30(v);
  }
  if ((schema as Json).nullable === true) {
    if (Array.isArray(out.enum)) out.enum = [...(out.enum as unknown[]), null];
    if (typeof out.type === 'string') out.type = [out.type, 'null'];
    else if (!Array.isArray(out.enum)) return { anyOf: [out, { type: 'null' }] };
  }
  return out;
}

export interface ResponseCheck {
  /** Validate one response; throws naming the route, status and schema errors when it does not match. */
  check(method: string, url: string, status: number, contentType: string | null, body: unknown): void;
  /** `METHOD template status` of every response checked, to assert coverage. */
  readonly seen: Set<string>;
}

/**
 * A test-client hook that validates every API response against the OpenAPI document: the route is matched by
 * its path template, the status must be declared for it, and a JSON body must match the declared schema (Ajv,
 * draft 2020-12; 3.0's `nullable` translated). So the document cannot drift from what the server really does.
 */
export function responseChecker(doc: Json, options: { notFoundSchema?: string } = {}): ResponseCheck {
  const is30 = String(doc.openapi).startsWith('3.0');
  const convert = (s: unknown) => (is30 ? from30(s) : s);
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats.default(ajv);
  const components = ((doc.components as Json | undefined)?.schemas ?? {}) as Json;
  ajv.addSchema({ $id: 'openapi:components', components: { schemas: convert(components) } });
  const routes = Object.entries(doc.paths as Record<string, Record<string, Json>>).map(([template, ops]) => ({
    template,
    pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
    ops,
  }));
  // Literal segments win over parameters (`/campaigns/compare` before `/campaigns/{id}`).
  const params = (t: string) => t.match(/\{/g)?.length ?? 0;
  routes.sort((a, b) => params(a.template) - params(b.template));
  const seen = new Set<string>();
  const validators = new Map<string, ReturnType<typeof ajv.compile>>();
  return {
    seen,
    check(method, url, status, contentType, body) {
      const pathname = new URL(url, 'http://x').pathname;
      const route = routes.find((r) => r.pattern.test(pathname) && r.ops[method.toLowerCase()]);
      if (!route) {
        // A path the API does not have: only a 404 with the API's error body is acceptable.
        if (status !== 404 || !options.notFoundSchema) {
          throw new Error(`${method} ${pathname}: no operation in the OpenAPI document (status ${status})`);
        }
        const validate = ajv.compile({ $ref: `openapi:components#/components/schemas/${options.notFoundSchema}` });
        if (!validate(body)) throw new Error(`${method} ${pathname} -> 404: body is not a ${options.notFoundSchema}`);
        seen.add(`${method.toUpperCase()} (unknown path) 404`);
        return;
      }
      const op = route.ops[method.toLowerCase()] as Json;
      const responses = op.responses as Record<string, Json>;
      const declared = responses[String(status)] ?? responses[`${String(status)[0]}XX`] ?? responses.default;
      const where = `${method} ${route.template} -> ${status}`;
      if (!declared) throw new Error(`${where}: status not declared (declared: ${Object.keys(responses).join(', ')})`);
      seen.add(`${method.toUpperCase()} ${route.template} ${status}`);
      const content = (declared.content ?? {}) as Record<string, Json>;
      const type = (contentType ?? '').split(';')[0]?.trim() ?? '';
      if (Object.keys(content).length === 0) return;
      const media = content[type];
      if (!media)
        throw new Error(`${where}: content-type '${type}' not declared (declared: ${Object.keys(content).join(', ')})`);
      if (!media.schema || type !== 'application/json') return;
      const key = `${where} ${type}`;
      let validate = validators.get(key);
      if (!validate) {
        const schema = JSON.parse(
          JSON.stringify(convert(media.schema)).replaceAll('"#/components/', '"openapi:components#/components/'),
        );
        validate = ajv.compile(schema);
        validators.set(key, validate);
      }
      if (!validate(body)) {
        const errors = (validate.errors ?? [])
          .slice(0, 5)
          .map((e) => `${e.instancePath || '(root)'} ${e.message}`)
          .join('; ');
        throw new Error(`${where}: body does not match the declared schema: ${errors}`);
      }
    },
  };
}
