/**
 * One colour rule for every console output of harness and soclab: `FORCE_COLOR` (any value but `0`/`false`)
 * turns colour on even in a pipe, so CI logs can be coloured; otherwise `NO_COLOR`, a pipe or `TERM=dumb` turn
 * it off. Table headers are bold, never red: red is for failures.
 */
export function colourWanted(
  stream: { isTTY?: boolean } = process.stdout,
  env: NodeJS.ProcessEnv = process.env,
): boolean {
  const force = env.FORCE_COLOR;
  if (force !== undefined && force !== '') return force !== '0' && force.toLowerCase() !== 'false';
  if (env.NO_COLOR) return false;
  return Boolean(stream.isTTY) && env.TERM !== 'dumb';
}

/** cli-table3 style: bold headers and grey borders with colour, no escape codes without. */
export function tableStyle(colour: boolean): { head: string[]; border: string[] } {
  return colour ? { head: ['bold'], border: ['grey'] } : { head: [], border: [] };
}
