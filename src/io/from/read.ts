/**
 * `--from <file>`: read a training config (axolotl, LLaMA-Factory, torchtune, TrainingArguments/TRL,
 * DeepSpeed, Accelerate), load the DeepSpeed JSON it names, and map it to contract flags
 * (src/core/from). Every failure is one line naming the file and the key; exit code 1 (bad input).
 * Loaded lazily by the commands, only when --from is given.
 */
import { existsSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { parseDocument } from 'yaml';
import {
  FromError,
  type FromMapping,
  commandConfigOf,
  describeFormats,
  detectFormat,
  formatName,
  mapConfig,
  namedDeepSpeedOf,
  sourceOf,
  withDeepSpeed,
} from '../../core/from/index.js';
import { isRecord } from '../../core/from/common.js';
import type { LaunchFolder } from '../../core/engines/def.js';
import { launchConfigFiles, launchFolderReaderOf } from '../../core/from/launch-folder.js';
import { upstreamKeys } from '../load-upstream-keys.js';
import { SKY_FILE } from '../../core/launch/skypilot.js';
import { POWER_FILE } from '../../core/launch/power.js';
import { RUN_PLAN_FILE, runPlanSchema } from '../../schema/measured.js';
import { UserError, shownValue } from '../errors.js';
import { FlagError } from '../../schema/flags.js';
import { MAX_NESTING, bracketDepth, nestingOf, readInputText, tooDeep } from '../read-input.js';
import { editDistance } from '../suggest.js';
import {
  configRefOf,
  hasServeCommand,
  mapServeScript,
  parseServeScript,
  withConfig,
} from '../../core/from/serve-map.js';

/**
 * Exit status of a config file that cannot be read or mapped (malformed file, missing DeepSpeed file,
 * unknown key): bad input, 1, as every command's (2 means nothing fits).
 */
export const FROM_EXIT = 1;

export interface FromConfig extends FromMapping {
  /** The file as given. */
  file: string;
  /** The DeepSpeed JSON read beside it, if any (resolved path). */
  deepspeedFile: string | null;
  /** The key of the file each flag was read from, where one key holds that value (`seq` → `cutoff_len`). */
  sourceKeys: Record<string, string>;
}

/** The dotted paths of `doc` whose value is `value` (iterative; the doc's depth is bounded on read). */
function pathsWithValue(doc: Record<string, unknown>, value: unknown): string[] {
  const hits: string[] = [];
  const stack: [string, unknown][] = Object.entries(doc);
  while (stack.length > 0) {
    const [path, v] = stack.pop()!;
    if (v !== null && typeof v === 'object' && !Array.isArray(v))
      for (const [k, child] of Object.entries(v)) stack.push([`${path}.${k}`, child]);
    else if (Object.is(v, value) || (typeof v === 'string' && String(value) === v)) hits.push(path);
  }
  return hits;
}

function sourceKeysOf(
  doc: Record<string, unknown>,
  flags: Record<string, unknown>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [flag, value] of Object.entries(flags)) {
    const hits = pathsWithValue(doc, value);
    if (hits.length === 1) out[flag] = hits[0]!;
  }
  return out;
}

/**
 * Runs `f` on the merged flags of a `--from` config: a value from the file that the flag checks refuse
 * is reported with the file's own key (`lf.yaml: cutoff_len: got 1000000000000; ...`), not as a flag.
 */
export function inFromConfig<T>(
  config: FromConfig,
  cli: Readonly<Record<string, unknown>>,
  f: () => T,
): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof FlagError && cli[e.flag] === undefined && config.flags[e.flag] !== undefined) {
      const key = config.sourceKeys[e.flag] ?? `(read as --${e.flag})`;
      throw fail(`${config.file}: ${key}: got ${shownValue(e.value)}; expected ${e.allowed}`);
    }
    throw e;
  }
}

const fail = (message: string) => new UserError(message, undefined, FROM_EXIT);

function readText(file: string): string {
  try {
    if (statSync(file).isDirectory())
      throw fail(
        `${file}: is a folder without a launch config (${launchConfigNames()}); --from expects a config file (YAML or JSON) or a folder written by 'vramplan launch'`,
      );
    return readInputText(file, {
      cannotRead: (code) => fail(`${file}: cannot read file (${code})`),
      exitCode: FROM_EXIT,
    });
  } catch (e) {
    if (e instanceof UserError) throw e;
    throw fail(`${file}: cannot read file (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

/** A reader's own text by its parser (ConfigReader.source), JSON for .json files, YAML (1.1, as PyYAML reads it) otherwise. */
function parse(file: string, text: string): Record<string, unknown> {
  let doc: unknown;
  const own = sourceOf(file);
  const yaml = !/\.json$/i.test(file);
  if (!own && bracketDepth(text, yaml) > MAX_NESTING) throw tooDeep(file, FROM_EXIT);
  if (own) {
    doc = own.parse(text); // a format's own text (a reader's `source`: the torchtitan recipe `launch` writes)
  } else if (/\.json$/i.test(file)) {
    try {
      doc = JSON.parse(text);
    } catch (e) {
      throw fail(`${file}: invalid JSON (${(e as Error).message})`);
    }
  } else {
    const parsed = parseDocument(text, { version: '1.1', uniqueKeys: true, prettyErrors: false });
    const err = parsed.errors[0];
    if (err && /call stack/i.test(err.message)) throw tooDeep(file, FROM_EXIT);
    if (err) {
      const line = err.linePos?.[0].line;
      throw fail(
        `${file}: invalid YAML${line ? ` at line ${line}` : ''} (${err.message.split('\n')[0]})`,
      );
    }
    try {
      doc = parsed.toJS({ maxAliasCount: 100 });
    } catch (e) {
      if (e instanceof RangeError) throw tooDeep(file, FROM_EXIT);
      throw e;
    }
  }
  if (nestingOf(doc) > MAX_NESTING) throw tooDeep(file, FROM_EXIT);
  if (!isRecord(doc))
    throw fail(
      `${file}: (root): got ${doc === null ? 'an empty file' : JSON.stringify(doc).slice(0, 40)}; expected a mapping of config keys`,
    );
  return doc;
}

/** `ref` relative to the config's folder or any folder above it (repo-root paths), then the working folder. */
function resolveRef(file: string, ref: string): string | null {
  if (isAbsolute(ref)) return existsSync(ref) ? ref : null;
  let dir = resolve(dirname(file));
  for (;;) {
    const candidate = join(dir, ref);
    if (existsSync(candidate)) return candidate;
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  const cwd = resolve(ref);
  return existsSync(cwd) ? cwd : null;
}

function mapped<T>(file: string, run: () => T): T {
  try {
    return run();
  } catch (e) {
    if (e instanceof FromError) {
      throw fail(`${file}: ${e.field}: got ${shownValue(e.value)}; expected ${e.allowed}`);
    }
    throw e;
  }
}

/** The config files of a `vramplan launch` folder, every registered engine's, as a message lists them. */
function launchConfigNames(): string {
  const names = launchConfigFiles();
  return names.length > 1 ? `${names.slice(0, -1).join(', ')} or ${names.at(-1)}` : names.join('');
}

const isFolder = (p: string): boolean => {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
};

/**
 * A folder written by `vramplan launch`: the engine's config, with what its launch-folder reader takes from the
 * files beside it (engines/<engine>/launch-folder.ts: accelerate.yaml's process count, torchtune's run line...).
 */
function readLaunchFolder(dir: string): FromConfig {
  const name = launchConfigFiles().find((f) => existsSync(join(dir, f)));
  if (name === undefined) readText(dir); // throws the folder error
  const c = readFile(join(dir, name!));
  const reader = launchFolderReaderOf(name!, c.flags.framework);
  const at = (file: string): string | null => {
    const f = join(dir, file);
    return existsSync(f) ? f : null;
  };
  const folder: LaunchFolder = {
    flags: (file) => {
      const f = at(file);
      return f === null ? null : readFile(f).flags;
    },
    text: (file) => {
      const f = at(file);
      return f === null ? null : readText(f);
    },
  };
  const flags = reader?.read ? reader.read({ ...c.flags }, folder) : { ...c.flags };
  return withPlanFlags(dir, { ...c, flags: withPowerLimit(dir, withSkyTask(dir, flags)) });
}

/**
 * What the engine's files leave out, from the plan a launch folder was written from (vramplan-plan.json's
 * flags): the prompt length (a server's command holds the context and the concurrency but not the load, so
 * without it the read-back takes the default prompt, half the context) and the GPU (most engine files name
 * none; a power cap in watts cannot be read without it). Said in the notes; a flag given beside --from wins
 * as every flag does.
 */
const PLAN_FLAGS: readonly {
  key: 'prompt-tokens' | 'gpu';
  what: string;
  why: string;
  /** The value as the note shows it, or null where the plan's value is not one the flag takes. */
  shown: (v: unknown) => string | null;
}[] = [
  {
    key: 'prompt-tokens',
    what: 'prompt tokens',
    why: 'names no prompt length',
    shown: (v) =>
      typeof v === 'number' && Number.isSafeInteger(v) && v >= 1 ? v.toLocaleString('en-US') : null,
  },
  {
    key: 'gpu',
    what: 'GPU',
    why: 'names no GPU',
    shown: (v) => (typeof v === 'string' && v.length > 0 ? v : null),
  },
];

function withPlanFlags(dir: string, c: FromConfig): FromConfig {
  const file = join(dir, RUN_PLAN_FILE);
  const missing = PLAN_FLAGS.filter((f) => c.flags[f.key] === undefined);
  if (missing.length === 0 || !existsSync(file)) return c;
  let plan: ReturnType<typeof runPlanSchema.safeParse>;
  try {
    plan = runPlanSchema.safeParse(JSON.parse(readText(file)));
  } catch {
    return {
      ...c,
      warnings: [...c.warnings, `${RUN_PLAN_FILE}: not JSON; the plan's flags not read`],
    };
  }
  if (!plan.success) return c;
  const flags = { ...c.flags };
  const warnings = [...c.warnings];
  const sourceKeys = { ...c.sourceKeys };
  for (const { key, what, why, shown } of missing) {
    const v = plan.data.flags[key];
    const text = shown(v);
    if (text === null) continue;
    flags[key] = v as string | number;
    warnings.push(
      `${what}: ${text}, the plan's, from ${RUN_PLAN_FILE}'s flags (${c.file} ${why}); --${key} overrides`,
    );
    sourceKeys[key] = `${RUN_PLAN_FILE}: flags.${key}`;
  }
  return { ...c, flags, warnings, sourceKeys };
}

/**
 * The plan's power cap beside the engine's files (power-limit.sh, one `nvidia-smi -i <gpu> -pl <W>` or
 * `amd-smi set -g <gpu> -o <W>` a GPU, as launch/power.ts writes it): the limit as `--power-limit` takes it, where every GPU has the same one.
 */
function withPowerLimit(dir: string, flags: FromConfig['flags']): FromConfig['flags'] {
  const file = join(dir, POWER_FILE);
  if (!existsSync(file)) return flags;
  const watts = new Set(
    [...readText(file).matchAll(/\s(?:-pl|-o)\s+(\d+(?:\.\d+)?)\b/g)].map((m) => m[1]),
  );
  return watts.size === 1 ? { ...flags, 'power-limit': `${[...watts][0]}W` } : flags;
}

/**
 * A rented plan's SkyPilot task beside the engine's files: the GPU it rents and the GPUs a machine; the
 * GPU count of a multi-machine task (count x num_nodes), else the engine's own count where it gives one.
 */
function withSkyTask(dir: string, flags: FromConfig['flags']): FromConfig['flags'] {
  const sky = join(dir, SKY_FILE);
  if (!existsSync(sky)) return flags;
  const t = readFile(sky).flags;
  const multi = Number(t.gpus) > Number(t['gpus-per-node']);
  return {
    ...flags,
    gpu: t.gpu!,
    'gpus-per-node': t['gpus-per-node']!,
    gpus: multi || flags.gpus === undefined ? t.gpus! : flags.gpus,
  };
}

/**
 * Reads and maps one config file (and the DeepSpeed JSON it names), or a `vramplan launch` folder; a server
 * script written into a launch folder (serve.sh beside vramplan-plan.json) takes the plan's prompt length too.
 */
export function readFromConfig(file: string): FromConfig {
  return isFolder(file) ? readLaunchFolder(file) : readFile(file);
}

function readFile(file: string): FromConfig {
  const text = readText(file);
  const known = /\.(json|ya?ml)$/i.test(file) || sourceOf(file) !== undefined;
  if (/\.(sh|bash)$/i.test(file) || (!known && hasServeCommand(text)))
    return readServeScript(file, text);
  const doc = parse(file, text);
  const format = detectFormat(doc);
  if (!format)
    throw fail(
      `${file}: cannot tell which tool this config is for (keys: ${Object.keys(doc).slice(0, 6).join(', ')}); expected one of: ${describeFormats()}`,
    );
  return readDoc(file, doc, format, file);
}

/** One parsed document of `format` mapped (the DeepSpeed JSON it names merged); `named`: the path its trainer is read from. */
function readDoc(
  file: string,
  doc: Record<string, unknown>,
  format: FromMapping['format'],
  named: string,
): FromConfig {
  let m = mapped(file, () => mapConfig(doc, format, named, upstreamKeys));
  let deepspeedFile: string | null = null;
  if (m.deepspeedRef !== null) {
    const ref = m.deepspeedRef;
    deepspeedFile = resolveRef(file, ref);
    if (!deepspeedFile)
      throw fail(
        `${file}: deepspeed: '${ref}' not found (looked beside the file, in its parent folders and in the working folder); fix the path or give --zero/--offload instead`,
      );
    const dsDoc = parse(deepspeedFile, readText(deepspeedFile));
    const ds = namedDeepSpeedOf(m.format);
    m = withDeepSpeed(
      m,
      mapped(deepspeedFile, () => ds.map(dsDoc)),
      ref,
    );
  } else if (m.deepspeedInline) {
    const inline = m.deepspeedInline;
    const ds = namedDeepSpeedOf(m.format);
    m = withDeepSpeed(
      m,
      mapped(file, () => ds.map(inline)),
      ds.inlineKey,
    );
  }
  // An unknown key is an error where the tool's schema is closed (axolotl, LLaMA-Factory), or where it is
  // one typo from a key that changes memory (estimating without it would be silently wrong).
  for (const key of m.unknown) {
    if (key.includes(':')) continue; // keys of the DeepSpeed file: DeepSpeed ignores what it does not know
    // A memory key the mapping left unread in this config (a GRPO key in a PPO recipe) is not a typo of itself.
    const typo = typoOf(key, m.memoryKeys);
    const near = typo === key ? null : typo;
    const hint = near ? `; did you mean '${near}'?` : '';
    if (near || m.closedSchema)
      throw fail(
        `${file}: ${key}: unknown ${formatName(m.format)} key${hint || ` (not in ${formatName(m.format)}'s schema)`}`,
      );
  }
  const warnings = [...m.warnings];
  if (m.unknown.length > 0) warnings.push(`unknown keys, not used: ${m.unknown.join(', ')}`);
  if (m.ignored.length > 0)
    warnings.push(`not used (no effect on per-GPU memory): ${m.ignored.join(', ')}`);
  return { ...m, warnings, file, deepspeedFile, sourceKeys: sourceKeysOf(doc, m.flags) };
}

/**
 * A shell script or command line that starts a server (vllm serve, sglang, llama-server): each command's
 * `--config` YAML (looked up as a DeepSpeed file is) spliced in, then the engine's reader.
 */
function readServeScript(file: string, text: string): FromConfig {
  const script = mapped(file, () => parseServeScript(text));
  // No server: a training tool's own command line (`trl dpo --model_name_or_path ...`), read as its config.
  const command = script.commands.length === 0 ? commandConfigOf(text) : null;
  if (command) {
    const c = readDoc(file, command.doc, command.format, command.trainerPath);
    const flags = command.gpus === undefined ? c.flags : { ...c.flags, gpus: command.gpus };
    return { ...c, flags, warnings: [...command.notes, ...c.warnings] };
  }
  script.commands = script.commands.map((c) => {
    const ref = configRefOf(c);
    if (ref === null) return c;
    const found = resolveRef(file, ref);
    if (!found)
      throw fail(
        `${file}: --config: '${ref}' not found (looked beside the file, in its parent folders and in the working folder)`,
      );
    return withConfig(c, parse(found, readText(found)));
  });
  const m = mapped(file, () => mapServeScript(script));
  const warnings = [...m.warnings];
  if (m.ignored.length > 0)
    warnings.push(`not used (no effect on per-GPU memory): ${m.ignored.join(', ')}`);
  return withPlanFlags(dirname(file), {
    ...m,
    warnings,
    file,
    deepspeedFile: null,
    sourceKeys: {},
  });
}

/** The memory key a mistyped key most likely meant: two edits away, or a longer/shorter spelling of it. */
function typoOf(key: string, memoryKeys: readonly string[]): string | null {
  const k = key.toLowerCase();
  // A longer spelling (sequence_length for sequence_len) or a cut one (micro_batch for micro_batch_size).
  const MAX_EXTRA = 3;
  const MAX_CUT = 5;
  const MIN_CUT_LENGTH = 8;
  const hits = memoryKeys.filter(
    (m) =>
      editDistance(k, m) <= 2 ||
      (k.startsWith(m) && k.length - m.length <= MAX_EXTRA) ||
      (m.startsWith(k) && k.length >= MIN_CUT_LENGTH && m.length - k.length <= MAX_CUT),
  );
  return hits.sort((a, b) => editDistance(k, a) - editDistance(k, b))[0] ?? null;
}
