/** Raised for a flag value outside the contract; `message` is the one-line user message. */
export class FlagError extends Error {
  constructor(
    readonly flag: string,
    readonly value: unknown,
    readonly allowed: string,
  ) {
    super(
      `--${flag}: got ${typeof value === 'string' ? `'${value}'` : JSON.stringify(value)}; expected ${allowed}`,
    );
    this.name = 'FlagError';
  }
}
