/**
 * Expected failures (bad flag, unknown id, invalid file) are UserErrors: one line, exit 1, no stack.
 * Anything else is a bug and keeps its stack (the Shopify cli-kit AbortError/BugError split).
 */
export class UserError extends Error {
  constructor(
    message: string,
    readonly hint?: string,
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = 'UserError';
  }
}

/** `field: got <value>; expected <allowed>` — the one shape every input error takes. */
export function badValue(field: string, value: unknown, allowed: string): UserError {
  const shown = typeof value === 'string' ? `'${value}'` : JSON.stringify(value);
  return new UserError(`${field}: got ${shown}; expected ${allowed}`);
}
