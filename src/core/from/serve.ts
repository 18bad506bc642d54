/**
 * What the serving engines' `--from` readers share: typed flag values (a bad one is a one-line error naming the
 * flag), the weight format a checkpoint's name says, and the FromMapping of a set of replica commands.
 */
import { FromError, type FromFlags, type FromMapping, type ServeReading } from './common.js';
import type { ParsedArgs } from './serve-line.js';
import { publishedBase } from '../launch/checkpoints.js';
import { isGguf } from '../../schema/estimate.js';

/** Typed values of a parsed command; every error names the flag as it was written. */
export class ArgValues {
  readonly used = new Set<string>();
  constructor(readonly parsed: ParsedArgs) {}

  private raw(key: string): string | boolean | undefined {
    this.used.add(key);
    return this.parsed.values.get(key);
  }

  private name(key: string): string {
    return this.parsed.written.get(key) ?? `--${key}`;
  }

  has(key: string): boolean {
    return this.parsed.values.has(key);
  }

  str(key: string): string | undefined {
    const v = this.raw(key);
    return typeof v === 'string' ? v : undefined;
  }

  bool(key: string): boolean | undefined {
    const v = this.raw(key);
    return typeof v === 'boolean' ? v : undefined;
  }

  /** An integer >= min; `human` takes vLLM's human-readable forms (32k = 32000, 32K = 32768). */
  int(key: string, min = 1, human = false): number | undefined {
    const v = this.str(key);
    if (v === undefined) return undefined;
    const n = human ? humanInt(v) : /^\s*-?\d+\s*$/.test(v) ? Number(v) : NaN;
    if (!Number.isSafeInteger(n) || n < min)
      throw new FromError(this.name(key), v, `an integer >= ${min}`);
    return n;
  }

  /** A number in (lo, hi]. */
  fraction(key: string, lo = 0, hi = 1): number | undefined {
    const v = this.str(key);
    if (v === undefined) return undefined;
    const n = Number(v);
    if (v.trim() === '' || !Number.isFinite(n) || n <= lo || n > hi)
      throw new FromError(this.name(key), v, `a number above ${lo} and at most ${hi}`);
    return n;
  }

  /** One of `allowed` (the engine's own choices). */
  choice<T extends string>(key: string, allowed: readonly T[]): T | undefined {
    const v = this.str(key);
    if (v === undefined) return undefined;
    if (!(allowed as readonly string[]).includes(v))
      throw new FromError(this.name(key), v, `one of ${allowed.join(', ')}`);
    return v as T;
  }

  /** The flags of `keys` that were given (as written), marked read: they have no effect on memory or time. */
  noEffect(keys: readonly string[]): string[] {
    const given = keys.filter((k) => this.has(k) && !this.used.has(k));
    for (const k of keys) this.used.add(k);
    return given.map((k) => this.name(k));
  }

  /** Flags given but never read (mapped flags are read; the rest are reported). */
  unused(): string[] {
    return [...this.parsed.values.keys()].filter((k) => !this.used.has(k)).map((k) => this.name(k));
  }
}

/**
 * vLLM's human_readable_int (vllm/utils/argparse_utils.py at 00da11e3): k/m/g/t decimal, K/M/G/T binary
 * (no decimals with binary suffixes), else a plain integer.
 */
export function humanInt(value: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)([kKmMgGtT])\s*$/.exec(value);
  if (!m) return /^\s*\d+\s*$/.test(value) ? Number(value) : NaN;
  const [, num, suffix] = m;
  const dec: Record<string, number> = { k: 1e3, m: 1e6, g: 1e9, t: 1e12 };
  if (dec[suffix!]) return Math.floor(Number(num) * dec[suffix!]!);
  if (num!.includes('.')) return NaN;
  return Number(num) * 2 ** (10 * ('KMGT'.indexOf(suffix!) + 1));
}

/** Torch dtype names the servers take (`--dtype`) → contract compute dtypes; auto = the checkpoint's. */
export const SERVE_DTYPES: Record<string, string> = {
  half: 'fp16',
  float16: 'fp16',
  bfloat16: 'bf16',
  float: 'fp32',
  float32: 'fp32',
};

/** The `--dtype` values vLLM (ModelDType) and SGLang (ServerArgs.dtype) take: auto, half, float16, bfloat16, float, float32. */
const SERVE_DTYPE_CHOICES = ['auto', 'half', 'float16', 'bfloat16', 'float', 'float32'] as const;

/**
 * `--dtype`, `--quantization` and the checkpoint's name → weights / compute (vLLM and SGLang: both take a
 * quantization method name and a torch dtype). A GGUF checkpoint is served by llama.cpp in vramplan, not here.
 */
export function servedWeightsInto(
  a: ArgValues,
  ref: string | null,
  flags: FromFlags,
  warnings: string[],
  engine: 'vLLM' | 'SGLang',
): void {
  const dtype = a.choice('dtype', SERVE_DTYPE_CHOICES);
  const q = a.str('quantization');
  let weights: string | null = null;
  if (q !== undefined) {
    const known = q in SERVE_QUANT;
    weights = known ? SERVE_QUANT[q]! : null;
    if (!known)
      warnings.push(`--quantization ${q}: not modelled; weights read from the checkpoint name`);
  }
  // A published checkpoint vramplan knows (catalogs/checkpoints.json) by its own format: NVIDIA's ModelOpt "-FP4"
  // releases are NVFP4, which the name alone does not say; else the name's marker.
  weights ??= ref
    ? (publishedBase(ref.replace(/:[A-Za-z0-9_]+$/, ''))?.weights ?? weightsFromName(ref))
    : null;
  // A GGUF file loads through the engine's GGUF method (its kernels ported from llama.cpp), in the type its name says.
  if (ref?.toLowerCase().endsWith('.gguf') && (weights === null || !isGguf(weights))) {
    warnings.push(
      `a GGUF checkpoint under ${engine} whose name gives no type vramplan models (q4_k_m, q5_k_m, q6_k, q8_0, q2_k, iq2_xxs, ...): estimated as 16-bit`,
    );
    weights = null;
  }
  const compute = dtype ? SERVE_DTYPES[dtype] : undefined;
  if (weights) flags.weights = weights;
  // 16-bit checkpoints are served in --dtype; quantized ones compute in it.
  if (compute === 'fp16' && !weights) flags.weights = 'fp16';
  else if (compute === 'fp32' && !weights) {
    flags.weights = 'fp32';
    flags.compute = 'fp32';
  } else if (compute && weights) flags.compute = compute;
}

/** The weight format a checkpoint's name says (AWQ/GPTQ int4, FP8, W8A8 int8, NVFP4, GGUF quant), or null. */
export function weightsFromName(ref: string): string | null {
  const n = ref.toLowerCase();
  // Q2_K alone: Q2_K_S / Q2_K_L / Unsloth's Q2_K_XL are other mixes (engines/llama-cpp/from.ts GGUF_NEAREST).
  const gguf =
    /(q4_0|q4_k_m|q5_k_m|q6_k|q8_0|q3_k_m|q2_k(?![_a-z])|iq1_s|iq2_xxs|iq2_m|iq3_xxs|iq3_m)/.exec(
      n,
    );
  if (gguf) return gguf[1]!;
  if (/nvfp4/.test(n)) return 'nvfp4';
  if (/mxfp4|gpt-oss/.test(n)) return 'mxfp4';
  if (/fp8/.test(n)) return 'fp8';
  // 8-bit markers first: GPTQ-Int8 and W8A16 checkpoints are 8-bit, not int4.
  if (/w8a8|w8a16|int8|8bit/.test(n)) return 'int8';
  if (/bnb-4bit/.test(n)) return 'nf4';
  if (/awq|gptq|int4|w4a16|4bit/.test(n)) return 'int4';
  return null;
}

/**
 * `--quantization` names of vLLM and SGLang (QuantizationMethods) → contract weights; null = read from the
 * checkpoint's own config (the name decides then). Names: vllm/model_executor/layers/quantization/__init__.py.
 */
export const SERVE_QUANT: Record<string, string | null> = {
  awq: 'int4',
  awq_marlin: 'int4',
  gptq: 'int4',
  gptq_marlin: 'int4',
  marlin: 'int4',
  bitsandbytes: 'nf4',
  fp8: 'fp8',
  fbgemm_fp8: 'fp8',
  modelopt: 'fp8',
  modelopt_fp4: 'nvfp4',
  mxfp4: 'mxfp4',
  gguf: null,
  'compressed-tensors': null,
  w8a8_int8: 'int8',
  w8a8_fp8: 'fp8',
};

/** Commands of one engine (one per replica) as one mapping: the first decides, the others add GPUs. */
export function replicaMapping(
  format: FromMapping['format'],
  perCommand: readonly ServeReading[],
  memoryKeys: readonly string[],
): FromMapping {
  const [first] = perCommand;
  const warnings = [...first!.warnings];
  const notUsed = [...new Set(perCommand.flatMap((c) => c.unknown))];
  if (notUsed.length > 0)
    warnings.push(
      `server flags not used (no effect modelled on per-GPU memory or time): ${notUsed.join(', ')}`,
    );
  const differs = perCommand
    .slice(1)
    .filter((c) => JSON.stringify(c.flags) !== JSON.stringify(first!.flags));
  if (differs.length > 0)
    warnings.push(
      `${differs.length + 1} server commands with different settings: estimated with the first one's, over the GPUs of all`,
    );
  const gpus = perCommand.reduce((a, c) => a + c.gpus, 0);
  const flags: FromFlags = { ...first!.flags };
  if (gpus > 1) flags.gpus = gpus;
  return {
    format,
    model: first!.model,
    flags,
    warnings,
    ignored: [...new Set(perCommand.flatMap((c) => c.ignored))],
    // Server flags vramplan does not model are reported, never an error (the engines take many more).
    unknown: [],
    deepspeedRef: null,
    deepspeedInline: null,
    memoryKeys,
    checkpointWeights: flags.weights === undefined,
    ...(first!.poolAdmission ? { poolAdmission: first!.poolAdmission } : {}),
    ...(first!.context ? { context: first!.context } : {}),
  };
}

/** One server command read: its contract flags, the GPUs it takes, its model, what it could not map. */
export type { ServeReading };

/** A reader's result: what it mapped, plus the flags of `noEffect` given and every flag left unread. */
export function servedReading(
  a: ArgValues,
  noEffect: readonly string[],
  r: {
    flags: FromFlags;
    gpus: number;
    ref: string | null;
    warnings: string[];
    poolAdmission?: ServeReading['poolAdmission'];
    context?: ServeReading['context'];
  },
): ServeReading {
  return {
    ...(r.poolAdmission ? { poolAdmission: r.poolAdmission } : {}),
    ...(r.context ? { context: r.context } : {}),
    flags: r.flags,
    gpus: r.gpus,
    model: servedModel(r.ref),
    warnings: r.warnings,
    ignored: a.noEffect(noEffect),
    unknown: [...a.parsed.unknown, ...a.unused()],
  };
}

/**
 * The model a server command loads, as `--model` takes it: the base of a published checkpoint vramplan knows
 * (catalogs/checkpoints.json, launch/checkpoints.ts), a GGUF repository without its `:QUANT`, null for a local .gguf
 * file or an unset variable.
 */
export function servedModel(ref: string | null): string | null {
  if (ref === null || ref.includes('$') || /\.gguf$/i.test(ref)) return null;
  const repo = ref.replace(/:[A-Za-z0-9_]+$/, '');
  return publishedBase(repo)?.hfId ?? repo;
}

/**
 * Prefix caching on or off (`on` undefined: the engine's default, on) → `--prefix-cache`: the share of each
 * prompt found in the cache is the workload's, not a server flag, so it comes from the `# vramplan:
 * --prefix-cache F` line a launch folder's serve.sh carries, or is reported as not known.
 */
export function prefixCacheFlag(
  on: boolean | undefined,
  planFlags: Readonly<Record<string, string>>,
  flags: FromFlags,
  warnings: string[],
  written: string,
): void {
  const share = planFlags['prefix-cache'];
  if (on === false) return;
  if (share !== undefined) flags['prefix-cache'] = Number(share);
  else if (on === true)
    warnings.push(
      `${written}: the share of each prompt found in the cache depends on the requests; estimated with none (give --prefix-cache F)`,
    );
}

/** The config.json keys an override may set that bound the context (transformers rope_scaling; the positions). */
const CONTEXT_KEYS = ['rope_scaling', 'max_position_embeddings'] as const;

/**
 * A serve line's context override: the rope_scaling and max_position_embeddings of the JSON it merges into the
 * model's config (`flag`), and `envVar`=1 (or true) among its environment words, which lets the engine run past the
 * length it derives. Undefined when the line sets neither.
 */
export function contextOverrideOf(
  json: string | undefined,
  flag: string,
  env: Readonly<Record<string, string>>,
  envVar: string,
  warnings: string[],
): FromMapping['context'] {
  const out: NonNullable<FromMapping['context']> = {};
  if (json !== undefined) {
    let doc: unknown = null;
    try {
      doc = JSON.parse(json);
    } catch {
      warnings.push(`${flag}: not JSON; estimated with the model's own config`);
    }
    if (doc !== null && typeof doc === 'object' && !Array.isArray(doc)) {
      const d = doc as Record<string, unknown>;
      const picked = Object.fromEntries(CONTEXT_KEYS.filter((k) => k in d).map((k) => [k, d[k]]));
      if (Object.keys(picked).length > 0) out.config = picked;
      const rest = Object.keys(d).filter((k) => !(CONTEXT_KEYS as readonly string[]).includes(k));
      if (rest.length > 0)
        warnings.push(`${flag}: ${rest.join(', ')} not modelled (the config is read without them)`);
    }
  }
  const v = env[envVar];
  if (v !== undefined && /^(1|true)$/i.test(v)) out.allowLonger = `${envVar}=${v}`;
  return out.config || out.allowLonger ? out : undefined;
}
