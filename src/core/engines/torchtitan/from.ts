/**
 * `--from torchtitan_vramplan.py`: the torchtitan recipe `launch` writes (./launch.ts) → contract flags.
 * torchtitan 0.3.0 configs are Python functions; this reads the flat `config.<path> = <value>` assignments
 * and module constants of such a function, not arbitrary Python. Pure: the text comes in, flags go out.
 */
import type { ConfigReader } from '../def.js';
import {
  FieldReader,
  FromError,
  isRecord,
  type FromFlags,
  type FromMapping,
} from '../../from/common.js';

/** Top-level key of the parsed recipe: its presence is what detectFormat looks for. */
export const TORCHTITAN_DOC_KEY = 'torchtitan_recipe';

/** A Python literal as JS (str, int/float, True/False/None), or the source text when it is an expression. */
function pyValue(src: string): unknown {
  const s = src.trim();
  if (s === 'True') return true;
  if (s === 'False') return false;
  if (s === 'None') return null;
  if (/^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(s)) return Number(s);
  if (/^"(?:[^"\\]|\\.)*"$/.test(s)) {
    try {
      return JSON.parse(s) as string;
    } catch {
      return s;
    }
  }
  return { expr: s };
}

/**
 * The recipe as a document: { torchtitan_recipe: { constants, config: nested assignments } }.
 * Lines other than `NAME = value` at module level and `config.a.b = value` in the function are skipped.
 */
export function parseTorchtitanRecipe(text: string): Record<string, unknown> {
  const constants: Record<string, unknown> = {};
  const config: Record<string, unknown> = {};
  let base: string | null = null;
  for (const line of text.split(/\r?\n/)) {
    const c = /^([A-Z][A-Z0-9_]*)\s*=\s*(.+)$/.exec(line);
    if (c) constants[c[1]!] = pyValue(c[2]!);
    const b = /^\s+config\s*=\s*([A-Za-z_][A-Za-z0-9_]*)\(\)\s*$/.exec(line);
    if (b) base = b[1]!;
    const a = /^\s+config\.([A-Za-z_][A-Za-z0-9_.]*)\s*=\s*(.+)$/.exec(line);
    if (!a) continue;
    const path = a[1]!.split('.');
    let at = config;
    for (const p of path.slice(0, -1)) {
      if (!isRecord(at[p])) at[p] = {};
      at = at[p] as Record<string, unknown>;
    }
    at[path[path.length - 1]!] = pyValue(a[2]!);
  }
  return { [TORCHTITAN_DOC_KEY]: { constants, base, config } };
}

const exprOf = (v: unknown): string | undefined =>
  isRecord(v) && typeof v.expr === 'string' ? v.expr : undefined;

const section = (doc: Record<string, unknown>, key: string): FieldReader =>
  new FieldReader(isRecord(doc[key]) ? doc[key] : {}, `${key}.`);

/** Keys of the recipe that change per-GPU memory (for did-you-mean). */
export const TORCHTITAN_MEMORY_KEYS = [
  'training.local_batch_size',
  'training.global_batch_size',
  'training.seq_len',
  'training.enable_cpu_offload',
  'training.mixed_precision_param',
  'model_spec',
  'parallelism.data_parallel_shard_degree',
  'parallelism.tensor_parallel_degree',
  'parallelism.pipeline_parallel_degree',
  'parallelism.context_parallel_degree',
  'parallelism.expert_parallel_degree',
  'activation_checkpoint',
  'compile.enable',
  'compile.components',
  'loss',
] as const;

/** training.dtype, mixed_precision_param and an FP8 converter in the model spec: weights and compute. */
function readDtypes(
  config: Record<string, unknown>,
  training: ReturnType<typeof section>,
  flags: FromFlags,
): void {
  const dtype = training.str('dtype') ?? 'float32'; // TT configs.py L82 default
  if (dtype !== 'float32' && dtype !== 'bfloat16')
    throw new FromError('training.dtype', dtype, 'float32 or bfloat16');
  flags.weights = dtype === 'bfloat16' ? 'bf16' : 'fp32';
  const mp = training.str('mixed_precision_param') ?? 'bfloat16'; // TT configs.py L89 default
  if (mp !== 'float32' && mp !== 'bfloat16')
    throw new FromError('training.mixed_precision_param', mp, 'bfloat16 or float32');
  flags.compute = mp === 'bfloat16' ? 'bf16' : 'fp32';
  // FP8 training: a converter in model_registry(converters=[...]) (launch.ts float8Converter).
  const spec = exprOf(config.model_spec) ?? '';
  if (/\bMXFP8LinearConverter\b/.test(spec)) flags.compute = 'mxfp8';
  else if (/\bFloat8LinearConverter\b/.test(spec)) flags.compute = 'fp8';
}

/** A Python list of string literals (`["model", "loss"]`) as its strings, or undefined when it is not one. */
function pyStrList(src: string): string[] | undefined {
  const m = /^\[(.*)\]$/s.exec(src.trim());
  if (!m) return undefined;
  const items = m[1]!
    .split(',')
    .map((x) => x.trim())
    .filter((x) => x !== '');
  const strs = items.map((x) => /^(["'])([^"'\\]*)\1$/.exec(x)?.[2]);
  return strs.every((x) => x !== undefined) ? (strs as string[]) : undefined;
}

/** `config.compile = CompileConfig(enable=..., components=[...])` as { enable, components } (the keywords given). */
function compileCall(expr: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const call = /^CompileConfig\((.*)\)$/s.exec(expr.trim());
  if (!call) return out;
  const enable = /\benable\s*=\s*(True|False)\b/.exec(call[1]!);
  if (enable) out.enable = enable[1] === 'True';
  const comps = /\bcomponents\s*=\s*(\[[^\]]*\])/.exec(call[1]!);
  if (comps) out.components = { expr: comps[1]! };
  return out;
}

/**
 * compile.enable and compile.components → --compile and the build's loss compile. torchtitan compiles the model
 * when "model" is listed (models/*\/parallelize.py `compile_config.enable and "model" in compile_config.components`)
 * and the loss when "loss" is (components/loss.py BaseLoss._maybe_compile), default both (config/configs.py
 * CompileConfig.components; pytorch/torchtitan@b5bcd76c6, as at 8a2686c4a). Loss alone: the model runs eager
 * (no --compile) and the loss compiled (EstimateContext.lossCompiledAlone); model alone: --compile with the loss
 * eager (EstimateContext.eagerLoss).
 */
function readCompile(
  raw: unknown,
  flags: FromFlags,
  warnings: string[],
): FromMapping['build'] | undefined {
  const expr = exprOf(raw);
  const c = new FieldReader(expr ? compileCall(expr) : isRecord(raw) ? raw : {}, 'compile.');
  if (expr && !expr.startsWith('CompileConfig('))
    warnings.push(`compile ${expr}: not mapped (estimated uncompiled)`);
  if (!c.bool('enable')) return undefined;
  const listed = c.raw('components');
  const src = exprOf(listed);
  const components = listed === undefined ? ['model', 'loss'] : src ? pyStrList(src) : undefined;
  if (!components) {
    warnings.push(
      `compile.components ${src ?? String(listed)}: not read (estimated as model and loss)`,
    );
    flags.compile = true;
    return undefined;
  }
  for (const x of components.filter((k) => k !== 'model' && k !== 'loss'))
    warnings.push(
      `compile.components "${x}": not a component the estimate models (model, loss): ignored`,
    );
  const model = components.includes('model');
  const loss = components.includes('loss');
  if (model) flags.compile = true;
  if (model && !loss) return { eagerLoss: true };
  if (loss && !model) return { lossCompiledAlone: true };
  return undefined;
}

/** The contract flags of a parsed recipe (see parseTorchtitanRecipe). */
export function mapTorchtitan(doc: Record<string, unknown>): FromMapping {
  const root = isRecord(doc[TORCHTITAN_DOC_KEY]) ? doc[TORCHTITAN_DOC_KEY] : {};
  const config = isRecord(root.config) ? root.config : {};
  const constants = isRecord(root.constants) ? root.constants : {};
  const warnings: string[] = [];
  // torchtitan trains full fine-tunes with fp32 FSDP2-sharded parameters (training.dtype float32).
  const flags: FromFlags = { framework: 'torchtitan', method: 'full', zero: 3, optimizer: 'adamw' };
  const training = section(config, 'training');
  const par = section(config, 'parallelism');
  readDtypes(config, training, flags);
  // Every attention backend of torchtitan 0.3.0's language models (flex, flex_flash, varlen; no sdpa, rule
  // torchtitan-no-sdpa-attention) keeps no score matrix: the plan's flash, as the profile's attention default sets.
  flags.attention = 'flash';
  // TrainingConfig of the torchtitan 0.3.0 wheel (config/configs.py L36-L53): local_batch_size, global_batch_size, seq_len.
  const seq = training.int('seq_len') ?? 2048; // 0.3.0 configs.py L52 default
  flags.seq = seq;
  const local = training.int('local_batch_size') ?? 8; // 0.3.0 configs.py L37 default
  const tp = par.int('tensor_parallel_degree') ?? 1;
  const pp = par.int('pipeline_parallel_degree') ?? 1;
  const cp = par.int('context_parallel_degree') ?? 1;
  const rep = par.int('data_parallel_replicate_degree') ?? 1;
  const shardRaw = par.raw('data_parallel_shard_degree');
  const shard = shardRaw === -1 ? undefined : par.int('data_parallel_shard_degree');
  if (shard === undefined)
    warnings.push('data_parallel_shard_degree -1 (all remaining GPUs): give --gpus');
  const dp = (shard ?? 1) * rep;
  if (shard !== undefined) flags.gpus = dp * tp * pp * cp;
  if (tp > 1) {
    flags.tp = tp;
    // TP always computes the loss vocabulary-parallel (rule torchtitan-tp-loss-parallel).
    flags['loss-parallel'] = true;
    flags['sequence-parallel'] = par.bool('enable_sequence_parallel') ?? true; // TT configs.py L164
  }
  if (pp > 1) flags.pp = pp;
  if (cp > 1) flags.cp = cp;
  // ParallelismConfig.expert_parallel_degree, default 1 (TT configs.py L282).
  const ep = par.int('expert_parallel_degree') ?? 1;
  if (ep > 1) flags.ep = ep;
  // Under PP local_batch_size runs as pipeline micro-batches of pipeline_parallel_microbatch_size (0.3.0 configs.py L226).
  const mb = pp > 1 ? (par.int('pipeline_parallel_microbatch_size') ?? 1) : local;
  if (local % mb !== 0)
    throw new FromError(
      'training.local_batch_size',
      local,
      `a multiple of pipeline_parallel_microbatch_size (${mb})`,
    );
  flags.batch = mb;
  const global = training.int('global_batch_size', -1) ?? -1;
  const perRank = global === -1 ? 1 : global / (local * dp);
  if (!Number.isInteger(perRank))
    throw new FromError('training.global_batch_size', global, `a multiple of ${local * dp}`);
  flags['grad-accum'] = perRank * (local / mb);
  if (training.bool('enable_cpu_offload')) flags.offload = 'optimizer+params';
  const ac = config.activation_checkpoint;
  const acExpr = exprOf(ac);
  if (ac === null) flags.checkpointing = 'none';
  else if (acExpr?.startsWith('FullAC')) flags.checkpointing = 'full';
  else if (acExpr?.startsWith('SelectiveAC')) flags.checkpointing = 'selective';
  else if (acExpr) warnings.push(`activation_checkpoint ${acExpr}: not mapped (estimated without)`);
  const build = readCompile(config.compile, flags, warnings);
  // Unwrapped loss (config.loss = config.loss.loss_fn) materialises the logits; the recipes' default chunks them.
  flags['chunked-loss'] = exprOf(config.loss) !== 'config.loss.loss_fn';
  const model = typeof constants.HF_MODEL === 'string' ? constants.HF_MODEL : null;
  if (!model) warnings.push('no HF_MODEL in the recipe: give --model');
  return {
    format: 'torchtitan',
    model,
    flags,
    warnings,
    ignored: [],
    unknown: [],
    deepspeedRef: null,
    deepspeedInline: null,
    memoryKeys: TORCHTITAN_MEMORY_KEYS,
    ...(build ? { build } : {}),
  };
}

/** torchtitan recipes as vramplan writes them (the parsed Python recipe under TORCHTITAN_DOC_KEY). */
export const TORCHTITAN_READER: ConfigReader = {
  format: 'torchtitan',
  name: 'torchtitan recipe (Python, as vramplan writes it)',
  order: 10,
  detect: (doc) => isRecord(doc[TORCHTITAN_DOC_KEY]),
  map: mapTorchtitan,
  // The recipe is Python (./launch.ts writes torchtitan_vramplan.py), not YAML or JSON.
  source: { extension: '.py', parse: parseTorchtitanRecipe },
};
