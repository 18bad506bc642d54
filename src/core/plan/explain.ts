/**
 * "Why won't it fit?": the components that overflow the GPU, and the cheapest changes that make the
 * configuration fit — every single change around it, then pairs, then triples when no single change is
 * enough — each re-estimated, with the memory it frees, its time cost (the time model, same global
 * batch), its quality tier and the host RAM an offload needs. Only fixes an engine runs are offered.
 */
import { rollsOut } from '../../schema/objectives.js';
import type { Arch } from '../model/arch.js';
import { FRAMEWORKS } from '../memory/frameworks.js';
import { loadedLayers } from '../memory/setup.js';
import { isFourBitFloat } from '../model/dtypes.js';
import { nativeWeights } from '../model/native-weights.js';
import {
  buildAfterChange,
  buildEstimate,
  gpuCapacityBytes,
  type BuildContext,
} from '../estimate.js';
import type { Breakdown } from '../memory/memory.js';
import type { PagedStates } from '../memory/paged.js';
import { engineOf } from '../engines/engine.js';
import { gpuRefusal } from '../engines/gpu-refusal.js';
import { flashRefusal } from '../engines/kernels.js';
import { hostRamOfOptions, type HostRam } from '../memory/host-ram.js';
import { ENGINE_PROFILES, engineRejects } from '../engines/engines.js';
import { forbiddenBy } from '../engines/rules.js';
import { qualityOf, tierRank, type QualityTier } from './quality.js';
import { restsOnHiddenCopies } from './overlap.js';
import type { TimeResult } from '../time/index.js';
import { timeVerdict, type TimeVerdict } from '../time/verdict.js';
import { defaultTimeOptions, type TimeOptions } from '../../schema/time.js';
import type { EstimateOptions } from '../../schema/estimate.js';
import { checkCombination } from '../../schema/flags.js';
import { ligerPatches } from '../kernels/liger.js';
import type { Gpu } from '../../schema/gpu.js';

/** One change of one option axis. */
export interface Change {
  /** The axis changed; two changes of one axis never combine. */
  axis: string;
  /** Short words for the change ("QLoRA r16 (nf4)"). */
  label: string;
  /** Quality or resource trade-off, beyond step time; null when none is known. */
  tradeoff: string | null;
}

export interface Fix {
  changes: Change[];
  /** The configuration with the changes applied (what `estimate` would be run with). */
  options: EstimateOptions;
  /** Per-GPU device bytes after the change. */
  deviceBytes: number;
  /** Per-GPU device bytes freed relative to the given configuration. */
  freedBytes: number;
  headroomBytes: number;
  /**
   * Job time relative to the given configuration at the same samples per optimizer step (the time
   * model's tokens/s of all GPUs; a smaller micro-batch accumulates more); below 1 is faster.
   */
  slowdown: number;
  /** Quality tier of the fixed configuration (quality.ts) and the engine that runs it. */
  quality: QualityTier;
  engine: string;
  /** Host RAM per GPU the fixed configuration needs (offloaded states, pinned buffers); 0 when none. */
  hostBytesPerGpu: number;
  /** Host RAM of the fixed configuration's busiest node (memory/host-ram.ts hostRamOfOptions, as a plan's). */
  hostRam: HostRam;
  /** GPUs the fix needs (more than given when it adds GPUs). */
  gpus: number;
  /**
   * Set when the fix copies weights or activations to and from the host (parameter or checkpoint offload) and the
   * time model hides part of those copies behind compute (overlap.ts): its slowdown rests on that overlap, which
   * is not measured.
   */
  overlapAssumed?: true;
  /**
   * Set when the fix's micro-batch x data-parallel ranks do not divide the given samples per step: the larger
   * global batch it runs (accumulation rounded up, as it is timed) and the given one.
   */
  globalBatch?: { runs: number; given: number };
}

export interface Explanation {
  fits: boolean;
  model: { id: string };
  gpu: { id: string; name: string; capacityBytes: number };
  deviceBytes: number;
  /** Host RAM of the busiest node (memory/host-ram.ts hostRamOfOptions: the figure a plan's hostRam holds). */
  hostRam: HostRam;
  /**
   * deviceBytes − capacity; negative when it fits (then it is minus the headroom). Paged optimizer states
   * beyond their working set are not counted: they page out to host RAM under pressure.
   */
  overByBytes: number;
  /** Paged optimizer states: what is on the device and what the fit counts (memory/paged.ts). */
  paged?: PagedStates;
  /** Components largest first, as many as together exceed overByBytes (all of them when none alone does). */
  overflow: { component: keyof Breakdown; bytes: number }[];
  /** Every component, largest first. */
  components: { component: keyof Breakdown; bytes: number }[];
  /** Changes that make it fit, best first: fewest GPUs, then least slowdown, then most memory freed. */
  fixes: Fix[];
  /**
   * Fixes that fit but that a behaviour rule of their engine's libraries forbids (engines/<engine>/rules.ts):
   * the changes, the engine and the rule, so a user sees why an obvious fix is not offered.
   */
  ruledOut: { changes: string; engine: string; rule: string; says: string; source: string }[];
  /** 1 = single changes were enough, 2 = pairs were needed, 3 = triples; 0 when it already fits or nothing fits. */
  depth: 0 | 1 | 2 | 3;
  /** Configurations estimated while searching. */
  tried: number;
  /** The given configuration's step: its dominant phase and what would lift it (time model). */
  time: TimeVerdict;
}

interface Move {
  change: Change;
  apply: (o: EstimateOptions) => EstimateOptions | null;
}

const training = (o: EstimateOptions) => o.method !== 'inference';
const adapter = (o: EstimateOptions) => o.method === 'lora' || o.method === 'qlora';
const fourBit = (o: EstimateOptions) => isFourBitFloat(o.weights);
const targets = (o: EstimateOptions) => (o.loraAllLinear ? 'all-linear' : o.loraTargets.join(','));

// Quality notes: QLoRA paper (Dettmers et al. 2023, Table 3-4): NF4+DQ matches 16-bit LoRA; LoRA paper §7 on rank.
const TRADEOFF = {
  lora: 'trains low-rank adapters only: may trail full fine-tuning on new knowledge (Biderman et al. 2024, "LoRA Learns Less and Forgets Less")',
  qlora:
    '4-bit NF4 base weights: QLoRA matches 16-bit LoRA on MMLU (Dettmers et al. 2023, Table 4)',
  int8: 'LLM.int8 base weights: no measured quality loss up to 175B (Dettmers et al. 2022)',
  opt8: '8-bit optimizer states: matches 32-bit Adam (Dettmers et al. 2022, "8-bit Optimizers")',
  // time/paged-migration.ts: a step that cannot hold every paged state migrates all of them in and out.
  paged:
    'states page to CPU memory under pressure; when they do not all fit, every step migrates all of them over PCIe (timed)',
  adafactor: 'factored second moments: may need learning-rate tuning (Shazeer & Stern 2018)',
  sgd: 'no adaptive moments: usually converges worse than AdamW on transformers',
  batch: 'keep the global batch with more gradient accumulation; lower GPU utilisation',
  batchInference: 'fewer sequences served at once: lower throughput',
  seq: 'trains on shorter sequences (long-context ability may suffer)',
  seqInference:
    'serves shorter contexts: the server caps each request at this many tokens, prompt and output',
  // plan/quality.ts: FP8 (E4M3) near 16-bit results (https://arxiv.org/abs/2209.05433); 4-bit weights keep most
  // zero-shot accuracy (https://arxiv.org/abs/2212.09720).
  fp8: 'FP8 (E4M3) weights: match 16-bit results (Micikevicius et al. 2022)',
  int4: '4-bit weights (an AWQ or GPTQ checkpoint): keep most zero-shot accuracy (Dettmers & Zettlemoyer 2023)',
} as const;

function halvings(n: number): number[] {
  const out: number[] = [];
  for (let v = Math.floor(n / 2); v >= 1; v = Math.floor(v / 2)) out.push(v);
  return out;
}

/** Every single change around `o` the search tries. */
type AddMove = (axis: string, label: string, tradeoff: string | null, apply: Move['apply']) => void;

/**
 * A full fine-tune's adapters where the engine's own recipes put them (profile loraTargets, docs/engines.md: every
 * linear on the HF engines and Unsloth), not the contract's q,v a full fine-tune carries unused; an engine
 * without a recipe keeps them.
 */
function recipeTargets(x: EstimateOptions): EstimateOptions {
  const r = ENGINE_PROFILES[engineOf(x)].loraTargets;
  return r ? { ...x, loraTargets: [...r.targets], loraAllLinear: r.allLinear } : x;
}

/** Full fine-tune → LoRA / QLoRA, at the engine's recipe targets. */
function methodMoves(o: EstimateOptions, add: AddMove): void {
  if (o.method === 'full') {
    const lora = recipeTargets({ ...o, method: 'lora' });
    add('method', `LoRA r${o.loraRank} (${targets(lora)})`, TRADEOFF.lora, (x) =>
      recipeTargets({ ...x, method: 'lora', masterWeights: false }),
    );
    add('method', `QLoRA r${o.loraRank} (nf4)`, `${TRADEOFF.lora}; ${TRADEOFF.qlora}`, (x) =>
      recipeTargets({ ...x, method: 'qlora', weights: 'nf4', masterWeights: false }),
    );
    add(
      'method',
      `QLoRA r${o.loraRank} (nf4 + double quant)`,
      `${TRADEOFF.lora}; ${TRADEOFF.qlora}`,
      (x) =>
        recipeTargets({
          ...x,
          method: 'qlora',
          weights: 'nf4',
          doubleQuant: true,
          masterWeights: false,
        }),
    );
  }
}

/** Lower-precision frozen weights for adapters and inference. */
function weightMoves(o: EstimateOptions, add: AddMove): void {
  if (adapter(o) || o.method === 'inference') {
    if (o.weights !== 'int8' && !fourBit(o) && o.weights !== 'int4')
      add('weights', 'int8 weights', TRADEOFF.int8, (x) => ({ ...x, weights: 'int8' }));
    if (!fourBit(o) && o.weights !== 'int4')
      add('weights', 'nf4 weights', TRADEOFF.qlora, (x) => ({
        ...x,
        weights: 'nf4',
        method: x.method === 'lora' ? 'qlora' : x.method,
      }));
    if (!fourBit(o) && o.weights !== 'int4')
      add('weights', 'nf4 weights + double quant', TRADEOFF.qlora, (x) => ({
        ...x,
        weights: 'nf4',
        doubleQuant: true,
        method: x.method === 'lora' ? 'qlora' : x.method,
      }));
    // Serving engines' own quantized formats: FP8 and an int4 (AWQ/GPTQ) checkpoint, from 16- or 32-bit weights.
    const float = o.weights === 'bf16' || o.weights === 'fp16' || o.weights === 'fp32';
    if (o.method === 'inference' && float) {
      add('weights', 'fp8 weights', TRADEOFF.fp8, (x) => ({ ...x, weights: 'fp8' }));
      add('weights', 'int4 weights', TRADEOFF.int4, (x) => ({ ...x, weights: 'int4' }));
    }
    if (fourBit(o) && !o.doubleQuant)
      add('weights', 'double quantization', null, (x) => ({ ...x, doubleQuant: true }));
  }
}

/** Optimizers, checkpointing, chunked loss, optimizer-in-backward. */
function trainingMoves(o: EstimateOptions, add: AddMove): void {
  if (!training(o)) return;
  const opts: [EstimateOptions['optimizer'], string, string | null][] = [
    ['adamw-8bit', '8-bit AdamW', TRADEOFF.opt8],
    ['paged-adamw-8bit', 'paged 8-bit AdamW', `${TRADEOFF.opt8}; ${TRADEOFF.paged}`],
    ['paged-adamw', 'paged AdamW', TRADEOFF.paged],
    ['adafactor', 'Adafactor', TRADEOFF.adafactor],
    ['sgd', 'SGD', TRADEOFF.sgd],
  ];
  for (const [name, label, t] of opts)
    if (o.optimizer !== name)
      add('optimizer', `${label} optimizer`, t, (x) => ({ ...x, optimizer: name }));
  // Only the modes the config's engine offers (HF and DeepSpeed checkpoint whole layers; no selective recompute).
  for (const c of ENGINE_PROFILES[engineOf(o)].checkpointing)
    if (o.checkpointing !== c)
      add(
        'checkpointing',
        `${c === 'offload' ? 'checkpointing with CPU offload' : `${c} activation checkpointing`}`,
        c === 'offload' ? 'needs host RAM for the checkpoints' : null,
        (x) => ({ ...x, checkpointing: c }),
      );
  if (!o.chunkedLoss)
    add('chunkedLoss', 'chunked loss', null, (x) => ({ ...x, chunkedLoss: true }));
  if (!o.optimizerInBackward && o.method === 'full' && o.zero === 0)
    add(
      'optimizerInBackward',
      'optimizer step in backward',
      'no gradient accumulation (torchtune optimizer_in_bwd)',
      (x) => ({ ...x, optimizerInBackward: true }),
    );
}

/** Attention kernel, micro-batch and sequence length. */
function shapeMoves(arch: Arch, o: EstimateOptions, gpu: Gpu, add: AddMove): void {
  // Not where the engine swaps flash for a kernel the GPU has no build of (engines/kernels.ts flashRefusal).
  const flashRuns = flashRefusal(engineOf(o), arch.modelType, gpu.computeCapability) === null;
  if (o.attention !== 'flash' && gpu.supportsFlashAttention2 && flashRuns)
    add('attention', 'FlashAttention', null, (x) => ({ ...x, attention: 'flash' }));
  for (const b of halvings(o.batch))
    add(
      'batch',
      `micro-batch ${b}`,
      training(o) ? TRADEOFF.batch : TRADEOFF.batchInference,
      (x) => ({ ...x, batch: b }),
    );
  const seqs = halvings(o.seq)
    .filter((s) => s >= 256)
    .slice(0, 2);
  const seqWhy = training(o) ? TRADEOFF.seq : TRADEOFF.seqInference;
  for (const s of seqs) add('seq', `sequence ${s}`, seqWhy, (x) => ({ ...x, seq: s }));
}

/** Parallel layouts: ZeRO stages (and offload) on the given or more GPUs, or tensor parallelism on more GPUs. */
function parallelMoves(arch: Arch, o: EstimateOptions, add: AddMove): void {
  const heads = arch.groups[0]?.heads ?? 1;
  if (training(o)) {
    for (const g of [o.gpus, o.gpus * 2, o.gpus * 4, o.gpus * 8]) {
      const more = g > o.gpus ? `${g} GPUs, ` : '';
      const need = g > o.gpus ? `needs ${g} GPUs` : null;
      for (const z of [1, 2, 3] as const) {
        if (g === 1 || z <= o.zero) continue;
        add('parallel', `${more}ZeRO-${z}`, need, (x) => ({
          ...x,
          gpus: g,
          zero: z,
          offload: 'none',
        }));
      }
      add(
        'parallel',
        `${more}ZeRO-2 + optimizer offload`,
        [need, 'needs host RAM; optimizer step on the CPU'].filter(Boolean).join('; '),
        (x) => ({ ...x, gpus: g, zero: 2, offload: 'optimizer' }),
      );
      add(
        'parallel',
        `${more}ZeRO-3 + optimizer and parameter offload`,
        [need, 'needs host RAM; parameters streamed over PCIe'].filter(Boolean).join('; '),
        (x) => ({
          ...x,
          gpus: g,
          zero: 3,
          offload: 'optimizer+params',
        }),
      );
    }
  }
  for (const tp of [2, 4, 8]) {
    if (heads % tp !== 0 || o.tp * tp > heads) continue;
    const g = o.gpus * tp;
    add(
      'parallel',
      `${g} GPUs, tensor parallel ${o.tp * tp}`,
      `needs ${g} GPUs with a fast interconnect (NVLink)`,
      (x) => ({ ...x, gpus: g, tp: x.tp * tp }),
    );
  }
}

// GGUF types from the largest to the smallest (tools/quantize/README.md at llama.cpp 25d5b0c5: 8.50, 6.56, 5.70,
// 4.89 bits per weight; each step down adds perplexity).
const GGUF_LADDER = ['q8_0', 'q6_k', 'q5_k_m', 'q4_k_m'] as const;

/** llama.cpp: its layers split over more GPUs (one server), fewer of them on the GPU, or a smaller GGUF type. */
function llamaCppMoves(arch: Arch, o: EstimateOptions, add: AddMove): void {
  if (!FRAMEWORKS[o.framework].layerOffload || o.method !== 'inference') return;
  // -ngl counts the layers of the model as the engine loads it (no tower kept in a file of its own).
  const layers = loadedLayers(arch, FRAMEWORKS[o.framework]);
  if (o.gpus === o.pp)
    for (const g of [o.pp * 2, o.pp * 4])
      if (g <= layers)
        add('parallel', `${g} GPUs, one llama-server (layer split)`, `needs ${g} GPUs`, (x) => ({
          ...x,
          gpus: g,
          pp: g,
        }));
  const on = Math.min(o.gpuLayers ?? layers, layers);
  for (const eighths of [6, 4, 2]) {
    const n = Math.round((layers * eighths) / 8);
    if (n < on)
      add(
        'gpuLayers',
        `${n} of ${layers} layers on the GPU (-ngl ${n})`,
        'the other layers decode from host RAM at host bandwidth: much slower',
        (x) => ({ ...x, gpuLayers: n }),
      );
  }
  const at = (GGUF_LADDER as readonly string[]).indexOf(o.weights);
  for (const w of GGUF_LADDER.slice(at + 1))
    if (at >= 0)
      add(
        'weights',
        `${w.toUpperCase()} GGUF`,
        'fewer bits per weight: higher perplexity',
        (x) => ({
          ...x,
          weights: w,
        }),
      );
}

/**
 * Serving a checkpoint that ships quantized (config.json quantization_config: gpt-oss's MXFP4, DeepSeek-V3's FP8, an
 * AWQ/GPTQ repo) in the format it ships, which is what serving engines load (model/native-weights.ts).
 */
function shippedMove(arch: Arch, o: EstimateOptions, add: AddMove): void {
  const w = nativeWeights(arch);
  if (o.method === 'inference' && w && w !== o.weights)
    add('weights', `${w} weights (the checkpoint as shipped)`, null, (x) => ({ ...x, weights: w }));
}

function moves(arch: Arch, o: EstimateOptions, gpu: Gpu): Move[] {
  const m: Move[] = [];
  const add: AddMove = (axis, label, tradeoff, apply) =>
    m.push({ change: { axis, label, tradeoff }, apply });
  methodMoves(o, add);
  shippedMove(arch, o, add);
  weightMoves(o, add);
  trainingMoves(o, add);
  // Liger's kernels where use_liger_kernel patches the model type (kernels/liger.ts); valid() keeps them
  // to the engines that load them.
  if (training(o) && !o.liger && ligerPatches(arch.modelType))
    add('liger', 'Liger kernels', null, (x) => ({ ...x, liger: true }));
  // Tiled MLP where the engine loads it (profile tiledMlp; valid() keeps it there): no ffn-wide tensor per
  // token, one more MLP forward per step (memory/activations.ts mlpTileBytes, time/train-work.ts).
  if (training(o) && !o.tiledMlp)
    add(
      'tiledMlp',
      'tiled MLP (unsloth_tiled_mlp)',
      'each MLP forward runs again, tile by tile, in backward: slower',
      (x) => ({ ...x, tiledMlp: true }),
    );
  shapeMoves(arch, o, gpu, add);
  parallelMoves(arch, o, add);
  llamaCppMoves(arch, o, add);
  return m.filter((mv) => mv.change.label !== '');
}

const dpOf = (o: EstimateOptions): number => Math.max(1, Math.floor(o.gpus / (o.tp * o.pp * o.cp)));

/** A fix is offered only when it is a valid combination that its engine runs (engines.ts). */
function valid(o: EstimateOptions, gpu: Gpu): boolean {
  // Stepping inside backward needs whole local gradients: no engine combines it with ZeRO sharding.
  if (o.optimizerInBackward && o.zero > 0) return false;
  // What `estimate --gpu` refuses on this GPU (engines/gpu-refusal.ts: the pinned torch's ROCm targets, the Apple
  // GPU paths of the engine, its quantized weights, Liger's kernels and the optimizer) is no fix.
  if (gpuRefusal(engineOf(o), gpu, o) !== null) return false;
  try {
    checkCombination(o);
  } catch {
    return false;
  }
  return engineRejects(engineOf(o), o, dpOf(o), 1) === null;
}

const key = (o: EstimateOptions): string => JSON.stringify(o);

/**
 * Best first: the better quality tier, then fewest GPUs (changes on the hardware at hand before buying
 * more), then least slowdown, then most memory freed, then fewer changes and the label (deterministic).
 */
function rank(a: Fix, b: Fix): number {
  const label = (f: Fix) => f.changes.map((c) => c.label).join(' + ');
  return (
    tierRank(a.quality) - tierRank(b.quality) ||
    a.gpus - b.gpus ||
    Math.round((a.slowdown - b.slowdown) * 1000) ||
    b.freedBytes - a.freedBytes ||
    a.changes.length - b.changes.length ||
    label(a).localeCompare(label(b))
  );
}

/** How many fixes an explanation keeps. */
export const MAX_FIXES = 12;

/**
 * `o` at `accum` micro-batches per optimizer step: GRPO generates one generation batch per step (TRL's
 * steps_per_generation = the accumulation), so its steps per generation follow the accumulation.
 */
function atAccum(o: EstimateOptions, accum: number): EstimateOptions {
  if (!rollsOut(o) || (o.stepsPerGeneration ?? 1) === accum) return o;
  const out = { ...o };
  if (accum > 1) out.stepsPerGeneration = accum;
  else delete out.stepsPerGeneration;
  return out;
}

/** Throughput of all GPUs of a configuration (decode tokens/s for inference) from its step. */
const throughputOf = (o: EstimateOptions, t: TimeResult): number =>
  o.method === 'inference'
    ? (t.decodeTokensPerSecond ?? 0) * dpOf(o)
    : t.tokensPerSecondPerGpu * o.gpus;

/**
 * What the configuration takes as given: its bytes, what overflows, its step time (the same time as
 * `estimate`: the objective's phases, the accumulation and power limit of `time`).
 */
function asGiven(
  arch: Arch,
  options: EstimateOptions,
  gpu: Gpu,
  time: TimeOptions,
  build?: BuildContext,
): Explanation & { throughput: number } {
  const capacity = gpuCapacityBytes(gpu);
  // The steady state only: no burst run step by step (estimate.ts buildEstimate).
  const base = buildEstimate(arch, options, gpu, time, build, { burst: false });
  const device = base.perGpu.deviceBytes;
  // Paged optimizer states fill what is free and page out under pressure: over / spare count without them.
  const over = -(base.gpu?.headroomBytes ?? capacity - device);
  const components = base.dominant.map((d) => ({ component: d.component, bytes: d.bytes }));
  const overflow: Explanation['overflow'] = [];
  let sum = 0;
  for (const c of components) {
    if (over <= 0 || sum > over) break;
    overflow.push(c);
    sum += c.bytes;
  }
  return {
    fits: base.fits === true,
    hostRam: hostRamOfOptions(arch, options, base.params.total, base.hostBytesPerGpu),
    model: { id: arch.id },
    gpu: { id: gpu.id, name: gpu.name, capacityBytes: capacity },
    deviceBytes: device,
    overByBytes: over,
    ...(base.paged ? { paged: base.paged } : {}),
    overflow,
    components,
    fixes: [],
    ruledOut: [],
    depth: 0,
    tried: 0,
    time: timeVerdict(base.time!),
    throughput: throughputOf(options, base.time!),
  };
}

/** Every combination of `k` moves on distinct axes, in move order. */
function combosOf(all: readonly Move[], k: number): Move[][] {
  const out: Move[][] = [];
  const rec = (start: number, acc: Move[]) => {
    if (acc.length === k) return void out.push(acc);
    for (let i = start; i < all.length; i++) {
      const mv = all[i]!;
      if (acc.some((a) => a.change.axis === mv.change.axis)) continue;
      rec(i + 1, [...acc, mv]);
    }
  };
  rec(0, []);
  return out;
}

/** A combination of moves as a fix, timed at the given configuration's samples per step; null if it does not fit. */
function fixEvaluator(
  arch: Arch,
  options: EstimateOptions,
  gpu: Gpu,
  result: Explanation,
  time: TimeOptions,
  baseThroughput: number,
  build?: BuildContext,
) {
  const capacity = result.gpu.capacityBytes;
  const device = result.deviceBytes;
  // Throughput of all GPUs at the given configuration's samples per optimizer step.
  const samples = options.batch * dpOf(options) * time.gradAccum;
  // A fix on more GPUs keeps the run's node size, or the default one (up to 8 GPUs a node) where it had it.
  const nodeDefault = time.gpusPerNode === Math.min(options.gpus, 8);
  const timeAt = (o: EstimateOptions, accum: number): TimeOptions => ({
    ...time,
    gradAccum: accum,
    gpusPerNode: nodeDefault ? Math.min(o.gpus, 8) : time.gpusPerNode,
  });
  const seen = new Set<string>([key(options)]);
  return (combo: Move[]): Fix | null => {
    let o: EstimateOptions | null = options;
    for (const mv of combo) o = o && mv.apply(o);
    if (!o) return null;
    const accum = Math.max(1, Math.ceil(samples / (o.batch * dpOf(o))));
    o = atAccum(o, accum);
    if (!valid(o, gpu)) return null;
    const k = key(o);
    if (seen.has(k)) return null;
    seen.add(k);
    result.tried++;
    // What the read build ran that the changed configuration still runs (estimate.ts buildAfterChange).
    const kept = buildAfterChange(build, options, o, accum);
    const r = buildEstimate(arch, o, gpu, timeAt(o, accum), kept, { burst: false });
    if (!r.fits) return null;
    const engine = engineOf(o);
    const rule = forbiddenBy(ENGINE_PROFILES[engine].rules, {
      arch,
      options: o,
      dp: o.gpus / (o.tp * o.pp * o.cp),
      accum,
    });
    if (rule) {
      const changes = combo.map((mv) => mv.change.label).join(' + ');
      if (result.ruledOut.length < MAX_FIXES)
        result.ruledOut.push({
          changes,
          engine,
          rule: rule.id,
          says: rule.says,
          source: rule.source,
        });
      return null;
    }
    return {
      changes: combo.map((mv) => mv.change),
      options: o,
      deviceBytes: r.perGpu.deviceBytes,
      freedBytes: device - r.perGpu.deviceBytes,
      headroomBytes: r.gpu?.headroomBytes ?? capacity - r.perGpu.deviceBytes,
      slowdown: baseThroughput / Math.max(1e-9, throughputOf(o, r.time!)),
      quality: qualityOf(o, arch.modelType).tier,
      engine: engineOf(o),
      hostBytesPerGpu: r.hostBytesPerGpu,
      hostRam: hostRamOfOptions(arch, o, r.params.total, r.hostBytesPerGpu),
      gpus: o.gpus,
      ...(restsOnHiddenCopies(o) ? { overlapAssumed: true as const } : {}),
      ...(o.batch * dpOf(o) * accum > samples
        ? { globalBatch: { runs: o.batch * dpOf(o) * accum, given: samples } }
        : {}),
    };
  };
}

/**
 * Why a configuration does (not) fit `gpu` and the nearest changes that fit. `time`: the run's accumulation,
 * power limit and links, as `estimate` reads them (default: estimate's defaults).
 */
/**
 * `build`: what the configuration's own tool keeps that the contract's flags do not say (a `--from` reader's
 * FromMapping.build, e.g. axolotl's k-bit preparation, quantize_moe_experts): the configuration as given is judged
 * with it, each fix with the fields its changes leave standing (estimate.ts buildAfterChange), memory and time.
 */
export function explainFit(
  arch: Arch,
  options: EstimateOptions,
  gpu: Gpu,
  time: TimeOptions = defaultTimeOptions(options.gpus),
  build?: BuildContext,
): Explanation {
  const { throughput, ...result } = asGiven(arch, options, gpu, time, build);
  if (result.fits) return result;
  const all = moves(arch, options, gpu);
  const evaluate = fixEvaluator(arch, options, gpu, result, time, throughput, build);
  // Minimal fixes only: a pair is tried when neither of its changes fits alone, a triple when none of
  // its pairs does; pairs are always searched because two cheap changes often beat one expensive one.
  const fitting = new Set<string>();
  const comboKey = (combo: Move[]) =>
    combo
      .map((m) => m.change.label)
      .sort()
      .join(' + ');
  const found: Fix[] = [];
  for (const depth of [1, 2, 3] as const) {
    if (depth === 3 && found.length > 0) break;
    for (const combo of combosOf(all, depth)) {
      const subsets =
        combo.length === 1 ? [] : combo.map((_, i) => combo.filter((__, j) => j !== i));
      if (combo.length === 2 && combo.some((m) => fitting.has(comboKey([m])))) continue;
      if (subsets.some((sub) => fitting.has(comboKey(sub)))) continue;
      const f = evaluate(combo);
      if (!f) continue;
      fitting.add(comboKey(combo));
      found.push(f);
      result.depth = depth;
    }
  }
  result.fixes = found.sort(rank).slice(0, MAX_FIXES);
  return result;
}
