/** Base class of every simulated tool failure. */
export class ToolError extends Error {
  override name = 'ToolError';
}
/** The tool name is not one of the ten simulated tools. */
export class ToolNotFoundError extends ToolError {
  override name = 'ToolNotFoundError';
}
/** The user, endpoint or other resource does not exist. */
export class UnknownResourceError extends ToolError {
  override name = 'UnknownResourceError';
}
/** A declared argument is missing or has the wrong type. */
export class InvalidArgumentError extends ToolError {
  override name = 'InvalidArgumentError';
}
/** The call targets another incident while scope isolation is on. */
export class ScopeViolationError extends Error {
  override name = 'ScopeViolationError';
}
/** A fixture or injection is malformed or unknown. */
export class FixtureError extends Error {
  override name = 'FixtureError';
}
