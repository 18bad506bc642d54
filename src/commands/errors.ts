/** The top-level error policy: user errors print one line and exit 1; bugs keep their stack. */
import { UserError } from '../io/errors.js';
import { FlagError } from '../schema/flags.js';

export function reportError(err: unknown): number {
  if (err instanceof UserError) {
    process.stderr.write(`vramplan: ${err.message}\n${err.hint ? `hint: ${err.hint}\n` : ''}`);
    return err.exitCode;
  }
  if (err instanceof FlagError) {
    process.stderr.write(`vramplan: ${err.message}\n`);
    return 1;
  }
  process.stderr.write(
    `vramplan: internal error (please report it):\n${err instanceof Error ? err.stack : String(err)}\n`,
  );
  return 70;
}
