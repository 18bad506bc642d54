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
  return new UserError(`${field}: got ${shownValue(value)}; expected ${allowed}`);
}

/** A value as an error shows it: strings quoted, NaN and infinities by name, a missing value as nothing. */
export function shownValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'string') return `'${value}'`;
  if (typeof value === 'number' && !Number.isFinite(value))
    return Number.isNaN(value) ? 'NaN (.nan)' : value > 0 ? 'Infinity (.inf)' : '-Infinity (-.inf)';
  return JSON.stringify(value) ?? String(value);
}
