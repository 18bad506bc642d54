/**
 * Every file a user hands vramplan (scenario, config.json, `--from` config, plans.json) is read through
 * here: a regular file only (never a folder, a named pipe or a device such as /dev/zero, which would hang
 * or grow without end), at most MAX_INPUT_BYTES, and nested at most MAX_NESTING levels deep (a deeper file
 * would overflow the stack of the parser or of the code that walks it). Every refusal is one UserError line.
 */
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { UserError } from './errors.js';

/** The size cap of an input file (configs, scenarios, plan files): 16 MiB. */
export const MAX_INPUT_BYTES = 16 * 1024 * 1024;
/** The deepest nesting of lists and mappings an input file may have. */
export const MAX_NESTING = 100;

export interface ReadInputOptions {
  /** How an unreadable file is reported (code: ENOENT, EACCES, EISDIR...); default `<file>: cannot read file (<code>)`. */
  cannotRead?: (code: string) => UserError;
  maxBytes?: number;
  /** Exit status of the new refusals (not a regular file, too large); default 1. */
  exitCode?: number;
}

const kindOf = (s: Stats): string =>
  s.isFIFO()
    ? 'a named pipe'
    : s.isCharacterDevice() || s.isBlockDevice()
      ? 'a device'
      : s.isSocket()
        ? 'a socket'
        : 'not a plain file';

const mib = (n: number): string => `${Math.round((n / (1024 * 1024)) * 10) / 10} MiB`;

/** The text of `file`, refused unless it is a regular file under the size cap. */
export function readInputText(file: string, opts: ReadInputOptions = {}): string {
  const max = opts.maxBytes ?? MAX_INPUT_BYTES;
  const cannot =
    opts.cannotRead ?? ((code: string) => new UserError(`${file}: cannot read file (${code})`));
  let fd: number;
  try {
    // O_NONBLOCK: opening a named pipe with no writer returns at once instead of waiting for one.
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    throw cannot((e as NodeJS.ErrnoException).code ?? 'error');
  }
  try {
    const st = fstatSync(fd);
    if (st.isDirectory()) throw cannot('EISDIR');
    if (!st.isFile())
      throw new UserError(
        `${file}: is ${kindOf(st)}; expected a regular file`,
        undefined,
        opts.exitCode ?? 1,
      );
    const tooBig = (size: string) =>
      new UserError(
        `${file}: ${size}, over the ${mib(max)} limit for input files`,
        undefined,
        opts.exitCode ?? 1,
      );
    if (st.size > max) throw tooBig(mib(st.size));
    // Read at most max + 1 bytes whatever the size said (a file that grows while read).
    const buf = Buffer.alloc(Math.min(st.size, max) + 1);
    let got = 0;
    for (;;) {
      const n = readSync(fd, buf, got, buf.length - got, got);
      if (n === 0) break;
      got += n;
      if (got > max) throw tooBig(`more than ${mib(max)}`);
      if (got === buf.length) break;
    }
    // Every input is text (YAML, JSON, TOML, shell): a NUL byte means a binary file (an image, an archive).
    const NUL = 0;
    if (buf.subarray(0, got).includes(NUL))
      throw new UserError(
        `${file}: is a binary file (it holds NUL bytes); expected a text file such as YAML or JSON`,
        undefined,
        opts.exitCode ?? 1,
      );
    return buf.subarray(0, got).toString('utf8');
  } catch (e) {
    if (e instanceof UserError) throw e;
    throw cannot((e as NodeJS.ErrnoException).code ?? 'error');
  } finally {
    closeSync(fd);
  }
}

/**
 * The deepest nesting of flow brackets (`[` and `{`) in JSON or YAML text, outside strings and YAML
 * comments; stops counting past `limit`. Block-style YAML nesting is checked after parsing (nestingOf).
 */
export function bracketDepth(text: string, yaml: boolean, limit = MAX_NESTING): number {
  let depth = 0;
  let max = 0;
  let quote = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === '\\' && quote === '"') i++;
      else if (c === quote) {
        // YAML's single-quoted strings escape a quote by doubling it.
        if (quote === "'" && text[i + 1] === "'") i++;
        else quote = '';
      }
      continue;
    }
    if (c === '"') quote = c;
    else if (yaml && c === "'" && /[\s[{,:]/.test(text[i - 1] ?? ' ')) quote = c;
    else if (yaml && c === '#' && /\s/.test(text[i - 1] ?? '\n')) {
      const nl = text.indexOf('\n', i);
      if (nl < 0) break;
      i = nl;
    } else if (c === '[' || c === '{') {
      depth++;
      if (depth > max) max = depth;
      if (max > limit) return max;
    } else if ((c === ']' || c === '}') && depth > 0) depth--;
  }
  return max;
}

/** The nesting depth of a parsed value (iterative: no recursion on hostile input); stops past `limit`. */
export function nestingOf(value: unknown, limit = MAX_NESTING): number {
  let max = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, d] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    const depth = d + 1;
    if (depth > max) max = depth;
    if (max > limit) return max;
    for (const child of Object.values(v as object)) stack.push([child, depth]);
  }
  return max;
}

export const tooDeep = (file: string, exitCode = 1): UserError =>
  new UserError(
    `${file}: nested more than ${MAX_NESTING} levels deep; expected a config, scenario or plan file`,
    undefined,
    exitCode,
  );

/** JSON.parse of a user file's text, with the nesting limit checked before and after parsing. */
export function parseJsonInput(file: string, text: string, exitCode = 1): unknown {
  if (bracketDepth(text, false) > MAX_NESTING) throw tooDeep(file, exitCode);
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new UserError(
      `${file}: invalid JSON (${(e as Error).message.split('\n')[0]})`,
      undefined,
      exitCode,
    );
  }
  return v;
}
