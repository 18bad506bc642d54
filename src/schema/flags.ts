/**
 * Contract flags (kebab-case, as typed on the command line or stored in calibration cases) to
 * EstimateOptions, with one-line errors that name the flag, the value and what is allowed.
 */
import { OBJECTIVE_PROFILES, rollsOut } from './objectives.js';
import {
  ATTENTION,
  CHECKPOINTING,
  COMPUTE_DTYPES,
  frameworkNames,
  isFramework,
  KV_CACHE_DTYPES,
  GGUF_DTYPES,
  isGguf,
  isFloat8Compute,
  LORA_TARGETS,
  SAVED_MODULES,
  type SavedModule,
  METHODS,
  OBJECTIVES,
  OFFLOAD,
  REFERENCES,
  ROLLOUTS,
  OPTIMIZERS,
  SPARSE_FORMATS,
  SPECULATIVE_METHODS,
  type SpeculativeMethod,
  STATE_DTYPES,
  WEIGHT_DTYPES,
  defaultOptions,
  MAX_GPUS,
  trainingGpus,
  type EstimateOptions,
  type Framework,
  type LoraTarget,
  type Method,
} from './estimate.js';
import {
  engineFramework,
  engineNames,
  enginesWith,
  frameworksWith,
  frameworkWhy,
  isEngine,
  type Engine,
} from './engine.js';
import { FlagError } from './flag-error.js';
import { fsdpVersionCheck } from './fsdp-version.js';
import { expertParallelCheck } from './expert-parallel-flags.js';

export { FlagError } from './flag-error.js';

export type RawFlags = Readonly<Record<string, unknown>>;

const oneOf = (xs: readonly string[]) => `one of ${xs.join(', ')}`;

function pick<T extends string>(
  flags: RawFlags,
  flag: string,
  allowed: readonly T[],
  fallback: T,
): T {
  const v = flags[flag];
  if (v === undefined) return fallback;
  const s = typeof v === 'number' ? String(v) : v;
  if (typeof s !== 'string' || !(allowed as readonly string[]).includes(s))
    throw new FlagError(flag, v, oneOf(allowed));
  return s as T;
}

function bool(flags: RawFlags, flag: string): boolean {
  const v = flags[flag];
  if (v === undefined || v === false || v === 'false') return false;
  if (v === true || v === 'true') return true;
  throw new FlagError(flag, v, 'true or false (a switch takes no value)');
}

function int(flags: RawFlags, flag: string, fallback: number, min: number, max: number): number {
  const v = flags[flag];
  if (v === undefined) return fallback;
  const n =
    typeof v === 'number' ? v : typeof v === 'string' && /^\s*-?\d+\s*$/.test(v) ? Number(v) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max)
    throw new FlagError(flag, v, `an integer from ${min} to ${max}`);
  return n;
}

function fraction(flags: RawFlags, flag: string): number {
  const v = flags[flag];
  if (v === undefined) return 0;
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  if (!Number.isFinite(n) || n < 0 || n >= 1)
    throw new FlagError(flag, v, 'a number from 0 to below 1');
  return n;
}

/** --lora-dropout: 0 <= p < 1; read on LoRA and QLoRA only (a config's lora_dropout beside --method full). */
function loraDropout(flags: RawFlags, method: Method): number | undefined {
  const p = fraction(flags, 'lora-dropout');
  return method === 'lora' || method === 'qlora' ? p : undefined;
}

function addOnce<T>(list: T[], x: T): void {
  if (!list.includes(x)) list.push(x);
}

/** --modules-to-save: modules LoRA trains fully beside its adapters (PEFT modules_to_save). */
function savedModules(flags: RawFlags, o: EstimateOptions): SavedModule[] {
  const v = flags['modules-to-save'];
  const allowed = `a comma list of ${SAVED_MODULES.join(',')} with --method lora or qlora`;
  if (typeof v !== 'string' || (o.method !== 'lora' && o.method !== 'qlora'))
    throw new FlagError('modules-to-save', v, allowed);
  const out: SavedModule[] = [];
  for (const p of v.split(',').map((x) => x.trim().toLowerCase())) {
    if (p === '') continue;
    if (!(SAVED_MODULES as readonly string[]).includes(p))
      throw new FlagError('modules-to-save', p, allowed);
    addOnce(out, p as SavedModule);
  }
  if (out.length === 0) throw new FlagError('modules-to-save', v, allowed);
  // Both orders name the same run: one order, so the options (and their echo) are one.
  return SAVED_MODULES.filter((m) => out.includes(m));
}

function targets(flags: RawFlags): { list: LoraTarget[]; allLinear: boolean } {
  const v = flags['lora-targets'];
  if (v === undefined) return { list: ['q', 'v'], allLinear: false };
  const allowed = `a comma list of ${LORA_TARGETS.join(',')}, or all-linear`;
  if (typeof v !== 'string') throw new FlagError('lora-targets', v, allowed);
  const parts = v
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter((s) => s !== '');
  if (parts.length === 0) throw new FlagError('lora-targets', v, allowed);
  let allLinear = false;
  const list: LoraTarget[] = [];
  for (const p of parts) {
    if (p === 'all-linear') allLinear = true;
    else if ((LORA_TARGETS as readonly string[]).includes(p)) addOnce(list, p as LoraTarget);
    else throw new FlagError('lora-targets', p, allowed);
  }
  if (allLinear)
    for (const t of ['q', 'k', 'v', 'o', 'gate', 'up', 'down'] as const) addOnce(list, t);
  return { list, allLinear };
}

const SERVING_ONLY = new Set<string>(['mxfp4', 'nvfp4', ...GGUF_DTYPES]);

/** --framework values: the stacks of the contract and every engine name (DESIGN.md "Engines"). */
export const frameworkFlagNames = (): readonly (Framework | Engine)[] => {
  const stacks = frameworkNames();
  return [...stacks, ...engineNames().filter((e) => !(stacks as readonly string[]).includes(e))];
};
const frameworkOf = (name: Framework | Engine): Framework =>
  isEngine(name) && !isFramework(name) ? engineFramework(name) : (name as Framework);

/** Contract flags to options; throws FlagError on the first bad value or combination. */
export function optionsFromFlags(flags: RawFlags): EstimateOptions {
  const method: Method = pick(flags, 'method', METHODS, 'full');
  const d = defaultOptions(method);
  const lora = targets(flags);
  const o: EstimateOptions = {
    method,
    weights: pick(flags, 'weights', WEIGHT_DTYPES, d.weights),
    compute: pick(flags, 'compute', COMPUTE_DTYPES, d.compute),
    masterWeights: bool(flags, 'master-weights'),
    doubleQuant: bool(flags, 'double-quant'),
    optimizer: pick(flags, 'optimizer', OPTIMIZERS, d.optimizer),
    optimizerStates: pick(flags, 'optimizer-states', STATE_DTYPES, d.optimizerStates),
    loraRank: int(flags, 'lora-rank', d.loraRank, 1, 65_536),
    loraTargets: lora.list,
    loraAllLinear: lora.allLinear,
    batch: int(flags, 'batch', samplingBatch(flags) ?? d.batch, 1, 1_000_000),
    seq: int(flags, 'seq', d.seq, 1, 100_000_000),
    checkpointing: pick(flags, 'checkpointing', CHECKPOINTING, d.checkpointing),
    attention: pick(flags, 'attention', ATTENTION, d.attention),
    chunkedLoss: bool(flags, 'chunked-loss'),
    liger: bool(flags, 'liger'),
    optimizerInBackward: bool(flags, 'optimizer-in-backward'),
    zero: Number(pick(flags, 'zero', ['0', '1', '2', '3'], '0')) as 0 | 1 | 2 | 3,
    offload: pick(flags, 'offload', OFFLOAD, d.offload),
    gpus: 1, // set below: without --gpus, one data-parallel rank of tp x pp GPUs
    tp: int(flags, 'tp', d.tp, 1, 4096),
    pp: int(flags, 'pp', d.pp, 1, 4096),
    cp: int(flags, 'cp', d.cp, 1, 4096),
    sequenceParallel: bool(flags, 'sequence-parallel'),
    lossParallel: bool(flags, 'loss-parallel'),
    compile: bool(flags, 'compile'),
    sparsity: fraction(flags, 'sparsity'),
    sparseFormat: pick(flags, 'sparse-format', SPARSE_FORMATS, d.sparseFormat),
    // An engine name stands for its memory profile (core/engines/defaults.ts applies its defaults).
    framework: frameworkOf(pick(flags, 'framework', frameworkFlagNames(), d.framework)),
  };
  o.gpus = int(flags, 'gpus', o.tp * o.pp * o.cp, 1, MAX_GPUS);
  if (flags['modules-to-save'] !== undefined) o.modulesToSave = savedModules(flags, o);
  if (bool(flags, 'tiled-mlp')) o.tiledMlp = true;
  if (flags['fsdp-version'] !== undefined)
    o.fsdpVersion = int(flags, 'fsdp-version', 2, 1, 2) as 1 | 2;
  const dropout = flags['lora-dropout'] === undefined ? undefined : loraDropout(flags, method);
  if (dropout !== undefined) o.loraDropout = dropout;
  objectiveInto(o, flags);
  servingFlagsInto(o, flags);
  checkCombination(o);
  return o;
}

// TRL v1.9.0 trl/trainer/grpo_config.py: num_generations=8, max_completion_length=256.
export const GRPO_GENERATIONS = 8;
export const GRPO_COMPLETION_TOKENS = 256;
/** The default micro-batch of a sampling objective (TRL's per_device_train_batch_size), or undefined. */
const samplingBatch = (flags: RawFlags): number | undefined =>
  typeof flags.objective === 'string' && (OBJECTIVES as readonly string[]).includes(flags.objective)
    ? OBJECTIVE_PROFILES[flags.objective as (typeof OBJECTIVES)[number]].sampling?.batch
    : undefined;
// TRL v1.9.0 grpo_config.py vllm_gpu_memory_utilization=0.3 (colocate share of each GPU).
export const TRL_ROLLOUT_MEMORY = 0.3;

const GRPO_ONLY = [
  'generations',
  'completion-tokens',
  'max-completion-tokens',
  'rollout',
  'rollout-memory',
  'rollout-sleep',
  'rollout-gpus',
];

/** --objective and its flags into `o` (left absent for SFT, so SFT options are unchanged). */
export function objectiveInto(o: EstimateOptions, flags: RawFlags): void {
  const objective = pick(flags, 'objective', OBJECTIVES, 'sft');
  if (objective === 'sft') {
    const stray = ['reference', ...GRPO_ONLY].find((f) => flags[f] !== undefined);
    if (stray)
      throw new FlagError(
        stray,
        flags[stray],
        'only with --objective dpo, orpo, kto, simpo, grpo, ppo, reward or prm',
      );
    return;
  }
  if (o.method === 'inference')
    throw new FlagError(
      'objective',
      objective,
      "'sft' with --method inference (a training objective)",
    );
  o.objective = objective;
  o.reference = pick(
    flags,
    'reference',
    REFERENCES,
    OBJECTIVE_PROFILES[objective].defaultReference,
  );
  const sampling = OBJECTIVE_PROFILES[objective].sampling;
  if (!sampling) {
    const stray = GRPO_ONLY.find((f) => flags[f] !== undefined);
    if (stray) throw new FlagError(stray, flags[stray], 'only with --objective grpo or ppo');
    return;
  }
  const g = sampling.generations;
  if (g.min === g.max && flags.generations !== undefined && Number(flags.generations) !== g.min)
    throw new FlagError(
      'generations',
      flags.generations,
      `${g.min} with --objective ${objective} (${g.why})`,
    );
  o.generations = int(flags, 'generations', g.default, g.min, g.max);
  o.completionTokens = int(flags, 'completion-tokens', sampling.completionTokens, 1, 100_000_000);
  if (flags['max-completion-tokens'] !== undefined) {
    if (objective !== 'grpo')
      throw new FlagError(
        'max-completion-tokens',
        flags['max-completion-tokens'],
        `only with --objective grpo (${objective} decodes --completion-tokens for every response)`,
      );
    o.maxCompletionTokens = int(flags, 'max-completion-tokens', 1, 1, 100_000_000);
    if (o.maxCompletionTokens < o.completionTokens)
      throw new FlagError(
        'max-completion-tokens',
        o.maxCompletionTokens,
        `at least --completion-tokens ${o.completionTokens} (the mean of the completions it caps)`,
      );
  }
  const seqGiven = flags.seq !== undefined && flags['prompt-tokens'] === undefined;
  const prompt = seqGiven ? o.seq - o.completionTokens : sampling.promptTokens;
  if (prompt < 1)
    throw new FlagError(
      'completion-tokens',
      o.completionTokens,
      `fewer than --seq ${o.seq} (seq = prompt + completion tokens)`,
    );
  o.promptTokens = int(flags, 'prompt-tokens', prompt, 1, 100_000_000);
  if (flags.seq !== undefined && o.seq !== o.promptTokens + o.completionTokens)
    throw new FlagError(
      'seq',
      o.seq,
      `--prompt-tokens + --completion-tokens (${o.promptTokens + o.completionTokens}) with --objective ${objective}`,
    );
  o.seq = o.promptTokens + o.completionTokens;
  // The objective's first generation engine unless told otherwise (GRPO: TRL's use_vllm=False).
  o.rollout = pick(flags, 'rollout', ROLLOUTS, sampling.rollouts[0]!);
  if (!sampling.rollouts.includes(o.rollout))
    throw new FlagError(
      'rollout',
      o.rollout,
      `${sampling.rollouts.join(' or ')} with --objective ${objective} (${sampling.rolloutsWhy})`,
    );
  if (o.rollout === 'vllm-colocate') {
    o.rolloutMemory = rolloutFraction(flags);
    // Absent unless asked for, so the options of a run without sleep mode are unchanged.
    if (bool(flags, 'rollout-sleep')) o.rolloutSleep = true;
  } else
    for (const f of ['rollout-memory', 'rollout-sleep'])
      if (flags[f] !== undefined)
        throw new FlagError(f, flags[f], 'only with --rollout vllm-colocate');
  if (o.rollout === 'vllm-server') o.rolloutGpus = int(flags, 'rollout-gpus', 1, 1, MAX_GPUS);
  else if (flags['rollout-gpus'] !== undefined)
    throw new FlagError('rollout-gpus', flags['rollout-gpus'], 'only with --rollout vllm-server');
  // TRL v1.9.0 grpo_config.py __post_init__: steps_per_generation defaults to gradient_accumulation_steps;
  // PPOTrainer generates its whole local batch (per_device_train_batch_size x gradient_accumulation_steps).
  // A config's own steps_per_generation (--from) replaces it.
  const spg = flags['steps-per-generation'] !== undefined ? 'steps-per-generation' : 'grad-accum';
  const accum =
    flags['generation-batch'] !== undefined
      ? generationSteps(o, flags)
      : int(flags, spg, 1, 1, 1_000_000);
  if (accum > 1) o.stepsPerGeneration = accum;
  // PPO's optimisation epochs over each generation batch (TRL num_ppo_epochs, torchtune ppo_epochs).
  if (flags['ppo-epochs'] !== undefined) {
    if (!OBJECTIVE_PROFILES[objective].critic)
      throw new FlagError('ppo-epochs', flags['ppo-epochs'], 'only with --objective ppo');
    o.ppoEpochs = int(flags, 'ppo-epochs', 4, 1, 1_000);
  }
  // PPO's rollout chunk (TRL local_rollout_forward_batch_size, torchtune forward_batch_size).
  if (flags['rollout-chunk'] !== undefined) {
    if (!OBJECTIVE_PROFILES[objective].critic)
      throw new FlagError('rollout-chunk', flags['rollout-chunk'], 'only with --objective ppo');
    o.rolloutChunk = int(flags, 'rollout-chunk', 64, 1, 1_000_000);
  }
}

/**
 * A config's generation_batch_size (--from): TRL v1.9.0 grpo_config.py __post_init__ sets steps_per_generation to
 * it over the global batch (per_device_train_batch_size x processes), raising unless it divides (L1082).
 */
function generationSteps(o: EstimateOptions, flags: RawFlags): number {
  const gb = int(flags, 'generation-batch', 1, 1, 100_000_000);
  const dp = Math.max(1, Math.floor(trainingGpus(o) / (o.tp * o.pp * o.cp)));
  const global = o.batch * dp;
  if (gb % global !== 0)
    throw new FlagError(
      'generation-batch',
      gb,
      `a multiple of the global batch --batch ${o.batch} x ${dp} trainer process${dp === 1 ? '' : 'es'} = ${global} (TRL raises otherwise: "generation_batch_size must be divisible by the global batch size", https://github.com/huggingface/trl/blob/v1.9.0/trl/trainer/grpo_config.py#L1082)`,
    );
  return gb / global;
}

/** --prefix-cache: the share of each prompt found in the prefix cache (0 to below 1). */
function prefixFraction(flags: RawFlags): number {
  const v = flags['prefix-cache'];
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  if (!Number.isFinite(n) || n < 0 || n >= 1)
    throw new FlagError(
      'prefix-cache',
      v,
      'a fraction from 0 to below 1 (the cached share of each prompt)',
    );
  return n;
}

function rolloutFraction(flags: RawFlags): number {
  const v = flags['rollout-memory'];
  if (v === undefined) return TRL_ROLLOUT_MEMORY;
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  if (!Number.isFinite(n) || n <= 0 || n >= 1)
    throw new FlagError(
      'rollout-memory',
      v,
      'a fraction above 0 and below 1 (the share of each GPU vLLM takes)',
    );
  return n;
}

/** Reference / rollout combinations TRL rejects or that cannot be laid out; each names its flag. */
function checkObjective(o: EstimateOptions): void {
  const ref = o.reference;
  const p = o.objective === undefined ? undefined : OBJECTIVE_PROFILES[o.objective];
  if (p && !p.references.includes(ref ?? 'none'))
    throw new FlagError(
      'reference',
      ref,
      `${p.references.join(' or ')} with --objective ${o.objective} (${p.why})`,
    );
  if (rollsOut(o)) generationBatchCheck(o);
  if (o.rollout !== 'vllm-server') return;
  if (o.gpus === 1)
    throw new FlagError(
      'rollout',
      o.rollout,
      'vllm-colocate or hf with --gpus 1 (server mode runs vLLM on GPUs of its own: --gpus counts them, so one training GPU beside one vLLM GPU is --gpus 2 --rollout-gpus 1)',
    );
  if ((o.rolloutGpus ?? 1) >= o.gpus)
    throw new FlagError(
      'rollout-gpus',
      o.rolloutGpus,
      `fewer than --gpus ${o.gpus} (the GPUs left over train)`,
    );
}

/**
 * TRL v1.9.0 grpo_config.py __post_init__ raises unless the generation batch (per_device_train_batch_size x
 * processes x steps_per_generation) holds whole groups of num_generations (grpo_config.py:1110 at v1.9.0).
 */
function generationBatchCheck(o: EstimateOptions): void {
  const n = o.generations ?? GRPO_GENERATIONS;
  const dp = Math.max(1, Math.floor(trainingGpus(o) / (o.tp * o.pp * o.cp)));
  const spg = o.stepsPerGeneration ?? 1;
  const g = o.batch * dp * spg;
  if (g % n !== 0)
    throw new FlagError(
      'generations',
      n,
      `a divisor of the generation batch --batch ${o.batch} x ${dp} trainer process${dp === 1 ? '' : 'es'} x --grad-accum ${spg} = ${g} (TRL raises otherwise: "generation_batch_size must be divisible by num_generations", https://github.com/huggingface/trl/blob/v1.9.0/trl/trainer/grpo_config.py#L1110)`,
    );
}

/** The serving flags (DESIGN.md "Engines, serving and RL"): set only when given, so other estimates echo nothing new. */
function servingFlagsInto(o: EstimateOptions, flags: RawFlags): void {
  if (flags['kv-cache-dtype'] !== undefined)
    o.kvCacheDtype = pick(flags, 'kv-cache-dtype', KV_CACHE_DTYPES, 'auto');
  if (flags['kv-block-size'] !== undefined)
    o.kvBlockSize = int(flags, 'kv-block-size', 16, 1, 4096);
  if (flags['gpu-layers'] !== undefined) o.gpuLayers = int(flags, 'gpu-layers', 0, 0, 100_000);
  if (flags['n-cpu-moe'] !== undefined) o.cpuMoeLayers = int(flags, 'n-cpu-moe', 0, 0, 100_000);
  if (flags['prefix-cache'] !== undefined) o.prefixCacheFraction = prefixFraction(flags);
  if (flags.ep !== undefined) o.ep = int(flags, 'ep', 1, 1, 4096);
  speculativeInto(o, flags);
  if (flags['max-loras'] !== undefined) o.maxLoras = int(flags, 'max-loras', 1, 1, 4096);
  if (flags['max-num-seqs'] !== undefined) o.maxNumSeqs = int(flags, 'max-num-seqs', 1, 1, 65536);
  if (bool(flags, 'dp-attention')) o.dpAttention = true;
  // GRPO's prompt tokens were read with its objective (objectiveInto).
  if (flags['prompt-tokens'] !== undefined && !rollsOut(o))
    o.promptTokens = int(flags, 'prompt-tokens', 1, 1, 100_000_000);
  const serving = o.method === 'inference';
  const trainingEp = frameworksWith('trainingEp');
  if (o.ep !== undefined && !serving && !trainingEp.includes(o.framework))
    throw new FlagError(
      'ep',
      o.ep,
      `only with --method inference, or training with --framework ${trainingEp.join(' or ')} (its parallelism.expert_parallel_degree); --framework ${String(flags.framework ?? o.framework)} has no expert parallelism for training`,
    );
  for (const [flag, set] of [
    ['kv-cache-dtype', o.kvCacheDtype !== undefined],
    ['kv-block-size', o.kvBlockSize !== undefined],
    ['gpu-layers', o.gpuLayers !== undefined],
    ['n-cpu-moe', o.cpuMoeLayers !== undefined],
    ['prefix-cache', o.prefixCacheFraction !== undefined],
    ['ep', o.ep !== undefined && serving],
    ['dp-attention', o.dpAttention === true],
    ['speculative', o.speculative !== undefined],
    ['max-loras', o.maxLoras !== undefined],
    ['max-num-seqs', o.maxNumSeqs !== undefined],
    ['prompt-tokens', o.promptTokens !== undefined && !rollsOut(o)],
  ] as const)
    if (set && !serving)
      throw new FlagError(
        flag,
        flags[flag],
        flag === 'prompt-tokens'
          ? 'only with --method inference or --objective grpo or ppo'
          : 'only with --method inference',
      );
  if (o.promptTokens !== undefined && !rollsOut(o) && o.promptTokens >= o.seq)
    throw new FlagError(
      'prompt-tokens',
      o.promptTokens,
      `fewer than --seq ${o.seq} (seq = prompt + generated)`,
    );
  const offload = frameworksWith('layerOffload');
  const q4Kv = frameworksWith('q4Kv');
  if (o.kvCacheDtype === 'q4_0' && !q4Kv.includes(o.framework))
    throw new FlagError(
      'kv-cache-dtype',
      o.kvCacheDtype,
      `auto or fp8; q4_0 only with --framework ${q4Kv.join(' or ')} (its -ctk/-ctv q4_0); vLLM's and SGLang's --kv-cache-dtype have no q4_0`,
    );
  if (o.gpuLayers !== undefined && !offload.includes(o.framework))
    throw new FlagError(
      'gpu-layers',
      o.gpuLayers,
      `only with --framework ${offload.join(' or ')} (its -ngl)`,
    );
  if (o.cpuMoeLayers !== undefined && !offload.includes(o.framework))
    throw new FlagError(
      'n-cpu-moe',
      o.cpuMoeLayers,
      `only with --framework ${offload.join(' or ')} (its --n-cpu-moe: the experts of the first N layers in host RAM)`,
    );
  expertParallelCheck(o);
  const gguf = frameworksWith('ggufWeights');
  // A server that dequantizes the file as it loads (transformers' generate) serves it as a float model; training
  // engines do not read GGUF files.
  const dequantized = serving && frameworksWith('ggufDequantized').includes(o.framework);
  if (isGguf(o.weights) && !gguf.includes(o.framework) && !dequantized)
    throw new FlagError(
      'weights',
      o.weights,
      `a GGUF type only with --framework ${gguf.join(' or ')} (the engines that load GGUF files), or served dequantized by transformers (--method inference); transformers trains one only by dequantizing it to float as it loads (load_gguf_checkpoint: ${GGUF_DEQUANT}): estimate that as --weights fp32, the dtype it loads a GGUF file in by default`,
    );
}

/** transformers 5.14.1: Mxfp4HfQuantizer.is_trainable returns False and asks for Mxfp4Config(dequantize=True). */
const MXFP4_QUANTIZER =
  'https://github.com/huggingface/transformers/blob/001002320fa01a489bb9b93976a7e4cd1a46291c/src/transformers/quantizers/quantizer_mxfp4.py';
/** transformers' GGUF loader: every tensor through gguf.dequantize, then cast to torch_dtype. */
const GGUF_DEQUANT =
  'https://github.com/huggingface/transformers/blob/001002320fa01a489bb9b93976a7e4cd1a46291c/src/transformers/modeling_gguf_pytorch_utils.py';

/**
 * Default draft tokens and per-token acceptance by method. EAGLE-3: 2 tokens, vLLM's EAGLE-3 example
 * (https://docs.vllm.ai/en/latest/features/speculative_decoding/eagle/); acceptance 0.65 from the public
 * yuhuili/EAGLE3-LLaMA3.1-Instruct-8B head's mean accepted length 2.77 at 7 draft tokens on MT-bench
 * (https://huggingface.co/nebius/EAGLE3-Llama-3.3-70B-Instruct, "Comparison with Public Checkpoints"), as
 * (1 - a^8) / (1 - a) = 2.77. MTP: one token per MTP layer the checkpoint ships, DeepSeek-V3's second-token
 * acceptance "between 85% and 90%" (DeepSeek-V3 technical report §5.4.3, https://arxiv.org/abs/2412.19437).
 * n-gram: how often the output repeats the prompt is the workload's, so --spec-acceptance is required.
 */
export const SPEC_DEFAULTS: Record<SpeculativeMethod, { tokens: number; acceptance?: number }> = {
  eagle3: { tokens: 2, acceptance: 0.65 },
  mtp: { tokens: 1, acceptance: 0.85 },
  ngram: { tokens: 3 },
};

/** --speculative, --spec-tokens, --spec-acceptance (the method's defaults where not given). */
function speculativeInto(o: EstimateOptions, flags: RawFlags): void {
  if (flags.speculative === undefined) {
    const stray = ['spec-tokens', 'spec-acceptance'].find((f) => flags[f] !== undefined);
    if (stray)
      throw new FlagError(stray, flags[stray], 'only with --speculative eagle3, mtp or ngram');
    return;
  }
  const method = pick(flags, 'speculative', SPECULATIVE_METHODS, 'eagle3');
  const d = SPEC_DEFAULTS[method];
  o.speculative = method;
  o.specTokens = int(flags, 'spec-tokens', d.tokens, 1, 64);
  const given = flags['spec-acceptance'];
  if (given === undefined && d.acceptance === undefined)
    throw new FlagError(
      'spec-acceptance',
      given,
      `a number from 0 to 1 with --speculative ${method} (its acceptance is the workload's: how often the output repeats the prompt)`,
    );
  o.specAcceptance = given === undefined ? d.acceptance! : unit(flags, 'spec-acceptance');
}

function unit(flags: RawFlags, flag: string): number {
  const v = flags[flag];
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  if (!Number.isFinite(n) || n < 0 || n > 1) throw new FlagError(flag, v, 'a number from 0 to 1');
  return n;
}

/** Combinations no framework can run; each names the flag to change. */
export function checkCombination(o: EstimateOptions): void {
  checkObjective(o);
  const train = trainingGpus(o);
  const float = o.weights === 'fp32' || o.weights === 'fp16' || o.weights === 'bf16';
  if (o.method === 'full' && !float)
    throw new FlagError(
      'weights',
      o.weights,
      'fp32, fp16 or bf16 with --method full (quantized weights are frozen: use lora or qlora)',
    );
  if (o.method === 'qlora' && float)
    throw new FlagError(
      'weights',
      o.weights,
      'a quantized dtype (nf4, fp4, int4, int8, fp8) with --method qlora',
    );
  if (o.method !== 'inference' && SERVING_ONLY.has(o.weights))
    throw new FlagError(
      'weights',
      o.weights,
      o.weights === 'mxfp4'
        ? `a training dtype: transformers trains no MXFP4 weights ("please consider dequantizing the model first", Mxfp4HfQuantizer.is_trainable, ${MXFP4_QUANTIZER}), so gpt-oss fine-tunes dequantized: --weights bf16, or nf4 with --method qlora`
        : 'a training dtype: nvfp4 and GGUF types serve only (--method inference)',
    );
  if (train % (o.tp * o.pp * o.cp) !== 0)
    throw new FlagError(
      'gpus',
      o.gpus,
      `a multiple of --tp x --pp x --cp (${o.tp} x ${o.pp} x ${o.cp} = ${o.tp * o.pp * o.cp})${train === o.gpus ? '' : ` plus --rollout-gpus ${o.gpus - train}`}`,
    );
  // Ring attention splits every sequence into cp equal shards (2·cp with torchtitan's load balancing;
  // the plain split is what is checked here).
  if (o.cp > 1 && o.seq % o.cp !== 0)
    throw new FlagError(
      'cp',
      o.cp,
      `a divisor of --seq ${o.seq} (each rank holds seq / cp tokens)`,
    );
  if (o.cp > 1 && o.method === 'inference')
    throw new FlagError(
      'cp',
      o.cp,
      '1 with --method inference (context parallel is a training layout here)',
    );
  if (o.sequenceParallel && o.tp === 1)
    throw new FlagError(
      'sequence-parallel',
      true,
      'only with --tp 2 or more (it shards across the TP group)',
    );
  if (o.lossParallel && o.tp === 1)
    throw new FlagError(
      'loss-parallel',
      true,
      'only with --tp 2 or more (vocabulary-sharded over TP)',
    );
  if (o.offload === 'optimizer+params' && o.zero !== 3)
    throw new FlagError(
      'offload',
      o.offload,
      "'none' or 'optimizer' unless --zero 3 (parameter offload needs ZeRO-3)",
    );
  // Optimizer offload without ZeRO is an engine's question (torchtune steps torchao's CPUOffloadOptimizer on one
  // GPU): each engine's profile and runs (engines/<engine>/runs.ts) accept or refuse it with its source.
  if (o.sparsity > 0 && !float && o.weights !== 'int8' && o.weights !== 'fp8')
    throw new FlagError(
      'sparsity',
      o.sparsity,
      '0 with 4-bit weights (sparse formats store fp32/fp16/bf16/fp8/int8 values)',
    );
  if (o.sparseFormat === '2:4' && o.sparsity > 0 && o.sparsity < 0.5)
    throw new FlagError(
      'sparsity',
      o.sparsity,
      'at least 0.5 with --sparse-format 2:4 (two of every four weights are zero)',
    );
  if (o.method === 'inference' && o.optimizer !== 'none')
    throw new FlagError('optimizer', o.optimizer, "'none' with --method inference");
  // FP8 training swaps the trained model's nn.Linear modules for Float8Linear (torchao.float8
  // convert_to_float8_training): frozen 4-bit/8-bit bases are not nn.Linear and inference has no backward. An
  // engine whose runs set float8Lora wraps the FP8 linears in LoRA adapters (engines' runs.ts).
  const f8Lora = frameworksWith('float8Lora');
  if (
    isFloat8Compute(o.compute) &&
    o.method !== 'full' &&
    !(o.method === 'lora' && f8Lora.includes(o.framework))
  )
    throw new FlagError(
      'compute',
      o.compute,
      `fp32, fp16 or bf16 with --method ${o.method} (FP8 training converts the linears of a full fine-tune${f8Lora.length > 0 ? `, or adapts them with LoRA on --framework ${f8Lora.join(' or ')}` : ''}; 8-bit frozen or served weights are --weights fp8)`,
    );
  // Liger patches the transformers model classes: only the Hugging Face Trainer stacks load them.
  const liger = frameworksWith('liger');
  if (o.liger && !liger.includes(o.framework))
    throw new FlagError(
      'liger',
      true,
      `off with --framework ${o.framework} (${frameworkWhy(o.framework, 'noLiger') ?? 'its engine loads no Liger kernels'}; Liger kernels run on the hf engines ${enginesWith('liger').join(', ')}: --framework ${liger.join(' or ')})`,
    );
  // unsloth_tiled_mlp is a FastLanguageModel.from_pretrained argument (unsloth/models/loader.py @015bdef0,
  // patch_tiled_mlp from unsloth_zoo/tiled_mlp.py @ce232d6c): only engines whose profile sets tiledMlp load it.
  const tiled = frameworksWith('tiledMlp');
  if (o.tiledMlp && !tiled.includes(o.framework))
    throw new FlagError(
      'tiled-mlp',
      true,
      `off with --framework ${o.framework} (unsloth_tiled_mlp is Unsloth's FastLanguageModel.from_pretrained option, unsloth/models/loader.py: --framework ${tiled.join(' or ')})`,
    );
  fsdpVersionCheck(o);
  if (o.tiledMlp && o.method === 'inference')
    throw new FlagError(
      'tiled-mlp',
      true,
      'off with --method inference (tiling splits the MLP backward)',
    );
  if (o.liger && o.method === 'inference')
    throw new FlagError(
      'liger',
      true,
      'off with --method inference (Liger kernels are training kernels)',
    );
}

/** Options key → contract flag (kebab-case). */
const FLAG_OF: Record<keyof EstimateOptions, string> = {
  method: 'method',
  weights: 'weights',
  compute: 'compute',
  masterWeights: 'master-weights',
  doubleQuant: 'double-quant',
  optimizer: 'optimizer',
  optimizerStates: 'optimizer-states',
  loraRank: 'lora-rank',
  loraTargets: 'lora-targets',
  loraAllLinear: 'lora-targets',
  loraDropout: 'lora-dropout',
  modulesToSave: 'modules-to-save',
  batch: 'batch',
  seq: 'seq',
  checkpointing: 'checkpointing',
  attention: 'attention',
  chunkedLoss: 'chunked-loss',
  liger: 'liger',
  tiledMlp: 'tiled-mlp',
  fsdpVersion: 'fsdp-version',
  optimizerInBackward: 'optimizer-in-backward',
  zero: 'zero',
  offload: 'offload',
  gpus: 'gpus',
  tp: 'tp',
  pp: 'pp',
  cp: 'cp',
  sequenceParallel: 'sequence-parallel',
  lossParallel: 'loss-parallel',
  compile: 'compile',
  sparsity: 'sparsity',
  sparseFormat: 'sparse-format',
  framework: 'framework',
  objective: 'objective',
  reference: 'reference',
  generations: 'generations',
  promptTokens: 'prompt-tokens',
  completionTokens: 'completion-tokens',
  maxCompletionTokens: 'max-completion-tokens',
  rollout: 'rollout',
  rolloutMemory: 'rollout-memory',
  rolloutSleep: 'rollout-sleep',
  rolloutGpus: 'rollout-gpus',
  stepsPerGeneration: 'grad-accum',
  ppoEpochs: 'ppo-epochs',
  rolloutChunk: 'rollout-chunk',
  kvCacheDtype: 'kv-cache-dtype',
  kvBlockSize: 'kv-block-size',
  prefixCacheFraction: 'prefix-cache',
  gpuLayers: 'gpu-layers',
  cpuMoeLayers: 'n-cpu-moe',
  ep: 'ep',
  dpAttention: 'dp-attention',
  speculative: 'speculative',
  specTokens: 'spec-tokens',
  specAcceptance: 'spec-acceptance',
  maxLoras: 'max-loras',
  maxNumSeqs: 'max-num-seqs',
  images: 'images',
  imagePixels: 'image-pixels',
};

/**
 * The contract flags that give back `o` through optionsFromFlags (values that differ from the method's
 * defaults only): how a plan's `options` become a `vramplan estimate` command.
 */
export function flagsFromOptions(o: EstimateOptions): Record<string, string | number | boolean> {
  const d = defaultOptions(o.method);
  const out: Record<string, string | number | boolean> = { method: o.method };
  for (const k of Object.keys(FLAG_OF) as (keyof EstimateOptions)[]) {
    if (k === 'method' || k === 'loraTargets' || k === 'loraAllLinear') continue;
    // `seq` already holds the image tokens: --images again would add them twice (the tower's cost is lost).
    if (k === 'images' || k === 'imagePixels') continue;
    if (k === 'modulesToSave') continue; // a list: written below
    const v = o[k];
    if (v !== undefined && v !== d[k]) out[FLAG_OF[k]] = v as string | number | boolean;
  }
  // An engine's own defaults (core/engines/<engine>/profile.ts `defaults`, applied by --framework <engine>)
  // differ from the contract's for these: write them out so the flags mean the same options again. A family
  // name that is no engine's id (the Hugging Face stack's) keeps the contract's (engines/defaults.ts).
  if (isEngine(o.framework)) {
    out.checkpointing = o.checkpointing;
    out.attention = o.attention;
  }
  // GRPO's --batch defaults to TRL's 8, not the contract's 1: write it whatever its value.
  if (rollsOut(o)) out.batch = o.batch;
  if (o.modulesToSave) out['modules-to-save'] = o.modulesToSave.join(',');
  // LoRA targets likewise: an engine's recipes have their own (profile `loraTargets`).
  const engineTargets = isEngine(o.framework) && (o.method === 'lora' || o.method === 'qlora');
  if (o.loraAllLinear) out['lora-targets'] = 'all-linear';
  else if (engineTargets || o.loraTargets.join(',') !== d.loraTargets.join(','))
    out['lora-targets'] = o.loraTargets.join(',');
  return out;
}

/** `flagsFromOptions` as a command line. */
export function estimateCommand(model: string, o: EstimateOptions): string {
  const flags = Object.entries(flagsFromOptions(o)).map(([k, v]) =>
    v === true ? `--${k}` : `--${k} ${String(v)}`,
  );
  return ['vramplan estimate', model, ...flags].join(' ');
}
