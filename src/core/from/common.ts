/**
 * Shared pieces of the `--from` readers: the result shape, the typed field reader that records which keys
 * were used, and the name tables several tools share (Trainer optimizer names, PEFT module names).
 * Pure: the parsed document comes in, contract flags and warnings go out (src/io/from reads the files).
 */
import type { Engine } from '../../schema/engine.js';
import type { UpstreamKeyList } from '../../schema/upstream-keys.js';

/** A config format `--from` reads: an engine's reader's (engines/<engine>/index.ts `readers`), or a SkyPilot task. */
export type FromFormat = string;

/**
 * The top-level keys an upstream tool accepts, by list (catalogs/upstream-keys; io/load-upstream-keys.ts reads
 * them): a reader tells a key vramplan does not use from an unknown one (a typo) with them.
 */
export type UpstreamKeys = (list: UpstreamKeyList) => ReadonlySet<string>;

/** An engine whose server command lines `--from` reads (engines/<engine>/index.ts `serve`). */
export type ServeEngine = Engine;

/** One server command: its engine, its words after the program (and subcommand), its environment prefix. */
export interface ServeCommand {
  engine: ServeEngine;
  /** The words after `vllm serve`, `-m sglang.launch_server`, `llama-server` (model positional included). */
  args: string[];
  /** `VAR=value` words before the program (CUDA_VISIBLE_DEVICES...). */
  env: Record<string, string>;
}

/** Contract flag (kebab-case, as `vramplan estimate` takes it) → value. */
export type FromFlags = Record<string, string | number | boolean>;

/**
 * What a serve line sets about the model's context beyond --max-model-len / --context-length: config.json keys it
 * merges before the engine derives its length (vLLM --hf-overrides, SGLang --json-model-override-args: rope_scaling,
 * max_position_embeddings), and the environment switch that lets the engine run past that length (from/index.ts
 * archOfFrom).
 */
export interface ContextOverride {
  /** The merged keys that bound the context: rope_scaling and max_position_embeddings, as given. */
  config?: Record<string, unknown>;
  /** `VAR=1` on the line that lets the engine run a longer context than it derives, as written. */
  allowLonger?: string;
}

export interface FromMapping {
  format: FromFormat;
  /** The model the config names (Hub id or path), or null when it names none. */
  model: string | null;
  flags: FromFlags;
  /** Memory-relevant settings that were not mapped or were approximated, one sentence each. */
  warnings: string[];
  /** Keys the tool knows that do not change per-GPU memory (learning rate, logging, data...). */
  ignored: string[];
  /** Keys the tool's schema does not list (reported; a near-miss of a memory key is an error upstream). */
  unknown: string[];
  /** A DeepSpeed config the file points to (path as written), for the reader to load and merge. */
  deepspeedRef: string | null;
  /** An inline DeepSpeed config (TrainingArguments accept a dict). */
  deepspeedInline: Record<string, unknown> | null;
  /** The keys that this format maps (for did-you-mean on unknown keys). */
  memoryKeys: readonly string[];
  /** The tool rejects keys its schema lacks (or, for axolotl, its schema is complete): an unknown key is an error. */
  closedSchema?: boolean;
  /** ZeRO-equivalent stage the tool uses by itself when run on more than one GPU (torchtune FSDP). */
  multiGpuZero?: 0 | 2 | 3 | null;
  /**
   * A server that loads the checkpoint in its own format when the command names none (vLLM and SGLang read
   * config.json's quantization_config): the weights then follow the model (from/index.ts checkpointWeightsInto).
   */
  checkpointWeights?: boolean;
  /** A serve line's running-request cap, which the pool's admission bounds (from/pool-batch.ts). */
  poolAdmission?: PoolAdmission;
  /** The context the serve line gives the model beyond its config (from/index.ts archOfFrom). */
  context?: ContextOverride;
  /** How the tool's loader and trainer keep a k-bit model's parameters and run its loss (memory/types.ts EstimateContext). */
  build?: {
    eagerLoss?: boolean;
    lossCompiledAlone?: boolean;
    kbitNormsCastBack?: boolean;
    kbitFp32Adapters?: boolean;
    linearizedExperts?: boolean;
    quantizedExperts?: boolean;
    quantizerLoadsWhole?: boolean;
  };
}

/**
 * A 4-bit config sharded at FSDP FULL_SHARD / ZeRO-3 (flags.zero 3) whose tool loads through transformers' own
 * from_pretrained: every rank loads the whole model onto its GPU first (EstimateContext.quantizerLoadsWhole), not
 * through an engine's layer-by-layer loader. A sharding config read apart (accelerate.yaml) is not seen here.
 */
export const transformersLoadOf = (flags: FromFlags): Pick<FromMapping, 'build'> =>
  (flags.weights === 'nf4' || flags.weights === 'fp4') && flags.zero === 3
    ? { build: { quantizerLoadsWhole: true } }
    : {};

/** A DeepSpeed JSON's mapping (engines/hf/from/deepspeed.ts), merged into the config that names it (withDeepSpeed). */
export interface DeepSpeedMapping {
  flags: FromFlags;
  warnings: string[];
  ignored: string[];
  unknown: string[];
  /** bf16/fp16 "auto": the precision comes from the trainer's own flag. */
  precisionAuto: boolean;
}

/**
 * A config's LoRA dropout into `--lora-dropout`, unless it is `counted`: the value the engine's memory profile counts
 * without the flag (0 for PEFT's and most builders' default), so a config read back from its own launch stays the
 * plan it came from.
 */
export function loraDropoutInto(flags: FromFlags, dropout: number | undefined, counted = 0): void {
  if (dropout !== undefined && dropout !== counted) flags['lora-dropout'] = dropout;
}

/** A field of the config with a value outside what vramplan (or the tool) accepts. */
export class FromError extends Error {
  constructor(
    readonly field: string,
    readonly value: unknown,
    readonly allowed: string,
  ) {
    super(`${field}: got ${JSON.stringify(value)}; expected ${allowed}`);
    this.name = 'FromError';
  }
}

/** The document has any of `keys` at its top level. */
export const hasAny = (doc: Record<string, unknown>, keys: readonly string[]): boolean =>
  keys.some((k) => k in doc);

export const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Reads typed fields from one mapping level and remembers which keys it looked at. */
export class FieldReader {
  readonly used = new Set<string>();
  constructor(
    readonly doc: Record<string, unknown>,
    /** Prefix for field names in messages (`fsdp_config.`). */
    readonly prefix = '',
  ) {}

  has(key: string): boolean {
    const v = this.doc[key];
    return v !== undefined && v !== null && v !== '';
  }

  raw(key: string): unknown {
    this.used.add(key);
    const v = this.doc[key];
    return v === null || v === '' ? undefined : v;
  }

  bool(key: string): boolean | undefined {
    const v = this.raw(key);
    if (v === undefined) return undefined;
    if (typeof v === 'boolean') return v;
    if (typeof v === 'string' && /^(true|false)$/i.test(v)) return v.toLowerCase() === 'true';
    throw new FromError(this.prefix + key, v, 'true or false');
  }

  /** bf16: auto (axolotl, DeepSpeed "auto") reads as true: it means "on where the GPU supports it". */
  boolOrAuto(key: string): boolean | undefined {
    const v = this.raw(key);
    if (typeof v === 'string' && v.toLowerCase() === 'auto') return true;
    return v === undefined ? undefined : this.bool(key);
  }

  int(key: string, min = 1): number | undefined {
    const v = this.raw(key);
    if (v === undefined) return undefined;
    const n = typeof v === 'string' && /^\s*\d+\s*$/.test(v) ? Number(v) : v;
    if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < min)
      throw new FromError(this.prefix + key, v, `an integer >= ${min}`);
    return n;
  }

  /** A probability 0 <= p < 1 (a dropout), number or numeric string. */
  fraction(key: string): number | undefined {
    const v = this.raw(key);
    if (v === undefined) return undefined;
    const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
    if (typeof n !== 'number' || !Number.isFinite(n) || n < 0 || n >= 1)
      throw new FromError(this.prefix + key, v, 'a number from 0 to below 1');
    return n;
  }

  /** DeepSpeed/Accelerate allow "auto" for sizes the trainer fills in: undefined then. */
  intOrAuto(key: string, min = 1): number | undefined {
    const v = this.raw(key);
    if (typeof v === 'string' && v.toLowerCase() === 'auto') return undefined;
    return this.int(key, min);
  }

  str(key: string): string | undefined {
    const v = this.raw(key);
    if (v === undefined) return undefined;
    if (typeof v === 'number' || typeof v === 'boolean') return String(v);
    if (typeof v !== 'string') throw new FromError(this.prefix + key, v, 'a string');
    return v;
  }

  record(key: string): Record<string, unknown> | undefined {
    const v = this.raw(key);
    if (v === undefined) return undefined;
    if (!isRecord(v)) throw new FromError(this.prefix + key, v, 'a mapping of keys to values');
    return v;
  }

  /** A list, or a comma/space-separated string (`lora_target: q_proj,v_proj`, `fsdp: "full_shard auto_wrap"`). */
  list(key: string): string[] | undefined {
    const v = this.raw(key);
    if (v === undefined) return undefined;
    if (typeof v === 'string')
      return v
        .split(/[,\s]+/)
        .map((s) => s.trim())
        .filter((s) => s !== '');
    if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v;
    throw new FromError(this.prefix + key, v, 'a list of names or a comma-separated string');
  }

  /** Keys present (non-null) that were never read. */
  unused(): string[] {
    return Object.keys(this.doc).filter(
      (k) => !this.used.has(k) && this.doc[k] !== null && this.doc[k] !== undefined,
    );
  }
}

/**
 * Trainer `optim` names (also axolotl `optimizer`, LLaMA-Factory `optim`) → contract optimizers.
 * Names: transformers OptimizerNames, https://github.com/huggingface/transformers/blob/main/src/transformers/training_args.py
 */
export const HF_OPTIM: Record<string, string> = {
  adamw_torch: 'adamw',
  adamw_torch_fused: 'adamw',
  adamw_hf: 'adamw',
  adamw_apex_fused: 'adamw',
  adamw_torch_xla: 'adamw',
  adamw_torch_npu_fused: 'adamw',
  adamw_anyprecision: 'adamw',
  optimi_adamw: 'adamw',
  adamw_bnb_8bit: 'adamw-8bit',
  adamw_8bit: 'adamw-8bit',
  paged_adamw_32bit: 'paged-adamw',
  paged_adamw_8bit: 'paged-adamw-8bit',
  adafactor: 'adafactor',
  sgd: 'sgd',
  lion_32bit: 'lion',
  paged_lion_32bit: 'lion',
};

/** Optimizers the contract has no entry for, with the stand-in used and why it is near. */
export const HF_OPTIM_NEAR: Record<string, [string, string]> = {
  lion_8bit: ['lion', '8-bit Lion states (1 byte/param) estimated as 32-bit Lion (upper bound)'],
  paged_lion_8bit: [
    'lion',
    '8-bit paged Lion states (1 byte/param) estimated as 32-bit Lion (upper bound)',
  ],
  adamw_torch_8bit: ['adamw-8bit', 'torchao 8-bit AdamW estimated as bitsandbytes 8-bit AdamW'],
  ao_adamw_8bit: ['adamw-8bit', 'torchao 8-bit AdamW estimated as bitsandbytes 8-bit AdamW'],
  adamw_torch_4bit: ['adamw-8bit', 'torchao 4-bit AdamW estimated as 8-bit AdamW (upper bound)'],
  ao_adamw_4bit: ['adamw-8bit', 'torchao 4-bit AdamW estimated as 8-bit AdamW (upper bound)'],
  rmsprop: ['sgd-momentum', 'RMSprop (one fp32 state) estimated as SGD with momentum'],
  adagrad: ['sgd-momentum', 'Adagrad (one fp32 state) estimated as SGD with momentum'],
};

/** The contract optimizer for a Trainer-style name; unknown names are estimated as AdamW with a warning. */
export function hfOptimizer(name: string, field: string, warnings: string[]): string {
  const n = name.toLowerCase();
  const exact = HF_OPTIM[n];
  if (exact) return exact;
  const near = HF_OPTIM_NEAR[n];
  if (near) {
    warnings.push(`${field}: ${name}: ${near[1]}`);
    return near[0];
  }
  warnings.push(
    `${field}: '${name}' is not modelled; estimated as AdamW (2 fp32 states per trainable parameter)`,
  );
  return 'adamw';
}

/** PEFT module names (Llama-style and a few other families) → contract LoRA targets. */
export const MODULE_TARGETS: Record<string, string> = {
  q_proj: 'q',
  k_proj: 'k',
  v_proj: 'v',
  o_proj: 'o',
  // torchtune names its attention output projection output_proj.
  output_proj: 'o',
  gate_proj: 'gate',
  up_proj: 'up',
  down_proj: 'down',
  // GPT-NeoX/Falcon fused qkv and the MLP names of other families.
  query_key_value: 'q',
  c_attn: 'q',
  w1: 'gate',
  w3: 'up',
  w2: 'down',
  fc1: 'up',
  fc2: 'down',
  embed_tokens: 'embed',
  wte: 'embed',
  lm_head: 'lm_head',
};

/**
 * PEFT target_parameters of fused 3-D expert weights (transformers 5.x) → contract targets: gate_up_proj holds
 * gate and up, down_proj down (launch/modules.ts EXPERT_GATE_UP / EXPERT_DOWN).
 */
const PARAMETER_TARGETS: Record<string, string[]> = {
  gate_up_proj: ['gate', 'up'],
  down_proj: ['down'],
};

/** target_parameters names → contract targets; unmapped names are warned about. */
export function parameterTargetsOf(
  names: readonly string[],
  field: string,
  warnings: string[],
): string[] {
  const out: string[] = [];
  const unmapped: string[] = [];
  for (const name of names) {
    const t = PARAMETER_TARGETS[name.split('.').at(-1)!.toLowerCase()];
    if (t) for (const x of t) if (!out.includes(x)) out.push(x);
    if (!t) unmapped.push(name);
  }
  if (unmapped.length > 0)
    warnings.push(
      `${field}: ${unmapped.join(', ')} not mapped to a LoRA target (known: ${Object.keys(PARAMETER_TARGETS).join(', ')})`,
    );
  return out;
}

/** Module names → contract targets; unmapped names are warned about. */
export function targetsOf(names: readonly string[], field: string, warnings: string[]): string[] {
  const out: string[] = [];
  const unmapped: string[] = [];
  for (const name of names) {
    const leaf = name.split('.').at(-1)!.toLowerCase();
    const found = MODULE_TARGETS[leaf] ? [MODULE_TARGETS[leaf]] : regexTargets(name);
    for (const t of found) if (!out.includes(t)) out.push(t);
    if (found.length === 0) unmapped.push(name);
  }
  if (unmapped.length > 0)
    warnings.push(
      `${field}: ${unmapped.join(', ')} not mapped to a LoRA target (known: ${Object.keys(MODULE_TARGETS).join(', ')})`,
    );
  return out;
}

/** Where a decoder layer's linears sit in transformers' module trees (text model, or a VLM's language model). */
const LAYER_PATHS = [
  'model.layers.0',
  'model.language_model.layers.0',
  'language_model.model.layers.0',
];
const BLOCKS = ['self_attn', 'mlp', 'attn', 'self_attention', 'feed_forward'];

/**
 * A target given as one regular expression: PEFT matches a string target_modules with re.fullmatch against each
 * module's full name (huggingface/peft@v0.17.0 src/peft/tuners/tuners_utils.py check_target_module_exists). The
 * targets whose module, at a decoder layer's usual paths, it matches; none for a plain name or a pattern
 * JavaScript does not parse.
 */
function regexTargets(pattern: string): string[] {
  if (!/[()[\]|*+?\\]/.test(pattern)) return [];
  let re: RegExp;
  try {
    re = new RegExp(`^(?:${pattern})$`);
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const [leaf, t] of Object.entries(MODULE_TARGETS))
    if (
      LAYER_PATHS.some((p) => BLOCKS.some((b) => re.test(`${p}.${b}.${leaf}`))) &&
      !out.includes(t)
    )
      out.push(t);
  return out;
}

/** `lora_modules_to_save` / `additional_target`: the embedding and head trained fully (--modules-to-save). */
export function modulesToSave(
  names: readonly string[],
  field: string,
  warnings: string[],
): string[] {
  return targetsOf(names, field, warnings).filter((x) => x === 'embed' || x === 'lm_head');
}

/** What an engine's reader makes of one server command. */
/**
 * A paged-pool server's command line: `--max-num-seqs` / `--max-running-requests` cap the running requests (`cap`,
 * per replica; undefined: not given), which the scheduler admits while the pool has room, the rest waiting.
 * `capFlag`: the flag as the engine names it; `readNote`: the reader's line for the cap it took without a GPU.
 */
export interface PoolAdmission {
  cap: number | undefined;
  capFlag: string;
  readNote?: string;
}

export interface ServeReading {
  flags: FromFlags;
  poolAdmission?: PoolAdmission;
  context?: ContextOverride;
  gpus: number;
  model: string | null;
  warnings: string[];
  /** Flags given that change neither memory nor time (port, host, names). */
  ignored: string[];
  unknown: string[];
}
