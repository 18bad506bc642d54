/**
 * `--from <file>`: which tool wrote a config, its mapping to contract flags, the DeepSpeed JSON it names,
 * and the merge with the command line (flags given beside --from win). Pure; src/io/from reads files.
 */
import {
  type DeepSpeedMapping,
  FromError,
  isRecord,
  type FromFlags,
  type FromFormat,
  type FromMapping,
  type UpstreamKeys,
} from './common.js';
import { mapServeConfig } from './serve-map.js';
import { isSkyTask, mapSkyPilot } from './skypilot.js';
import type { CommandConfig, ConfigReader, ConfigSource, NamedDeepSpeed } from '../engines/def.js';
import { FRAMEWORKS, configReaders, serveReaders } from '../engines/store.js';
import type { FrameworkProfile } from '../memory/framework-profile.js';
import type { Arch } from '../model/arch.js';
import { ropeScaledPositions } from '../model/hf-config.js';
import { nativeWeights } from '../model/native-weights.js';
import { maxContext } from '../model/structure.js';

export { FromError };
export type { DeepSpeedMapping, FromFlags, FromFormat, FromMapping, UpstreamKeys };

/** SkyPilot task YAML: not an engine's, so the core reads it (from/skypilot.ts), after torchtitan's recipe. */
const SKYPILOT_READER: ConfigReader = {
  format: 'skypilot',
  name: 'SkyPilot task YAML (sky.yaml)',
  order: 20,
  detect: isSkyTask,
  map: mapSkyPilot,
};

/** Every `--from` config reader, in detection order: the engines' and SkyPilot's. */
const readers = (): readonly ConfigReader[] =>
  [...configReaders(), SKYPILOT_READER].sort((a, b) => a.order - b.order);

/** The tool a parsed config belongs to, from the keys only that tool uses; null when none matches. */
export function detectFormat(doc: Record<string, unknown>): FromFormat | null {
  return readers().find((r) => r.detect(doc))?.format ?? null;
}

/** The first reader's command line in a shell script (ConfigReader.command), with its format; null when none. */
export function commandConfigOf(text: string): (CommandConfig & { format: FromFormat }) | null {
  for (const r of readers()) {
    const c = r.command?.(text);
    if (c) return { ...c, format: r.format };
  }
  return null;
}

/**
 * `file`: the config's path (a TRL config's trainer may be named only by it); `keys`: the upstream tools' key
 * lists (io/load-upstream-keys.ts).
 */
export function mapConfig(
  doc: Record<string, unknown>,
  format: FromFormat,
  file: string | undefined,
  keys: UpstreamKeys,
): FromMapping {
  const reader = readers().find((r) => r.format === format);
  if (reader) return reader.map(doc, file, keys);
  const serve = serveReaders().find((r) => r.engine === format);
  if (serve?.configFile) return mapServeConfig(doc, serve.engine);
  throw new FromError(
    '(file)',
    'a YAML/JSON document',
    `a ${serveCommandName(format)} or serve.sh`,
  );
}

/**
 * The reader whose files are parsed by their own parser (not YAML or JSON) when `file`'s name ends in its
 * extension (the torchtitan recipe's `.py`), or undefined.
 */
export function sourceOf(file: string): ConfigSource | undefined {
  const name = file.toLowerCase();
  return readers().find((r) => r.source && name.endsWith(r.source.extension.toLowerCase()))?.source;
}

/** How a config of `format` maps the DeepSpeed config it names (its reader's `deepspeed`). */
export function namedDeepSpeedOf(format: FromFormat): NamedDeepSpeed {
  const d = readers().find((r) => r.format === format && r.deepspeed)?.deepspeed;
  if (!d) throw new Error(`the ${format} reader names a DeepSpeed config but maps none`);
  return d;
}

/** The program of a server command line format ('llama-server command line'), for messages. */
const serveCommandName = (format: FromFormat): string => formatName(format).replace(/^\S+ /, '');

/** The framework keeps its own fp32 master partition under ZeRO (DeepSpeed's optimizer layout). */
const keepsMasterPartition = (framework: unknown): boolean =>
  typeof framework === 'string' &&
  (FRAMEWORKS as Partial<Record<string, FrameworkProfile>>)[framework]?.deepspeedOptimizer === true;

/**
 * A DeepSpeed config named by the main file: its stage, offload and engine win; its micro-batch and
 * accumulation fill in what the main file left out ("auto" defers to the trainer's values).
 */
export function withDeepSpeed(m: FromMapping, ds: DeepSpeedMapping, name: string): FromMapping {
  const flags: FromFlags = { ...m.flags };
  for (const [k, v] of Object.entries(ds.flags)) {
    if ((k === 'batch' || k === 'grad-accum') && flags[k] !== undefined) continue;
    // The trainer's bf16/fp16 flag decides when DeepSpeed says "auto"; a fixed DeepSpeed value wins.
    if (k === 'compute' && ds.precisionAuto) continue;
    flags[k] = v;
  }
  if (
    keepsMasterPartition(flags.framework) &&
    flags.weights === 'fp32' &&
    (flags.method ?? 'full') === 'full'
  )
    // DeepSpeed bf16/fp16 mode casts the model to 16 bits and keeps its own fp32 master partition.
    flags.weights = flags.compute === 'fp16' ? 'fp16' : 'bf16';
  return {
    ...m,
    flags,
    warnings: [...m.warnings, ...ds.warnings.map((w) => `${name}: ${w}`)],
    ignored: [...m.ignored, ...ds.ignored.map((k) => `${name}:${k}`)],
    unknown: [...m.unknown, ...ds.unknown.map((k) => `${name}:${k}`)],
  };
}

/**
 * The flags `estimate` runs with: the file's, then the command line's on top. A method given on the
 * command line drops the file's weight dtype when the two cannot go together (full ⇄ quantized).
 */
/**
 * A serving command that names no format loads the checkpoint as it ships (an FP8 DeepSeek-V3, an MXFP4
 * gpt-oss): the weights of `arch`'s quantization_config, unless the command line gives --weights.
 */
export function checkpointWeightsInto(
  m: FromMapping,
  cli: Readonly<Record<string, unknown>>,
  flags: Record<string, unknown>,
  arch: Arch,
): void {
  if (m.checkpointWeights !== true || cli.weights !== undefined || flags.weights !== undefined)
    return;
  const native = nativeWeights(arch);
  if (native) flags.weights = native;
}

/**
 * The model as the serve line runs it (FromMapping.context): the context its config override declares (rope_scaling
 * over the original positions, or max_position_embeddings: model/hf-config.ts ropeScaledPositions, as the engine
 * derives its length from the merged config), and, where the line sets the engine's switch past that length, the
 * `seq` it asks for. Positions only bound the context here; the weights are the config's own.
 */
export function archOfFrom(m: FromMapping, arch: Arch, seq: unknown): Arch {
  const c = m.context;
  if (!c) return arch;
  const notes: string[] = [];
  let out = arch;
  if (c.config) {
    const p = c.config.max_position_embeddings;
    const positions =
      typeof p === 'number' && Number.isSafeInteger(p) && p > 0 ? p : arch.maxPositions;
    const declared = Math.max(positions, ropeScaledPositions(c.config, positions));
    if (declared > maxContext(arch)) {
      out = { ...out, ropeScaledPositions: declared };
      notes.push(
        `the serve line's config override (${Object.keys(c.config).join(', ')}) declares ${declared} positions, past the ${maxContext(arch)} of ${arch.id}'s config`,
      );
    }
  }
  if (c.allowLonger && typeof seq === 'number' && seq > maxContext(out)) {
    notes.push(
      `${c.allowLonger}: the engine runs ${seq} positions, past the ${maxContext(out)} the config declares (untrained there)`,
    );
    out = { ...out, ropeScaledPositions: seq };
  }
  return notes.length > 0 ? { ...out, assumptions: [...notes, ...(out.assumptions ?? [])] } : out;
}

export function mergeFlags(
  m: FromMapping,
  cli: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const file: Record<string, unknown> = { ...m.flags };
  if (cli.method !== undefined && cli.weights === undefined && cli.method !== file.method) {
    delete file.weights;
    delete file['double-quant'];
    if (cli.method === 'inference') {
      delete file.optimizer;
      delete file['optimizer-in-backward'];
    }
  }
  const out: Record<string, unknown> = { ...file, ...cli };
  // A file's FP8 mixed precision beside an adapter: FP8 training is modelled for full fine-tunes only.
  const fp8 = out.compute === 'fp8' || out.compute === 'mxfp8';
  if (fp8 && cli.compute === undefined && (out.method ?? 'full') !== 'full') out.compute = 'bf16';
  const gpus = Number(out.gpus ?? 1);
  if (gpus > 1 && out.zero === undefined && m.multiGpuZero) out.zero = m.multiGpuZero;
  const sixteen = out.weights === undefined || out.weights === 'bf16' || out.weights === 'fp16';
  if (
    keepsMasterPartition(out.framework) &&
    (out.method ?? 'full') === 'full' &&
    sixteen &&
    cli['master-weights'] === undefined &&
    Number(out.zero ?? 0) > 0
  )
    // DeepSpeed ZeRO in bf16/fp16 keeps an fp32 master partition: https://www.deepspeed.ai/docs/config-json/#bfloat16-training-options
    out['master-weights'] = true;
  return out;
}

/** The contract options key each flag sets (so `options` can say which came from the file). */
export const flagKey = (flag: string): string =>
  flag.replace(/-([a-z])/g, (_, ch: string) => ch.toUpperCase());

export { FromError as FromConfigError };

/** What each format is, for messages: every reader's, in registration order (SkyPilot's last). */
function formatNames(): Map<FromFormat, string> {
  const names = new Map<FromFormat, string>();
  for (const r of [
    ...configReaders(),
    ...serveReaders().map((s) => ({ format: s.engine, name: s.name })),
  ])
    if (!names.has(r.format)) names.set(r.format, r.name);
  names.set(SKYPILOT_READER.format, SKYPILOT_READER.name);
  return names;
}
export const formatName = (f: FromFormat): string => formatNames().get(f) ?? f;
export const isFormat = (s: string): s is FromFormat => formatNames().has(s);
export const describeFormats = (): string => [...formatNames().values()].join(', ');
export const throwIfNotRecord = (doc: unknown, field: string): Record<string, unknown> => {
  if (!isRecord(doc)) throw new FromError(field, doc, 'a mapping of keys to values');
  return doc;
};
