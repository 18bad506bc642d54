/** The top-level error policy: user errors print one line and exit 1; bugs keep their stack. */
import { UserError, shownValue } from '../io/errors.js';
import { FlagError } from '../schema/flags.js';
import { didYouMean } from '../io/suggest.js';

/** Control characters (newlines from a binary file's JSON.parse excerpt, a path) escaped to keep one line. */
export const oneLine = (s: string): string =>
  // eslint-disable-next-line no-control-regex
  s.replace(/[\u0000-\u001f\u007f]/g, (ch) =>
    ch === '\u007f' ? '\\u007f' : JSON.stringify(ch).slice(1, -1),
  );

export function reportError(err: unknown): number {
  if (err instanceof UserError) {
    // One line: the message, then the hint after a dash.
    const hint = err.hint ? ` — ${oneLine(err.hint)}` : '';
    process.stderr.write(`vramplan: ${oneLine(err.message)}${hint}\n`);
    return err.exitCode;
  }
  if (err instanceof FlagError) {
    // A mistyped enum value (an engine, an optimizer...): the nearest allowed names.
    const hint =
      typeof err.value === 'string' && err.allowed.startsWith('one of ')
        ? didYouMean(err.value, err.allowed.slice('one of '.length).split(', '))
        : '';
    // The value as every error shows it (a missing value as nothing, NaN by name), not as JSON.
    const message = `--${err.flag}: got ${shownValue(err.value)}; expected ${err.allowed}`;
    process.stderr.write(`vramplan: ${oneLine(message)}${hint ? ` (${hint})` : ''}\n`);
    return 1;
  }
  process.stderr.write(
    `vramplan: internal error (please report it):\n${err instanceof Error ? err.stack : String(err)}\n`,
  );
  return 70;
}
