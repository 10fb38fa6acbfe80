import type { z } from 'zod';

/** What a formatter needs of a zod issue (also fits issues re-based under another path). */
export interface IssueLike {
  readonly path: readonly PropertyKey[];
  readonly message: string;
}

/** The dotted field path of an issue (`agent.options.url`, `cases.3.input`), or `root` for the value itself. */
export function issuePath(issue: Pick<IssueLike, 'path'>, root = '(root)'): string {
  return issue.path.length > 0 ? issue.path.map(String).join('.') : root;
}

/** One issue as `path: message`, the form every validation error in both packages uses. */
export function formatZodIssue(issue: IssueLike, root = '(root)'): string {
  return `${issuePath(issue, root)}: ${issue.message}`;
}

/** Every issue of a failed parse as `path: message`, joined by `separator`. */
export function formatZodIssues(error: z.ZodError, separator = '; '): string {
  return error.issues.map((issue) => formatZodIssue(issue)).join(separator);
}

/** The first issue of a failed parse as `path: message` (for one-line errors about a whole file or request). */
export function firstZodIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  return issue ? formatZodIssue(issue) : '(root): invalid';
}
