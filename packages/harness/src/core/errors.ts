/** Prefix of every harness error code; the codes and what to do about each are listed in docs/errors.md. */
export const ERROR_CODE_PREFIX = 'AEH_ERR_';

/** The code reported for an error without one of its own (a file system error, a bug) where output needs a code. */
export const UNCLASSIFIED_ERROR_CODE = 'AEH_ERR_RUNTIME';

/**
 * The stable code of a harness error (`AEH_ERR_*`), or undefined for anything else: a Node system error's
 * `code` (ENOENT...) is not one of ours.
 */
export function errorCode(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null || !('code' in err)) return undefined;
  const { code } = err as { code: unknown };
  return typeof code === 'string' && code.startsWith(ERROR_CODE_PREFIX) ? code : undefined;
}

/** The message of anything thrown: an Error's message, else the thrown value as text. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** An Error carrying a string `code`, as Node's system errors do (ENOENT, EPERM...): narrowed, not cast. */
export function isErrnoException(err: unknown): err is NodeJS.ErrnoException {
  return err instanceof Error && 'code' in err && typeof err.code === 'string';
}

/** The thrown value as an Error: itself when it is one, else an Error carrying its text (for name and message). */
export function toError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}
