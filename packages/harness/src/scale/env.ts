/**
 * An environment for loading a suite on a machine that does not run its agent (a queue coordinator, a
 * merge): a variable that is not set reads as its own literal `${NAME}` instead of failing the load, so
 * secrets the agent needs only have to exist where the agent runs (on workers).
 */
export function lenientEnv(
  env: Readonly<Record<string, string | undefined>> = process.env,
): Readonly<Record<string, string | undefined>> {
  return new Proxy(env as Record<string, string | undefined>, {
    get(target, name) {
      if (typeof name !== 'string') return undefined;
      const value = target[name];
      return value === undefined || value === '' ? `\${${name}}` : value;
    },
  });
}
