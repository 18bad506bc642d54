/**
 * `--from` for serving engines: the server commands of a shell text (a `serve.sh`, or one command line) and the
 * flags of each, read the way the engines' own parsers read them (argparse for vLLM and SGLang, llama.cpp's
 * common/arg.cpp for llama-server). Pure: the text comes in, commands come out.
 */
import { FromError, isRecord, type ServeCommand, type ServeEngine } from './common.js';
import { serveReaders } from '../engines/store.js';

export type { ServeCommand, ServeEngine };

/** What a shell text holds: its server commands and the variables its assignments set. */
export interface ServeScript {
  commands: ServeCommand[];
  vars: Record<string, string>;
  /** `# vramplan: --flag value` lines a launch folder's serve.sh carries (plan settings no server flag holds). */
  planFlags: Record<string, string>;
  /** What the reading assumed of the text itself (a `\ # comment` read as continuing the command). */
  notes: string[];
}

/**
 * Shell words of one line: single quotes literal, double quotes with `\` escapes, `$VAR`/`${VAR:-x}` expanded
 * from `vars` (unknown ones kept as written), an unquoted `#` starting a comment.
 */
export function shellWords(line: string, vars: Readonly<Record<string, string>>): string[] {
  const words: string[] = [];
  let cur = '';
  let inWord = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      cur += line.slice(i + 1, end < 0 ? line.length : end);
      i = end < 0 ? line.length : end;
      inWord = true;
    } else if (c === '"') {
      let j = i + 1;
      while (j < line.length && line[j] !== '"') {
        if (line[j] === '\\' && j + 1 < line.length) j++;
        else if (line[j] === '$') {
          const [text, next] = expand(line, j, vars);
          cur += text;
          j = next;
          continue;
        }
        cur += line[j];
        j++;
      }
      i = j;
      inWord = true;
    } else if (c === '$') {
      const [text, next] = expand(line, i, vars);
      cur += text;
      i = next - 1;
      inWord = true;
    } else if (c === '\\' && i + 1 < line.length) {
      cur += line[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(cur);
      cur = '';
      inWord = false;
    } else if (c === '#' && !inWord) break;
    else {
      cur += c;
      inWord = true;
    }
  }
  if (inWord) words.push(cur);
  return words;
}

/**
 * `$NAME`, `${NAME}`, `${NAME:-default}` or an arithmetic expansion of integer literals (`$(( 32*1024 ))`, bash's
 * integer arithmetic: + - * / % and parentheses, division truncating) at `at`: its value and the index after it.
 */
function expand(
  line: string,
  at: number,
  vars: Readonly<Record<string, string>>,
): [string, number] {
  const arithmetic = /^\$\(\(([\d\s+*/%()-]+)\)\)/.exec(line.slice(at));
  const value = arithmetic ? integerArithmetic(arithmetic[1]!) : null;
  if (arithmetic && value !== null) return [String(value), at + arithmetic[0].length];
  const braced = /^\$\{(\w+)(?::-([^}]*))?\}/.exec(line.slice(at));
  if (braced) {
    const v = vars[braced[1]!] ?? braced[2] ?? braced[0];
    return [v.replace(/^'(.*)'$/, '$1'), at + braced[0].length];
  }
  const plain = /^\$(\w+)/.exec(line.slice(at));
  if (plain) return [vars[plain[1]!] ?? plain[0], at + plain[0].length];
  return ['$', at + 1];
}

/** An integer expression of literals, + - * / % and parentheses, as bash evaluates it; null if malformed. */
function integerArithmetic(text: string): number | null {
  const tokens = text.match(/\d+|[-+*/%()]/g) ?? [];
  let i = 0;
  const atom = (): number | null => {
    const t = tokens[i++];
    if (t === '-' || t === '+') {
      const v = atom();
      return v === null ? null : t === '-' ? -v : v;
    }
    if (t === '(') {
      const v = sum();
      return tokens[i++] === ')' ? v : null;
    }
    return t !== undefined && /^\d+$/.test(t) ? Number(t) : null;
  };
  const product = (): number | null => {
    let v = atom();
    while (v !== null && ['*', '/', '%'].includes(tokens[i] ?? '')) {
      const op = tokens[i++];
      const r = atom();
      if (r === null || (op !== '*' && r === 0)) return null;
      v = op === '*' ? v * r : op === '/' ? Math.trunc(v / r) : v % r;
    }
    return v;
  };
  const sum = (): number | null => {
    let v = product();
    while (v !== null && ['+', '-'].includes(tokens[i] ?? '')) {
      const op = tokens[i++];
      const r = product();
      if (r === null) return null;
      v = op === '+' ? v + r : v - r;
    }
    return v;
  };
  const v = sum();
  return v !== null && i === tokens.length && Number.isSafeInteger(v) ? v : null;
}

/** A program word's base name, without a Windows `.exe` (llama-server.exe, python.exe). */
export const programName = (w: string): string =>
  w
    .split('/')
    .pop()!
    .replace(/\.exe$/i, '');

/**
 * A Windows command line (cmd.exe or PowerShell, its program an `.exe`: `.\llama\llama-server.exe -m
 * "C:\models\x.gguf"`, as in llama.cpp's tools/server/README.md and ggml-org/llama.cpp#15253) has no backslash
 * escapes: its backslashes are path separators, read here as `/`.
 */
const windowsPaths = (piece: string): string =>
  /^\s*\S+\.exe(\s|$)/i.test(piece) ? piece.replace(/\\/g, '/') : piece;

/** The module of `python -m <module>` starting at word `i`, or null. */
export const pythonModule = (words: readonly string[], i: number): string | null =>
  /^python(\d(\.\d+)?)?$/.test(programName(words[i]!)) && words[i + 1] === '-m'
    ? (words[i + 2] ?? null)
    : null;

/** The engine whose server command word `i` starts (each engine's serve reader knows its own), and its arguments. */
function serverStart(words: readonly string[], i: number): [ServeEngine, number] | null {
  for (const r of serveReaders()) {
    const at = r.start(words, i);
    if (at !== null) return [r.engine, at];
  }
  return null;
}

/**
 * A `\` then blanks and a `# comment` before the newline, as documentation annotates each flag of a command
 * (vLLM's docs/serving/expert_parallel_deployment.md): the text lays the flags out as one command, though a shell
 * ends the command at the comment.
 */
const COMMENTED_CONTINUATION = /\\[ \t]+#[^\r\n]*(?=\r?\n)/g;

/** Lines of a shell text with `\`-newline continuations joined (also those annotated with a comment). */
export const logicalLines = (text: string): string[] =>
  text
    .replace(COMMENTED_CONTINUATION, '\\')
    .replace(/\\\r?\n[ \t]*/g, ' ')
    .split(/\r?\n/);

/** How many `\ # comment` continuations a shell text has (read as continuing; a shell would end there). */
export const commentedContinuations = (text: string): number =>
  text.match(COMMENTED_CONTINUATION)?.length ?? 0;

/** The server commands of a shell text (serve.sh or a pasted command line), with its variables resolved. */
export function parseServeScript(text: string): ServeScript {
  const vars: Record<string, string> = {};
  const planFlags: Record<string, string> = {};
  const commands: ServeCommand[] = [];
  for (const raw of logicalLines(text)) {
    const plan = /^\s*#\s*vramplan:\s*--([a-z-]+)\s+(\S+)/.exec(raw);
    if (plan) planFlags[plan[1]!] = plan[2]!;
    // Commands joined by && or ; (one per piece); a trailing & runs in the background.
    for (const piece of raw.split(/&&|;|\|\|/)) {
      const words = shellWords(windowsPaths(piece).replace(/&\s*$/, ''), vars);
      commandOf(words, vars, commands);
    }
  }
  const commented = commentedContinuations(text);
  const notes =
    commented > 0
      ? [
          `${commented} line${commented > 1 ? 's end' : ' ends'} in \`\\ # comment\`: read as continuing the command, as the text lays its flags out (a shell ends the command at the comment; move the comments off the command to run it)`,
        ]
      : [];
  return { commands, vars, planFlags, notes };
}

/** Adds the server command of `line` (after its env prefix and any wrapper: nohup, exec, uv run) or records its assignments. */
function commandOf(line: string[], vars: Record<string, string>, out: ServeCommand[]): void {
  // `export A=b` / `declare A=b` set the same variables as `A=b`.
  const words = /^(export|declare|readonly|local)$/.test(line[0] ?? '') ? line.slice(1) : line;
  const env: Record<string, string> = {};
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    const assign = /^([A-Za-z_]\w*)=(.*)$/s.exec(w);
    if (assign && Object.keys(env).length === i) {
      env[assign[1]!] = assign[2]!;
      continue;
    }
    const start = serverStart(words, i);
    if (start) {
      out.push({ engine: start[0], args: words.slice(start[1]), env });
      return;
    }
  }
  // A line of assignments only sets shell variables (MODEL=${MODEL:-x}).
  if (words.length > 0 && words.length === Object.keys(env).length) Object.assign(vars, env);
}

/** How one engine's parser takes a flag: canonical name, its spellings, and whether it takes a value. */
export interface FlagSpec {
  names: readonly string[];
  value: boolean;
}

/** A flag that takes a value (`--tp 2`, `--tp=2`), under any of its spellings. */
export const valued = (...names: string[]): FlagSpec => ({ names, value: true });
/** A switch (`--disable-radix-cache`), under any of its spellings. */
export const switched = (...names: string[]): FlagSpec => ({ names, value: false });

/** The flags of one command, by canonical name; the rest (and positionals) kept apart. */
export interface ParsedArgs {
  values: Map<string, string | boolean>;
  /** The spelling each canonical flag was written with (for messages). */
  written: Map<string, string>;
  positionals: string[];
  unknown: string[];
}

/**
 * Reads `args` against `specs` (keyed by canonical name): `--flag value`, `--flag=value`, `--no-flag` for the
 * argparse booleans (BooleanOptionalAction), `_` for `-` in long names (vLLM's FlexibleArgumentParser). An
 * unknown flag takes the next word as its value when that word is not a flag.
 */
export function parseArgs(
  args: readonly string[],
  specs: Readonly<Record<string, FlagSpec>>,
  underscores = false,
): ParsedArgs {
  const byName = new Map<string, [string, FlagSpec]>();
  for (const [key, spec] of Object.entries(specs))
    for (const n of spec.names) byName.set(n, [key, spec]);
  const out: ParsedArgs = { values: new Map(), written: new Map(), positionals: [], unknown: [] };
  const isFlag = (w: string | undefined) => w !== undefined && /^--?[A-Za-z]/.test(w);
  for (let i = 0; i < args.length; i++) {
    const w = args[i]!;
    if (!isFlag(w)) {
      out.positionals.push(w);
      continue;
    }
    const eq = w.indexOf('=');
    const inline = eq > 0 ? w.slice(eq + 1) : undefined;
    let name = eq > 0 ? w.slice(0, eq) : w;
    if (underscores && name.startsWith('--')) name = `--${name.slice(2).replace(/_/g, '-')}`;
    const negated = name.startsWith('--no-') ? byName.get(`--${name.slice(5)}`) : undefined;
    const hit = byName.get(name) ?? (negated && !negated[1].value ? negated : undefined);
    if (!hit) {
      const takes = inline === undefined && args[i + 1] !== undefined && !isFlag(args[i + 1]);
      out.unknown.push(name);
      if (takes) i++;
      continue;
    }
    const [key, spec] = hit;
    out.written.set(key, name);
    if (!spec.value) out.values.set(key, hit !== byName.get(name) ? false : inline !== 'false');
    else {
      const v = inline ?? args[++i];
      if (v === undefined) throw new FromError(name, null, 'a value after the flag');
      out.values.set(key, v);
    }
  }
  return out;
}

/**
 * A vLLM / SGLang `--config` YAML as the command-line words it stands for (vLLM FlexibleArgumentParser
 * load_config_file at vllm 00da11e3: true → `--key`, false → `--no-key`, lists → `--key a b`, mappings → JSON).
 */
export function configArgs(doc: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const [key, value] of Object.entries(doc)) {
    if (value === null || value === undefined) continue;
    if (typeof value === 'boolean') out.push(value ? `--${key}` : `--no-${key}`);
    else if (Array.isArray(value)) out.push(`--${key}`, ...value.map(String));
    else if (isRecord(value)) out.push(`--${key}`, JSON.stringify(value));
    else out.push(`--${key}`, String(value));
  }
  return out;
}
