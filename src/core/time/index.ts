/**
 * The time model: seconds per training step and decode tokens/s, phase by phase. Each phase is timed at
 * its real limit (FLOPs at an achievable rate for the GPU, dtype and matmul shape, or bytes at memory /
 * link / host bandwidth, whichever is larger) plus fixed per-kernel and per-step overheads, and
 * communication is hidden behind compute where the engine overlaps it. `estimate` and `plan` both call
 * `trainWork` + `trainStep` (or `decodeStep`): one model, two callers.
 *
 * Pure: no I/O. Constants cite their source in one line; "assumed" marks engineering judgement.
 */
import type { Arch } from '../model/arch.js';
import { OPTIMIZER_PROFILES } from '../engines/optimizers.js';
import { FRAMEWORKS } from '../memory/frameworks.js';
import { decodeCacheBytes, kvElementBytes } from '../memory/kv-layout.js';
import { FLOAT_BYTES, valueBytes } from '../model/dtypes.js';
import { ligerChunkRows, ligerPatches } from '../engines/hf/liger.js';
import { shapeFactor } from './shape.js';
import { towerTime } from './vision.js';
import { dmmvResidency, dmmvTailSeconds, type MatVec } from './matvec-tail.js';
import type { Gpu } from '../../schema/gpu.js';
import {
  isGguf,
  meanContextOf,
  promptTokensOf,
  type EstimateOptions,
} from '../../schema/estimate.js';
import {
  QUANT_FORMATS_FOR,
  type Interconnect,
  type QuantFormat,
  type TimeOptions,
} from '../../schema/time.js';

// ---------------------------------------------------------------------------------------------
// Options the time model reads beside the estimate contract (docs/DESIGN.md "Time").

export {
  DEFAULT_INTER_NODE_GBPS,
  QUANT_FORMATS,
  QUANT_FORMATS_FOR,
  defaultTimeOptions,
  type Interconnect,
  type QuantFormat,
  type TimeOptions,
} from '../../schema/time.js';

/** The engine's usual kernel family for a quantized dtype (its memory profile, engines/<engine>/memory.ts). */
export function defaultQuantFormat(o: EstimateOptions): QuantFormat | null {
  if (!(o.weights in QUANT_FORMATS_FOR)) return null;
  const fw = FRAMEWORKS[o.framework];
  const own = fw.quantFormatFor?.[o.weights];
  if (own) return own;
  if (isGguf(o.weights)) return 'gguf';
  // fp8 / FP4 weights run through an engine's own kernels only (else timed as their bytes at full bandwidth).
  if (o.weights === 'fp8' || o.weights === 'mxfp4' || o.weights === 'nvfp4') return null;
  return o.weights === 'int4' ? fw.int4QuantFormat : fw.quantFormat;
}

// ---------------------------------------------------------------------------------------------
// Hardware facts (from catalogs/gpus), per GPU and rig.

/** Per-GPU rates the phases need, already scaled by the power limit. */
export interface GpuRates {
  /** Achievable dense 16-bit tensor FLOP/s on large GEMMs. */
  gemm16: number;
  /** Achievable fp32 FLOP/s (no TF32: PyTorch's default, torch.backends.cuda.matmul.allow_tf32=False). */
  gemm32: number;
  /** Achievable FLOP/s of fused (flash) attention. */
  attn: number;
  /** Achievable memory bandwidth, B/s. */
  mem: number;
  /** Dense 16-bit peak at the power limit (MFU denominator). */
  peak16: number;
  /** Collective bus bandwidth within a node for a group of 2 and of more GPUs, B/s. */
  intraPair: number;
  intraMany: number;
  /** Host link (PCIe) per GPU, B/s. */
  host: number;
  interNode: number;
  gpusPerNode: number;
  hopper: boolean;
  /** FP8 tensor cores (compute capability 8.9+): W8A8 GEMMs run at twice the 16-bit rate. */
  fp8: boolean;
  /** Compute capability (0: not CUDA): which kernels a serving engine picks. */
  cc: number;
  /** Dense 16-bit TFLOPS: the catalog spec, and what the card sustains at its power (power wall, limit). */
  spec16: number;
  sustained16: number;
  /** llama.cpp dmmv block slots and DRAM latency (matvec-tail.ts); null where the card is not covered. */
  dmmv: { slots: number; latency: number } | null;
}

// Large bf16 GEMMs of transformer shapes reach ~75-85% of the dense peak on A100 (~250 of 312 TFLOPS, NVIDIA
// "Matrix Multiplication Background", https://docs.nvidia.com/deeplearning/performance/dl-performance-matrix-multiplication/);
// H100 SXM cuBLAS bf16 ~600-700 of 989 TFLOPS (clocks drop under sustained tensor load): 0.8 / 0.65.
const GEMM_EFF_AMPERE = 0.8;
const GEMM_EFF_HOPPER = 0.65;
// ROCm hipBLASLt reaches about half of MI300X's dense peak in practice (SemiAnalysis MI300X vs H100, 2024): assumed 0.55.
const GEMM_EFF_AMD = 0.55;
// Apple MPS: no published tensor-core path; assumed 0.5 of the fp32 rate.
const GEMM_EFF_APPLE = 0.5;
// FlashAttention-2 reaches 50-73% of peak on A100 (arXiv:2307.08691 abstract) and only 35% on H100
// (FlashAttention-3, arXiv:2407.08608 abstract); PyTorch SDPA dispatches to the same FA2 kernels.
const ATTN_EFF_AMPERE = 0.55;
const ATTN_EFF_HOPPER = 0.35;
// Streaming kernels reach ~80-90% of peak DRAM bandwidth (STREAM-like copies; Databricks MBU 0.5-0.8 end to end
// for decode, https://www.databricks.com/blog/llm-inference-performance-engineering-best-practices): assumed 0.85.
const MEM_EFF = 0.85;
// NCCL all-reduce bus bandwidth ~ 0.75-0.8 of the per-direction NVLink rate (nccl-tests on DGX A100 ~230 of
// 300 GB/s); Calculon a100_80g.json uses 0.6 NVLink / 0.9 InfiniBand.
const NVLINK_EFF = 0.75;
const NET_EFF = 0.9;
// PCIe DMA reaches ~80% of the x16 link rate (25-26 of 32 GB/s on Gen4, bandwidthTest): assumed 0.8.
const PCIE_EFF = 0.8;

/** PCIe x16 GB/s per direction by generation. */
export function pcieGBps(pcie: string): number {
  const m = /PCIe\s*(\d)/i.exec(pcie);
  const gen = m ? Number(m[1]) : 4;
  const lanes = /x8\b/i.test(pcie) ? 0.5 : 1;
  return (gen >= 6 ? 128 : gen === 5 ? 64 : gen === 4 ? 32 : gen === 3 ? 16 : 8) * lanes;
}

/** NVLink through NVSwitch joins the whole node (SXM / OAM boards); bridges join pairs of cards. */
export const nvSwitched = (g: Gpu): boolean => /SXM|OAM|superchip/i.test(g.formFactor ?? '');

/**
 * Throughput kept under a GPU power limit (fraction of board power), by what bounds the work.
 * Compute-bound: Puget 4x3090 at 280/350 W keeps >95%; qwertyforce 3090 ViT: 0.58 -> 0.90
 * (https://www.pugetsystems.com/labs/hpc/quad-rtx3090-gpu-wattage-limited-maxq-tensorflow-performance-1974/,
 * https://blog.qwertyforce.dev/posts/optimal_power_limit). Bandwidth-bound decode tolerates deeper caps
 * (RTX 3090 llama.cpp at 280 W: <1% loss, https://jeanfbrito.github.io). Linear between rows.
 */
const POWER_CURVE_COMPUTE = [0.3, 0.45, 0.5, 0.75, 0.6, 0.85, 0.7, 0.91, 0.85, 0.965, 1, 1];
const POWER_CURVE_MEMORY = [0.3, 0.6, 0.5, 0.85, 0.6, 0.925, 0.7, 0.955, 0.85, 1, 1, 1];

export function powerKeep(fraction: number, boundBy: 'compute' | 'memory'): number {
  const t = boundBy === 'compute' ? POWER_CURVE_COMPUTE : POWER_CURVE_MEMORY;
  if (fraction >= 1) return 1;
  if (fraction <= t[0]!) return t[1]!;
  for (let i = 2; i < t.length; i += 2) {
    const x = t[i]!;
    if (fraction <= x) {
      const x0 = t[i - 2]!;
      const y0 = t[i - 1]!;
      return y0 + ((t[i + 1]! - y0) * (fraction - x0)) / (x - x0);
    }
  }
  return 1;
}

/**
 * Sustained tensor throughput per watt of board power of each architecture, from its flagship at spec: a card
 * whose spec TFLOPS exceed board power x this ratio cannot hold its boost clock under GEMM load (workstation
 * and low-power parts). Datacenter flagships are specified at the rate they train at. For the GeForce dies
 * (GA102, AD102, GB202) the flagship's basis is its dense bf16 rate with fp32 accumulation, the rate PyTorch's
 * bf16 matmuls run at on GeForce and the one our 3090/4090 throughput cases are matched at: the professional
 * cards on those dies are specified at twice that per clock but get no more power per FLOP. In the fsdp_qlora
 * benchmark an RTX 6000 Ada (300 W, 364 TFLOPS spec) trained Llama-2-70B QLoRA at 179-181 tokens/s per GPU, a
 * 4090 (450 W, 165 TFLOPS spec) the same model at 238 (github.com/AnswerDotAI/fsdp_qlora benchmarks_03_2024.md).
 */
const TFLOPS_PER_WATT: readonly [RegExp, number][] = [
  [/GA100/, 312 / 400], // A100 SXM 312 TFLOPS at 400 W (A100 datasheet)
  [/GA10[2-7]/, 71 / 350], // RTX 3090: 71 TFLOPS bf16, fp32 accumulate, at 350 W (GA102 whitepaper)
  [/Ada Lovelace/, 165.2 / 450], // RTX 4090: 165 TFLOPS bf16, fp32 accumulate, at 450 W (Ada whitepaper)
  [/Hopper/, 989.4 / 700], // H100 SXM: 989 TFLOPS bf16 at 700 W (H100 datasheet)
  [/Blackwell \(GB2/, 209.5 / 575], // RTX 5090: 209.5 TFLOPS bf16, fp32 accumulate, at 575 W (Blackwell whitepaper)
  [/Blackwell/, 2250 / 1000], // B200: 2.25 PFLOPS bf16 at 1000 W (HGX B200 datasheet)
  [/Volta/, 125 / 300], // V100 SXM2: 125 TFLOPS at 300 W
  [/Turing/, 130 / 280], // Titan RTX: 130 TFLOPS at 280 W (full-rate fp32 accumulate)
];

// Flagships hold their spec clock on GEMMs at ~85% of board power (H100 SXM LLM training draws ~550-650 of 700 W
// in public nvidia-smi logs): assumed 1/0.85.
const FLAGSHIP_HEADROOM = 1 / 0.85;

/** Dense 16-bit TFLOPS a card can sustain at its board power (or at `fraction` of it under a power limit). */
function sustainedTflops(g: Gpu, spec: number, fraction = 1): number {
  if (g.vendor !== 'nvidia' || !g.boardPowerW) return spec;
  for (const [re, perW] of TFLOPS_PER_WATT)
    if (re.test(g.architecture))
      return Math.min(spec, FLAGSHIP_HEADROOM * perW * g.boardPowerW * fraction);
  return spec;
}

function isHopperClass(g: Gpu): boolean {
  return /Hopper|Blackwell \(GB1/i.test(g.architecture);
}

/**
 * The link assumed when --interconnect is not given: NVLink where it is part of the server (SXM boards,
 * NVSwitch, NVL pairs sold bridged); PCIe for consumer and workstation cards, whose NVLink bridge is an
 * optional accessory most multi-card rigs lack (the RTX 40 series and RTX 6000 Ada dropped it altogether).
 */
export function defaultInterconnect(g: Gpu): Interconnect {
  if (!g.interconnect.nvlinkGBps) return 'pcie';
  return g.category === 'consumer' || g.category === 'workstation' ? 'pcie' : 'nvlink';
}

/** Rates of one GPU on one rig at a power limit. */
export function gpuRates(g: Gpu, t: TimeOptions): GpuRates {
  const hopper = isHopperClass(g);
  const eff =
    g.vendor === 'apple'
      ? GEMM_EFF_APPLE
      : g.vendor === 'amd'
        ? GEMM_EFF_AMD
        : hopper
          ? GEMM_EFF_HOPPER
          : GEMM_EFF_AMPERE;
  const tf = g.tflops;
  // Apple catalog entries carry no TFLOPS: ~27 fp32 TFLOPS class (M2 Ultra GPU spec), assumed for all.
  const spec16 = tf.bf16 ?? tf.fp16 ?? tf.fp32 ?? 27;
  const p16 = sustainedTflops(g, spec16) * 1e12;
  const p32 = (tf.fp32 ?? tf.bf16 ?? 27) * 1e12;
  // Under a power limit a card keeps the share of its throughput the published curve gives, and never more
  // than its power wall allows: a flagship that needs its board power for spec clocks (sustainedTflops) loses
  // in proportion below that (H100 at torchtitan's default 500 W of 700 W keeps 0.84, not the curve's 0.92).
  const kc = Math.min(
    powerKeep(t.powerLimit, 'compute'),
    sustainedTflops(g, spec16, t.powerLimit) / sustainedTflops(g, spec16),
  );
  const km = powerKeep(t.powerLimit, 'memory');
  const pcie = pcieGBps(g.interconnect.pcie) * 1e9;
  const nvlink = (g.interconnect.nvlinkGBps ?? 0) * 0.5e9; // spec totals are bidirectional
  const useNvlink = (t.interconnect ?? defaultInterconnect(g)) === 'nvlink' && nvlink > 0;
  // Without P2P NCCL bounces through host memory: about half the PCIe rate (NVIDIA/nccl issue #1127,
  // https://github.com/NVIDIA/nccl/issues/1127). GeForce cards have no PCIe P2P in the stock driver; a
  // GeForce `p2p` is the NVLink bridge's (catalog rtx-3090 notes), so it does not apply over PCIe.
  const pcieP2p = g.interconnect.p2p && g.category !== 'consumer';
  const pcieBus = (pcieP2p ? pcie : pcie / 2) * PCIE_EFF;
  const nvBus = nvlink * NVLINK_EFF;
  return {
    gemm16: p16 * eff * kc,
    gemm32: p32 * eff * kc,
    attn: p16 * (hopper ? ATTN_EFF_HOPPER : ATTN_EFF_AMPERE) * kc,
    mem: g.memoryBandwidthGBps * 1e9 * MEM_EFF * km,
    peak16: spec16 * 1e12 * kc,
    spec16,
    sustained16: (p16 * kc) / 1e12,
    intraPair: useNvlink ? nvBus : pcieBus,
    // Consumer/workstation NVLink bridges join pairs: a ring over 3+ cards crosses PCIe.
    intraMany: useNvlink && nvSwitched(g) ? nvBus : pcieBus,
    host: pcie * PCIE_EFF,
    interNode: t.interNodeGBps * 1e9 * NET_EFF,
    gpusPerNode: t.gpusPerNode,
    hopper,
    fp8: g.supportsFp8 === true,
    cc: g.computeCapability ? Number(g.computeCapability) : 0,
    dmmv: dmmvResidency(g),
  };
}

// ---------------------------------------------------------------------------------------------
// Model facts (GPU-independent, computed once per model).

export interface ModelFacts {
  layers: number;
  hidden: number;
  /** heads x head dim (query width). */
  attnWidth: number;
  /** kv heads x head dim. */
  kvWidth: number;
  heads: number;
  ffn: number;
  gated: boolean;
  causal: boolean;
  rms: boolean;
  norms: number;
  vocab: number;
  /** Linear weight elements a token passes through (MoE: topK experts). */
  linearActive: number;
  /** All linear weight elements (what is stored / gathered). */
  linearTotal: number;
  /** Routed-expert weights per layer (one expert) and the expert counts; 0 for dense. */
  expertWeightsPerLayer: number;
  experts: number;
  topK: number;
  /** Layers with routed experts, the routed linears per expert (gate, up, down) and one expert's width. */
  moeLayers: number;
  expertLinears: number;
  expertFfn: number;
  /** Linear modules per layer (kernel counts, LLM.int8 overhead). */
  linearsPerLayer: number;
  /** Output-projection matmul weights (vocab x hidden, tied or not; 0 for encoders). */
  lmHead: number;
  /** Parameters of the model (all) and active per token. */
  total: number;
  active: number;
  /** Liger patches this model type (use_liger_kernel is a no-op otherwise: engines/hf/liger.ts). */
  liger: boolean;
  /** Layers with softmax attention (all but linear-attention / SSM layers). */
  attnLayers: number;
  /** Linear-attention layers: FLOPs per token (all of them). */
  recurrentFlopsPerToken: number;
  /** The architecture whose cache layout decode reads (kv-layout.ts decodeCacheBytes). */
  arch: Arch;
  /** The config's model_type (per-model-class kernels: the engine profile's moeDense). */
  modelType: string;
}

export function modelFacts(arch: Arch): ModelFacts {
  let layers = 0;
  let linearActive = 0;
  let linearTotal = 0;
  let expertW = 0;
  let experts = 0;
  let topK = 0;
  let linearsPerLayer = 0;
  let otherTotal = 0;
  let moeLayers = 0;
  let expertLinears = 0;
  let expertFfn = 0;
  let recurrentLayers = 0;
  let recurrentFlops = 0;
  for (const g of arch.groups) {
    otherTotal += g.count * g.otherParamsPerLayer;
    if (g.name === 'vision') {
      // The vision tower runs over image patches, not the tokens: stored, not per token (time/vision.ts).
      for (const l of g.linears) linearTotal += g.count * l.inFeatures * l.outFeatures * l.copies;
      continue;
    }
    layers += g.count;
    const r = g.recurrent;
    if (r) {
      recurrentLayers += g.count;
      // Chunkwise linear attention: intra-chunk QK^T and AV over C tokens, inter-chunk q.S and the k^T v state
      // update, 2 H (C (dk + dv) + 2 dk dv) FLOPs per token (Yang et al. 2024, GLA §3.2: O(LCd + Ld^2)); Mamba2's
      // chunked SSD is the same form with d_state as dk and head_dim as dv (Dao & Gu 2024, arXiv 2405.21060 §6).
      recurrentFlops +=
        g.count * 2 * r.heads * (r.chunk * (r.keyDim + r.valueDim) + 2 * r.keyDim * r.valueDim);
    }
    for (const l of g.linears) {
      const w = l.inFeatures * l.outFeatures;
      linearActive += g.count * w * l.activeCopies;
      linearTotal += g.count * w * l.copies;
      // One expert's weights summed over this group's layers (averaged per MoE layer below).
      if (l.copies > 1) expertW += g.count * w;
      linearsPerLayer = Math.max(linearsPerLayer, g.linears.length);
    }
    if (g.experts > 1) {
      experts = g.experts;
      topK = g.topK;
      moeLayers += g.count;
      expertLinears = g.linears.filter((l) => l.copies > 1).length;
      expertFfn = g.ffn;
    }
  }
  const g0 = arch.groups[0];
  const lmHead = arch.kind === 'encoder' ? 0 : arch.vocab * arch.hidden;
  const total = arch.embedParams + arch.lmHeadParams + linearTotal + otherTotal + arch.otherParams;
  return {
    layers,
    hidden: arch.hidden,
    attnWidth: g0 ? g0.heads * g0.headDim : arch.hidden,
    kvWidth: g0 ? g0.kvHeads * g0.headDim : arch.hidden,
    heads: g0?.heads ?? 1,
    ffn: g0?.ffn ?? 4 * arch.hidden,
    gated: g0?.gated ?? false,
    causal: g0?.causal ?? true,
    rms: g0?.norm === 'rms',
    norms: g0?.normsPerLayer ?? 2,
    vocab: arch.vocab,
    linearActive,
    linearTotal,
    // Per MoE layer and expert: an architecture split into several layer groups (gpt-oss's sliding and full
    // attention layers) must not count each group's experts once per group.
    expertWeightsPerLayer: moeLayers > 0 ? expertW / moeLayers : 0,
    experts,
    topK,
    moeLayers,
    expertLinears,
    expertFfn,
    linearsPerLayer,
    lmHead,
    total,
    active: total - (linearTotal - linearActive),
    liger: ligerPatches(arch.modelType),
    modelType: arch.modelType,
    attnLayers: layers - recurrentLayers,
    recurrentFlopsPerToken: recurrentFlops,
    arch,
  };
}

// ---------------------------------------------------------------------------------------------
// Phases.

export const TRAIN_PHASES = [
  'forward',
  'backward',
  'recompute',
  'dequantize',
  'optimizer',
  'gradient-reduce',
  'parameter-gather',
  'tensor-parallel',
  'pipeline-bubble',
  'offload',
  'overhead',
] as const;
export const DECODE_PHASES = [
  'prefill',
  'decode-weights',
  'decode-kv',
  'tensor-parallel',
  'overhead',
] as const;
export type TrainPhase = (typeof TRAIN_PHASES)[number];
export type DecodePhase = (typeof DECODE_PHASES)[number];
export type Bound = 'compute' | 'memory' | 'communication' | 'host';

/** Bytes per stored weight element by dtype: the packed value, plus (4-bit formats) an fp32 absmax per
 * block of 64 (QLoRA §2: 32/64 bits per parameter). */
export function weightBytes(dtype: EstimateOptions['weights']): number {
  const v = valueBytes(dtype);
  // MXFP4: one byte of scale per 32 values; NVFP4: one per 16 (dtypes.ts); GGUF bpw include their scales.
  if (dtype === 'mxfp4') return v + 1 / 32;
  if (dtype === 'nvfp4') return v + 1 / 16;
  return v === 0.5 ? v + 4 / 64 : v;
}

// HF eager decoder layer: ~45 PyTorch ops in forward (RMSNorm alone is 7: upcast, pow, mean, add, rsqrt,
// mul, downcast; rotary ~10); backward launches about twice as many (assumed from the modeling_llama.py code).
const OPS_PER_LAYER_EAGER = 45;
// torch.compile fuses the pointwise chains: ~10 kernels per layer (the 7 GEMMs, attention, 2 fused
// norm/residual/activation kernels), counted from Inductor output of a Llama layer (assumed).
const OPS_PER_LAYER_COMPILED = 12;
// Liger replaces each RMSNorm (7 ops) and the rotary embedding (~10) with one Triton kernel each and SiLU*up
// (2) with one: 45 - 2*6 - 9 - 1 = 23 (counted from liger_kernel/transformers/monkey_patch.py
// apply_liger_kernel_to_llama, commit ead96b6; residual adds and layout copies stay eager).
const OPS_PER_LAYER_LIGER = 23;
// PyTorch eager dispatch costs ~10 µs of CPU per op (python + dispatcher + launch); HF generate of
// Llama-7B fp16 on an RTX 3090 takes 32.9 ms/token where 13.5 GB at 936 GB/s is ~17 ms
// (bitsandbytes issue #347, https://github.com/bitsandbytes-foundation/bitsandbytes/issues/347).
const EAGER_OP_SECONDS = 10e-6;
// A CUDA kernel launch inside a CUDA graph still leaves ~2-3 µs of GPU idle between small kernels
// (Llama-3.1-8B decode step on H100: 8.4 ms eager vs 5.1 ms as a CUDA graph, https://cloudai.pt/tag/cuda-graphs/).
const GRAPH_KERNEL_SECONDS = 2.5e-6;
// A compiled training step is not one CUDA graph (torch.compile's default mode launches each Inductor kernel,
// and autograd runs forward and backward graphs apart): twice the decode gap per kernel (assumed).
const GRAPH_TRAIN_KERNEL_FACTOR = 2;
// fp32 (no TF32) attention runs unfused math (SDPA has no fp32 flash kernel): half the fp32 GEMM rate (assumed).
const FP32_ATTN_SHARE = 0.5;
// Elementwise traffic per token per layer (forward), in hidden-sized 16-bit tensors read+written outside
// the GEMMs. Eager HF Llama: RMSNorm x2 (~8 passes each, fp32 upcast), residual adds, rotary (~6 passes
// over q and k), SiLU*up (3 passes over ffn), layout copies; fused (compiled / fused-norm stacks): one
// pass per norm, fused rotary and activation. Counted from transformers modeling_llama.py (assumed).
function elemBytesPerTokenLayer(
  m: ModelFacts,
  compiled: boolean,
  tp: number,
  elemSize: number,
  liger = false,
): number {
  const h = m.hidden;
  const qk = (m.attnWidth + m.kvWidth) / tp;
  const ffn = (m.ffn * (m.experts > 1 ? m.topK : 1)) / tp;
  // Liger's RMSNorm, SwiGLU and RoPE kernels read and write each tensor once, like the compiled ones
  // (liger_kernel/ops/rms_norm.py, swiglu.py, rope.py at commit ead96b6); residual adds and copies stay eager.
  const fusedOps = compiled || liger;
  const normPasses = fusedOps ? 2 : m.rms ? 8 : 2;
  const norms = m.norms * normPasses * h;
  const residual = compiled ? h : 2 * 3 * h;
  const act = m.gated ? (fusedOps ? 3 : 5) * ffn : (compiled ? 2 : 2) * ffn;
  const rotary = m.rms ? (fusedOps ? 2 : 6) * qk : 0;
  const layout = compiled ? 0 : 2 * (m.attnWidth / tp + (2 * m.kvWidth) / tp);
  return elemSize * (norms + residual + act + rotary + layout);
}

// The loss reads the logits in fp32 several times (upcast, log-softmax, gather, backward): ~16 B per
// vocabulary entry per token unfused, ~8 B when chunked/compiled (assumed from the HF loss code).
const LOSS_BYTES_EAGER = 16;
const LOSS_BYTES_FUSED = 8;
// Liger's fused linear cross-entropy with a trained output layer adds each chunk's V x H weight gradient into
// grad_weight: torch.mm (write 2 B), .float() (read 2, write 4), += into the 16-bit grad_weight (read 4 + 2,
// write 2) = 14 B per element per chunk; fp32 grad_weight uses addmm in place (read 4, write 4) = 8 B
// (ops/fused_linear_cross_entropy.py, commit ead96b6).
const LIGER_HEAD_GRAD_BYTES_16 = 14;
const LIGER_HEAD_GRAD_BYTES_32 = 8;

// bitsandbytes NF4 training dequantizes each frozen weight to bf16 before the matmul, per call: read 0.5 B,
// write 2 B (bitsandbytes functional.dequantize_4bit); torchao NF4 without compile runs ~4 unfused torch ops
// (PEFT 1,410 vs torchtune 465 tok/s on a 4090, github.com/BenjaminBossan/peft-experiments).
const DEQUANT_BYTES_FUSED = 2.5;
const DEQUANT_BYTES_EAGER_TORCHAO = 10;
// LLM.int8 (bitsandbytes int8): per linear call, activation quantization, outlier split, int8 GEMM and fp16
// outlier GEMM add ~8 small kernels; measured 3.7-6.7x slower than fp16 at 7-13B (T5-11B 43.5 vs 11.7 ms/token,
// https://huggingface.co/blog/hf-bitsandbytes-integration; Llama-7B 154.6 vs 32.9 ms, bitsandbytes issue
// #347; Baichuan2-13B 9.5 vs 35 tok/s, github.com/baichuan-inc/Baichuan2/issues/272): ~250 µs per linear call.
const INT8_LINEAR_SECONDS = 250e-6;
// LLM.int8 training: the forward (and recompute) matmuls of frozen int8 weights run through the int8 path
// (activation quantization, outlier split, igemmlt with layout transforms, fp16 outlier GEMM) while the
// input-gradient matmul uses the dequantized weight. LoRA steps on int8 weights are measured 2-3x slower
// than on fp16 at 7B (A5000, github.com/bitsandbytes-foundation/bitsandbytes/issues/465; >2x in
// github.com/PhoebusSi/Alpaca-CoT/issues/26), which a forward GEMM ~4x slower than fp16 reproduces:
// (4F + F) / 2F = 2.5 without recompute, (8F + F) / 3F = 3 with it.
const INT8_FORWARD_GEMM_SLOWDOWN = 4;
// bitsandbytes 4-bit layers add ~4 python-level ops per linear call (quant-state lookups, dtype casts).
const BNB4_EXTRA_OPS = 4;
// Double quantization dequantizes the absmax first in every 4-bit call: dequantize_blockwise (an empty() and
// its kernel) then `absmax += offset` (bitsandbytes 0.41 functional.py gemv_4bit / dequantize_4bit).
const BNB4_DQ_EXTRA_OPS = 3;
const bnb4Ops = (o: EstimateOptions): number =>
  BNB4_EXTRA_OPS + (o.doubleQuant ? BNB4_DQ_EXTRA_OPS : 0);

// Optimizer step traffic per trainable parameter: each optimizer's row (engines/optimizers.ts stepTraffic).
const optimizerBytes = (o: EstimateOptions): number =>
  OPTIMIZER_PROFILES[o.optimizer].stepTraffic(FLOAT_BYTES[o.optimizerStates]);
// DeepSpeedCPUAdam / torch fused CPU AdamW stream ~28 B per parameter through host memory; a server node
// sustains ~100 GB/s for it (ZeRO-Offload, arXiv:2101.06840 §5: CPU-Adam 5-7x over PyTorch, ~1 s per
// billion-scale step on a DGX-2 node), shared by the node's ranks: assumed 100 GB/s per node.
const HOST_ADAM_BYTES_PER_S = 100e9;
// FSDP CPU offload and torchtune step with torch.optim on the CPU, not DeepSpeedCPUAdam: the same paper
// measures its CPU-Adam 5-7x faster than PyTorch's CPU Adam (§5), so a plain (for-loop / foreach) torch
// step runs ~6x slower. AdamW is launched fused (Trainer adamw_torch_fused, torchtune fused: True), and
// fused AdamW runs vectorized on the CPU too (https://pytorch.org/docs/stable/generated/torch.optim.AdamW.html,
// `fused`: CUDA, CPU, MPS); torchtune's 70B full fine-tune "uses CPU offload with fused optimizer" at
// 196 tokens/s per A100 (torchtune README), which a 6x slower step could not reach.
const TORCH_CPU_ADAM_SLOWDOWN = 6;
const fusedOnHost = (o: EstimateOptions) => o.framework === 'deepspeed' || o.optimizer === 'adamw';
// DDP/FSDP overlap gradient communication with backward; the last bucket (25 MB, torch DDP
// bucket_cap_mb default, https://pytorch.org/docs/stable/generated/torch.nn.parallel.DistributedDataParallel.html)
// is exposed after the last layer's backward.
const LAST_BUCKET_BYTES = 25e6;
// Share of the SMs an overlapped NCCL collective occupies: 24 CTAs of an H100's 132 SMs (nsys trace in
// https://forums.developer.nvidia.com/t/compute-communication-overlap-causes-severe-gemm-performance-degradation-because-of-tail-effect/337991).
const NCCL_SM_SHARE = 24 / 132;
// NCCL small-message all-reduce latency inside an NVLink node ~ 20-30 µs (nccl-tests all_reduce_perf on
// 8x A100, 8 B-64 KB rows); PCIe rings ~ 2x (assumed).
const ALLREDUCE_LATENCY_NVLINK = 25e-6;
const ALLREDUCE_LATENCY_PCIE = 50e-6;
// MoE experts run in a Python loop (engine profile moeDispatch 'loop'): each expert holding a routed token costs
// its own kernels. transformers 4.57 Qwen3MoeSparseMoeBlock / MixtralSparseMoeBlock loop body: torch.where
// (nonzero), the hidden-state gather, gate/up/down GEMMs, activation, gate*up, routing-weight gather and
// multiply, dtype cast, index_add_: 10 ops (modeling_qwen3_moe.py @00d4b3d; torchtune/litgpt loops are alike;
// transformers 5.x keeps it as experts_implementation="eager", its default being grouped_mm: engines/hf/memory.ts).
const MOE_LOOP_OPS_PER_EXPERT = 10;
// PEFT lora.Linear.forward per adapted linear: cast x to the adapter dtype, lora_A, lora_B, x scaling, add to
// the base output (Linear.forward, https://github.com/huggingface/peft/blob/main/src/peft/tuners/lora/layer.py):
// 5 ops per adapted expert linear.
const LORA_OPS_PER_LINEAR = 5;
// The loop's torch.where(mask) is torch.nonzero(as_tuple=True), which on CUDA "causes host-device
// synchronization" (https://pytorch.org/docs/stable/generated/torch.nonzero.html): the CPU cannot run ahead, so
// each expert's dispatch (EAGER_OP_SECONDS per op) adds to its GPU work in forward. Autograd's backward replays
// saved indices without a sync: there dispatch (about twice the forward ops) overlaps the GPU as for dense ops.

// PEFT lora.ParamWrapper (target_parameters on fused 3-D experts; peft v0.20.0 tuners/lora/layer.py @a5526d27):
// each forward builds ΔW = einsum(B, A) for every expert (2·r FLOPs per weight, written once) and the
// parametrized W + ΔW (reads W and ΔW, writes W'), so 4 weight-sized passes in the compute dtype; W' needs a
// gradient, so the grouped GEMM's backward also computes its weight gradient (the frozen-weight GEMM FLOPs
// again), written once and read by the einsum's two gradients (4·r FLOPs per weight): 3 passes.
const PARAM_WRAPPER_FWD_PASSES = 4;
const PARAM_WRAPPER_BWD_PASSES = 3;

// Fixed per optimizer step: data loader hand-off, logging, zero_grad, scheduler (~20 ms, assumed from
// HF Trainer step overheads).
const STEP_OVERHEAD_SECONDS = 0.02;

/** Everything about one training configuration that does not depend on the GPU (precompute per row). */
export interface TrainWork {
  /** Tokens of one micro-batch on one GPU. */
  tokens: number;
  microBatches: number;
  /** Tokens per optimizer step over all GPUs. */
  tokensPerStep: number;
  gpus: number;
  tp: number;
  pp: number;
  dp: number;
  /** Per micro-batch per GPU. */
  fwdGemmFlops: number;
  fwdAttnFlops: number;
  fwdElemBytes: number;
  fwdOps: number;
  bwdGemmFlops: number;
  bwdAttnFlops: number;
  recompute: number; // fraction of the forward re-run (1 full, attention-only share for selective)
  recomputeAttnOnly: boolean;
  /** GEMM shape factor (small matrices underuse the SMs). */
  shape: number;
  fp32: boolean;
  dequantBytes: number; // per micro-batch per GPU
  dequantSeconds: number; // fixed per micro-batch (LLM.int8 per-linear overhead)
  int8ForwardFlops: number; // LLM.int8 forward/recompute GEMM FLOPs per micro-batch (slower int8 path)
  optimizerBytes: number; // per step per GPU
  optimizerOnHost: boolean;
  hostOptimizerBytes: number; // per step per GPU (shares the node's host bandwidth)
  gradReduceBytes: number; // per step (DDP) or per micro-batch (ZeRO-2/3) per GPU, on the wire
  gradReducePerMicro: boolean;
  gatherBytes: number; // per micro-batch per GPU on the wire (ZeRO-3)
  paramGatherAfterStep: number; // ZeRO-1/2 all-gather of updated params, per step
  offloadBytes: number; // PCIe per micro-batch (parameter offload, activation offload)
  tpBytes: number; // per micro-batch per GPU
  tpCalls: number;
  modelFlopsPerToken: number;
  compiled: boolean;
  /** Layers on one pipeline stage. */
  layers: number;
  /** MoE (0 / 'grouped' for dense): routed-expert GEMM FLOPs per micro-batch (inside fwd/bwdGemmFlops). */
  expertFwdFlops: number;
  expertBwdFlops: number;
  /** Shape factor of one expert's GEMM: its share of the tokens in a loop, the whole batch when grouped. */
  expertShape: number;
  /** Bytes of the hit experts' weights one pass reads (the floor of an under-filled expert GEMM). */
  expertWeightBytes: number;
  /** Host ops of the per-expert loop in one forward (0 when grouped); each forward syncs per expert. */
  moeLoopOps: number;
  moeDispatch: MoeDispatch;
  /** Experts holding at least one routed token, per MoE layer per micro-batch. */
  expertsHit: number;
  /** LoRA through PEFT's ParamWrapper: ΔW / W + ΔW FLOPs and bytes per forward and per backward (0 otherwise). */
  deltaFwdFlops: number;
  deltaFwdBytes: number;
  deltaBwdFlops: number;
  deltaBwdBytes: number;
}

/** Work of one training step (GPU-independent); `t` supplies grad-accum and the quant format. */
/** The layout facts every part of a step's work reads. */
interface WorkLayout {
  tp: number;
  pp: number;
  cp: number;
  dp: number;
  /** Tokens per rank in one micro-batch. */
  tokens: number;
  /** Model shards per rank (tp x pp). */
  shard: number;
  lora: boolean;
  compiled: boolean;
  /** Liger's kernels replace the eager norms, SwiGLU, RoPE and loss (--liger on a patched model type). */
  liger: boolean;
  layersHere: number;
  lmHead: number;
  /** 1 when full (or offloaded) activation checkpointing recomputes every layer's forward. */
  recompute: number;
  /** torch.autocast over fp32 weights (AMP without FSDP mixed precision). */
  autocast: boolean;
  /** LoRA adapter weights per rank. */
  adapterW: number;
  /** Adapter weights a token passes through per rank (MoE: its topK experts' adapters, not all E). */
  adapterActive: number;
}

function workLayout(m: ModelFacts, o: EstimateOptions): WorkLayout {
  const { tp, pp, cp } = o;
  const shard = tp * pp;
  const lora = o.method === 'lora' || o.method === 'qlora';
  const compiled = o.compile || FRAMEWORKS[o.framework].fusedKernels;
  return {
    tp,
    pp,
    cp,
    dp: Math.max(1, Math.floor(o.gpus / (tp * pp * cp))),
    tokens: (o.batch * o.seq) / cp,
    shard,
    lora,
    compiled,
    liger: o.liger && m.liger && !compiled,
    layersHere: m.layers / pp,
    lmHead: m.lmHead / (tp * pp),
    recompute: o.checkpointing === 'full' || o.checkpointing === 'offload' ? 1 : 0,
    // torch.autocast over fp32 weights (AMP without FSDP mixed precision): layer_norm, softmax and the loss
    // run in fp32 and the fp32 residual stream is cast for each linear
    // (https://pytorch.org/docs/stable/amp.html#cuda-ops-that-can-autocast-to-float32): elementwise traffic
    // about half fp32 (3 B per element), and every linear weight is cast fp32 -> 16-bit (read 4 B, write
    // 2 B) in each forward and recompute (autocast's cast cache lives for one forward).
    autocast: o.weights === 'fp32' && o.compute !== 'fp32' && o.zero < 3 && !compiled,
    // LoRA adapters: r x (in + out) per targeted linear; their FLOPs are 6 per weight per token.
    adapterW: lora ? adapterWeights(m, o) / shard : 0,
    adapterActive: lora ? adapterWeights(m, o, true) / shard : 0,
  };
}

/** Matmul FLOPs, attention FLOPs, elementwise bytes and kernel launches of one micro-batch. */
function computeWork(m: ModelFacts, o: EstimateOptions, w: WorkLayout) {
  const { tokens, shard, tp, cp, layersHere, lmHead, compiled } = w;
  const elemSize = o.compute === 'fp32' ? 4 : w.autocast ? 3 : 2;
  const fwdGemmFlops = 2 * tokens * (m.linearActive / shard + lmHead);
  // Causal flash/SDPA kernels skip the masked half of QK^T and PV; eager attention computes it all.
  const causalShare = m.causal && o.attention !== 'eager' ? 0.5 : 1;
  const fwdAttnFlops =
    4 *
      tokens *
      (o.seq / cp) *
      (m.attnWidth / tp) *
      layersHere *
      (m.attnLayers / m.layers) *
      causalShare +
    (tokens * m.recurrentFlopsPerToken * (layersHere / m.layers)) / tp;
  const fusedLoss = o.chunkedLoss || compiled || w.liger;
  const elem =
    tokens * layersHere * elemBytesPerTokenLayer(m, compiled, tp, elemSize, w.liger) +
    (tokens * m.vocab * (fusedLoss ? LOSS_BYTES_FUSED : LOSS_BYTES_EAGER)) / (tp * w.pp) +
    ligerHeadGradBytes(m, o, w);
  // Eager attention materialises b x heads x s x s scores; per score, in bytes of the score dtype c (HF
  // eager_attention_forward, BertSelfAttention): QK^T writes c; the scaling and the mask add each read and
  // write c; softmax reads c and writes fp32 (4), cast back to c (read 4, write c) unless the scores are
  // fp32; dropout reads and writes c plus a 1-byte mask; PV reads c: 10c + 9 B (16-bit), 9c + 5 (fp32).
  const scoreBytes = o.compute === 'fp32' ? 9 * 4 + 5 : 10 * elemSize + 9;
  const eagerScores =
    o.attention === 'eager'
      ? o.batch * (m.heads / tp) * (o.seq / cp) * o.seq * scoreBytes * layersHere
      : 0;
  return {
    fwdGemmFlops: fwdGemmFlops + 2 * tokens * w.adapterActive,
    fwdAttnFlops,
    fwdElemBytes: elem + eagerScores,
    fwdOps:
      layersHere *
      (compiled ? OPS_PER_LAYER_COMPILED : w.liger ? OPS_PER_LAYER_LIGER : OPS_PER_LAYER_EAGER),
    // Backward: input gradients (2 FLOPs/weight/token) always; weight gradients only when trained.
    // FlashAttention backward is 2.5x its forward matmul FLOPs (5 GEMMs vs 2, arXiv:2205.14135 §B).
    bwdGemmFlops:
      (w.lora ? 2 * tokens * (m.linearActive / shard + lmHead) : 2 * fwdGemmFlops) +
      4 * tokens * w.adapterActive,
    bwdAttnFlops: 2.5 * fwdAttnFlops,
  };
}

/** Liger's per-chunk accumulation of the output layer's weight gradient (full fine-tunes only), bytes. */
function ligerHeadGradBytes(m: ModelFacts, o: EstimateOptions, w: WorkLayout): number {
  if (!w.liger || o.method !== 'full' || m.lmHead === 0 || w.pp > 1) return 0;
  const chunks = Math.ceil(w.tokens / ligerChunkRows(w.tokens, m.vocab, m.hidden));
  const perElem = o.weights === 'fp32' ? LIGER_HEAD_GRAD_BYTES_32 : LIGER_HEAD_GRAD_BYTES_16;
  return chunks * m.lmHead * perElem;
}

/** Frozen quantized weights: dequantized per matmul call (forward, recompute, backward input-grad). */
function quantWork(m: ModelFacts, o: EstimateOptions, t: TimeOptions, w: WorkLayout) {
  const passes = 2 + w.recompute;
  const q = t.quantFormat ?? defaultQuantFormat(o);
  let dequantBytes = 0;
  let dequantSeconds = 0;
  let int8ForwardFlops = 0;
  if (
    o.method === 'qlora' ||
    (o.method === 'lora' && !['bf16', 'fp16', 'fp32'].includes(o.weights))
  ) {
    const perElem =
      q === 'torchao' && !w.compiled ? DEQUANT_BYTES_EAGER_TORCHAO : DEQUANT_BYTES_FUSED;
    dequantBytes = (passes * perElem * m.linearTotal) / w.shard;
    if (o.weights === 'int8' && q === 'bnb') {
      dequantSeconds = passes * INT8_LINEAR_SECONDS * m.linearsPerLayer * w.layersHere;
      int8ForwardFlops = (1 + w.recompute) * 2 * w.tokens * (m.linearActive / w.shard);
    } else if (q === 'bnb')
      dequantSeconds = passes * bnb4Ops(o) * EAGER_OP_SECONDS * m.linearsPerLayer * w.layersHere;
  }
  if (w.autocast) dequantBytes += (1 + w.recompute) * 6 * (m.linearTotal / w.shard);
  return { dequantBytes, dequantSeconds, int8ForwardFlops };
}

/** Bytes each rank moves over links per step: gathers, gradient reduces, offload copies, TP all-reduces. */
function commWork(m: ModelFacts, o: EstimateOptions, w: WorkLayout, trainable: number) {
  const { dp, tp, shard, tokens, layersHere, recompute } = w;
  const zero = o.zero;
  const gradDtype = o.weights === 'fp32' || o.masterWeights ? 4 : 2;
  // ZeRO-3 / FSDP FULL_SHARD: all-gather the weights for forward, again for backward, and once more
  // for the recompute of full activation checkpointing (the checkpointed layer's forward re-enters the
  // FSDP unit after reshard_after_forward freed its parameters), every micro-batch (FSDP docs,
  // https://pytorch.org/docs/stable/fsdp.html, ShardingStrategy.FULL_SHARD); FSDP mixed precision
  // gathers in the compute dtype (param_dtype=bf16); quantized QLoRA weights travel packed (fsdp_qlora
  // quant_storage, https://github.com/AnswerDotAI/fsdp_qlora).
  const storeBytes = o.weights === 'fp32' ? (o.compute === 'fp32' ? 4 : 2) : weightBytes(o.weights);
  const wire = (n: number) => (n - 1) / n;
  const gathersPerMicro = 2 + recompute;
  // DDP all-reduce moves 2(n-1)/n of the buffer; reduce-scatter (ZeRO-2/3) (n-1)/n (ZeRO §7).
  const gradBuf = (trainable / shard) * gradDtype;
  // Parameter offload: each rank copies its shard host->device for forward and backward (and grads back).
  let offloadBytes = 0;
  if (o.offload === 'optimizer+params') offloadBytes += (2 * (m.total / shard) * storeBytes) / dp;
  // Activation offload: checkpoints (one hidden state per layer per token) go out and come back.
  if (o.checkpointing === 'offload') offloadBytes += 2 * tokens * layersHere * m.hidden * 2;
  // Megatron TP: 2 all-reduces per layer forward, 2 backward, 2 more when recomputing, of tokens x hidden.
  const tpCalls = tp > 1 ? (4 + 2 * recompute) * layersHere : 0;
  return {
    gatherBytes:
      zero === 3 && dp > 1 ? gathersPerMicro * (m.total / shard) * storeBytes * wire(dp) : 0,
    gradReduceBytes: dp > 1 ? (zero >= 2 ? gradBuf * wire(dp) : 2 * gradBuf * wire(dp)) : 0,
    gradReducePerMicro: zero >= 2,
    paramGatherAfterStep:
      dp > 1 && (zero === 1 || zero === 2) ? (trainable / shard) * 2 * wire(dp) : 0,
    offloadBytes,
    tpCalls,
    tpBytes: tp > 1 ? tpCalls * tokens * m.hidden * 2 * 2 * wire(tp) : 0,
  };
}

export function trainWork(
  m: ModelFacts,
  o: EstimateOptions,
  t: TimeOptions,
  dispatch: MoeDispatch = moeDispatchOf(m, o),
  paramWrapper = FRAMEWORKS[o.framework].expertAdapters === 'param-wrapper',
): TrainWork {
  const w = workLayout(m, o);
  const { tokens, shard } = w;
  // Trainable parameters: the optimizer's states, on the GPU or stepped on the host.
  const trainable = w.lora ? adapterWeights(m, o) : m.total;
  const shardOpt = o.zero >= 1 ? w.dp : 1;
  const optBytes = (optimizerBytes(o) * trainable) / shard / shardOpt;
  const onHost = o.offload !== 'none';
  const hostOpt = onHost ? (28 * trainable) / shard / shardOpt : 0;
  const mfuAttn = 12 * m.layers * o.seq * m.attnWidth; // PaLM App. B: 6N + 12·L·H·Q·T
  const cw = computeWork(m, o, w);
  const qw = quantWork(m, o, t, w);
  const nw = commWork(m, o, w, trainable);
  const ew = expertWork(m, o, w, dispatch, paramWrapper);
  // Written out field by field, not spread: the planner makes one per row, and spreads built each of the
  // first few hundred with a different V8 hidden class (deoptimizing the step-time functions that read them).
  return {
    tokens,
    microBatches: t.gradAccum,
    tokensPerStep: tokens * w.cp * t.gradAccum * w.dp,
    gpus: o.gpus,
    tp: w.tp,
    pp: w.pp,
    dp: w.dp,
    fwdGemmFlops: cw.fwdGemmFlops + ew.extraFwdFlops,
    fwdAttnFlops: cw.fwdAttnFlops,
    fwdElemBytes: cw.fwdElemBytes,
    fwdOps: cw.fwdOps,
    bwdGemmFlops: cw.bwdGemmFlops + ew.extraBwdFlops,
    bwdAttnFlops: cw.bwdAttnFlops,
    recompute: o.checkpointing === 'selective' ? 1 : w.recompute,
    recomputeAttnOnly: o.checkpointing === 'selective',
    shape: shapeFactor(tokens, m.hidden / w.tp),
    fp32: o.compute === 'fp32',
    dequantBytes: qw.dequantBytes,
    dequantSeconds: qw.dequantSeconds,
    int8ForwardFlops: qw.int8ForwardFlops,
    optimizerBytes: onHost ? 0 : optBytes,
    optimizerOnHost: onHost,
    // DeepSpeed steps offloaded states with DeepSpeedCPUAdam, AdamW runs fused; other torch optimizers loop.
    hostOptimizerBytes: fusedOnHost(o) ? hostOpt : hostOpt * TORCH_CPU_ADAM_SLOWDOWN,
    gatherBytes: nw.gatherBytes,
    gradReduceBytes: nw.gradReduceBytes,
    gradReducePerMicro: nw.gradReducePerMicro,
    paramGatherAfterStep: nw.paramGatherAfterStep,
    offloadBytes: nw.offloadBytes,
    tpCalls: nw.tpCalls,
    tpBytes: nw.tpBytes,
    // LoRA/QLoRA need no frozen-weight gradients: 4 FLOPs per frozen weight per token (forward +
    // input gradient) and 6 per adapter weight, so their MFU is not inflated by FLOPs never run.
    modelFlopsPerToken:
      (w.lora
        ? 4 * (m.active - embedOnly(m)) + 6 * w.adapterActive * shard
        : 6 * (m.active - embedOnly(m))) + mfuAttn,
    compiled: w.compiled,
    layers: Math.max(1, w.layersHere),
    expertFwdFlops: ew.fwdFlops,
    expertBwdFlops: ew.bwdFlops,
    expertShape: ew.shape,
    expertWeightBytes: ew.weightBytes,
    moeLoopOps: ew.loopOps,
    moeDispatch: ew.dispatch,
    expertsHit: ew.hit,
    deltaFwdFlops: ew.delta.fwdFlops,
    deltaFwdBytes: ew.delta.fwdBytes,
    deltaBwdFlops: ew.delta.bwdFlops,
    deltaBwdBytes: ew.delta.bwdBytes,
  };
}

/** How the routed experts run: the engine's dispatch, or 'dense' for a model class its library runs densely. */
export type MoeDispatch = 'loop' | 'grouped' | 'dense';
const moeDispatchOf = (m: ModelFacts, o: EstimateOptions): MoeDispatch => {
  const fw = FRAMEWORKS[o.framework];
  return fw.moeDense?.includes(m.modelType) ? 'dense' : fw.moeDispatch;
};

/**
 * Routed experts of one micro-batch: with T tokens each routed to k of E experts, a layer hits
 * E(1 - (1 - k/E)^T) distinct experts (nearly all once T*k >> E), each on T*k/hit rows. A loop runs each hit
 * expert as its own small GEMMs (shape factor of those rows, and a floor of reading the expert's weights);
 * a grouped GEMM runs the layer's experts in one kernel at the batch's shape.
 */
function expertWork(
  m: ModelFacts,
  o: EstimateOptions,
  w: WorkLayout,
  dispatch: MoeDispatch,
  paramWrapper = false,
) {
  if (m.experts <= 1 || m.moeLayers === 0)
    return {
      fwdFlops: 0,
      bwdFlops: 0,
      shape: 1,
      weightBytes: 0,
      loopOps: 0,
      dispatch,
      hit: 0,
      delta: NO_DELTA,
      extraFwdFlops: 0,
      extraBwdFlops: 0,
    };
  const layers = (m.moeLayers * w.layersHere) / m.layers;
  // Dense: every expert runs every token (routed = experts), as one bmm over all experts.
  const dense = dispatch === 'dense';
  const routed = dense ? m.experts : m.topK;
  const hit = dense
    ? m.experts
    : m.experts * (1 - Math.pow(Math.max(0, 1 - m.topK / m.experts), w.tokens));
  const rows = (w.tokens * routed) / hit;
  const fwdFlops = (2 * w.tokens * routed * m.expertWeightsPerLayer * layers) / w.tp;
  // computeWork counts the topK experts a token is routed to; dense runs the others too.
  const denseExtra = dense ? (fwdFlops * (m.experts - m.topK)) / m.experts : 0;
  const adapted = w.lora
    ? o.loraTargets.filter((r) => r === 'gate' || r === 'up' || r === 'down').length
    : 0;
  const loop = dispatch === 'loop';
  const delta = paramWrapper ? deltaWork(m, o, w, layers) : NO_DELTA;
  return {
    fwdFlops,
    // LoRA: input gradients only (frozen experts); full fine-tuning adds the weight gradients, and so does
    // ParamWrapper's W + ΔW (it requires grad) for the adapted share of each expert.
    bwdFlops: w.lora ? fwdFlops * (1 + delta.share) : 2 * fwdFlops,
    // One expert's GEMM is (its rows) x (expert width); grouped, the kernel tiles all routed rows at once.
    shape: shapeFactor(loop || dense ? rows : w.tokens * m.topK, m.expertFfn / w.tp),
    weightBytes: (hit * m.expertWeightsPerLayer * layers * 2) / w.tp,
    loopOps: loop
      ? layers *
        hit *
        (MOE_LOOP_OPS_PER_EXPERT + LORA_OPS_PER_LINEAR * Math.min(adapted, m.expertLinears))
      : 0,
    dispatch,
    hit,
    delta,
    extraFwdFlops: denseExtra,
    // Counted in bwdGemmFlops too (computeWork counts input gradients only for LoRA).
    extraBwdFlops: (w.lora ? fwdFlops * delta.share : 0) + (w.lora ? 1 : 2) * denseExtra,
  };
}

const NO_DELTA = { share: 0, fwdFlops: 0, fwdBytes: 0, bwdFlops: 0, bwdBytes: 0 };

/**
 * ParamWrapper's per-micro-batch work on the adapted expert weights of this rank's MoE layers: the share of
 * each expert's weights adapted (gate_up_proj holds gate and up: one is enough to adapt both), ΔW's einsum
 * and W + ΔW in forward, the weight gradient and the einsum's gradients in backward (PARAM_WRAPPER_* above).
 */
function deltaWork(m: ModelFacts, o: EstimateOptions, w: WorkLayout, layers: number) {
  if (!w.lora || m.expertLinears === 0) return NO_DELTA;
  const gateUp = o.loraTargets.some((r) => r === 'gate' || r === 'up') ? 2 : 0;
  const down = o.loraTargets.includes('down') ? 1 : 0;
  const share = Math.min(1, (gateUp + down) / m.expertLinears);
  if (share === 0) return NO_DELTA;
  const weights = (m.experts * m.expertWeightsPerLayer * share * layers) / w.tp;
  const bytes = o.compute === 'fp32' ? 4 : 2;
  return {
    share,
    fwdFlops: 2 * o.loraRank * weights,
    fwdBytes: PARAM_WRAPPER_FWD_PASSES * bytes * weights,
    bwdFlops: 4 * o.loraRank * weights,
    bwdBytes: PARAM_WRAPPER_BWD_PASSES * bytes * weights,
  };
}

/** Embedding-table parameters that take no matmul (total - linears - lm head - norms). */
function embedOnly(m: ModelFacts): number {
  return Math.max(0, m.active - m.linearActive - m.lmHead - 0);
}

/** LoRA adapter weights: r x (in + out) for every targeted linear role of every layer. */
function adapterWeights(m: ModelFacts, o: EstimateOptions, active = false): number {
  // Targets are roles; approximate each by its share: q,o = hidden²; k,v = hidden x kvWidth; MLP = hidden x ffn.
  const h = m.hidden;
  const r = o.loraRank;
  let per = 0;
  for (const t of o.loraTargets) {
    if (t === 'q') per += r * (h + m.attnWidth);
    else if (t === 'o') per += r * (m.attnWidth + h);
    else if (t === 'k' || t === 'v') per += r * (h + m.kvWidth);
    else if (t === 'gate' || t === 'up' || t === 'down')
      per += r * (h + m.ffn) * (m.experts > 1 ? (active ? m.topK : m.experts) : 1);
  }
  return per * m.layers;
}

/** Result of one step: seconds by phase and the bound. */
export interface StepTime {
  stepSeconds: number;
  /** Seconds per step by phase, TRAIN_PHASES order. */
  phases: Float64Array;
  bound: Bound;
}

const PH = Object.fromEntries(TRAIN_PHASES.map((p, i) => [p, i])) as Record<TrainPhase, number>;

/**
 * Seconds per optimizer step on one GPU type. `phases` (length TRAIN_PHASES) is filled when given (the
 * planner passes none and reads only the total: no allocation per candidate).
 */
/** Per-micro-batch times of one training step (scratch reused across calls: the search loop is hot). */
interface StepTimes {
  gemm: number;
  attnRate: number;
  hostPerOp: number;
  fwdGpu: number;
  fwd: number;
  bwdGpu: number;
  bwd: number;
  rec: number;
  deq: number;
  compute: number;
  dpLink: number;
  gatherT: number;
  perMicroComm: number;
  exposedMicro: number;
  exposedStep: number;
  tpT: number;
  offExposed: number;
  zeroGather: number;
  bubble: number;
  opt: number;
  hostOpt: number;
}

const scratch: StepTimes = {
  gemm: 0,
  attnRate: 0,
  hostPerOp: 0,
  fwdGpu: 0,
  fwd: 0,
  bwdGpu: 0,
  bwd: 0,
  rec: 0,
  deq: 0,
  compute: 0,
  dpLink: 0,
  gatherT: 0,
  perMicroComm: 0,
  exposedMicro: 0,
  exposedStep: 0,
  tpT: 0,
  offExposed: 0,
  zeroGather: 0,
  bubble: 0,
  opt: 0,
  hostOpt: 0,
};

/** Forward, backward, recompute and dequantization of one micro-batch. */
function computeTimes(w: TrainWork, r: GpuRates, s: StepTimes): void {
  const base = w.fp32 ? r.gemm32 : r.gemm16;
  const gemm = base * w.shape;
  const attnRate = w.fp32 ? r.gemm32 * FP32_ATTN_SHARE : r.attn;
  // Routed-expert GEMMs at their own shape, never faster than reading the hit experts' weights.
  const expertRate = base * w.expertShape;
  const expertF = Math.max(w.expertFwdFlops / expertRate, w.expertWeightBytes / r.mem);
  const expertB = Math.max(w.expertBwdFlops / expertRate, w.expertWeightBytes / r.mem);
  // ParamWrapper's ΔW (an einsum over the rank: low arithmetic intensity) and W + ΔW: FLOPs or bytes.
  const deltaF = Math.max(w.deltaFwdFlops / base, w.deltaFwdBytes / r.mem);
  const deltaB = Math.max(w.deltaBwdFlops / base, w.deltaBwdBytes / r.mem);
  const fwdGpu =
    (w.fwdGemmFlops - w.expertFwdFlops) / gemm +
    expertF +
    deltaF +
    w.fwdAttnFlops / attnRate +
    w.fwdElemBytes / r.mem;
  const hostPerOp = w.compiled
    ? GRAPH_KERNEL_SECONDS * GRAPH_TRAIN_KERNEL_FACTOR
    : EAGER_OP_SECONDS;
  // CPU dispatch runs ahead of the GPU; a pass takes the longer of the two. An MoE loop syncs once per
  // expert in forward (torch.nonzero): its dispatch adds to the expert work instead of hiding behind it.
  const loopF = w.moeLoopOps * EAGER_OP_SECONDS;
  const fwd =
    w.moeLoopOps > 0
      ? Math.max(fwdGpu - expertF, w.fwdOps * hostPerOp) + expertF + loopF
      : Math.max(fwdGpu, w.fwdOps * hostPerOp);
  const bwdGpu =
    (w.bwdGemmFlops - w.expertBwdFlops) / gemm +
    expertB +
    deltaB +
    w.bwdAttnFlops / attnRate +
    (2 * w.fwdElemBytes) / r.mem;
  const bwd = Math.max(bwdGpu, 2 * w.fwdOps * hostPerOp + 2 * loopF);
  const rec = w.recomputeAttnOnly ? w.fwdAttnFlops / attnRate : w.recompute * fwd;
  const deq =
    w.dequantBytes / r.mem +
    w.dequantSeconds +
    (w.int8ForwardFlops * (INT8_FORWARD_GEMM_SLOWDOWN - 1)) / gemm;
  s.gemm = gemm;
  s.attnRate = attnRate;
  s.hostPerOp = hostPerOp;
  s.fwdGpu = fwdGpu;
  s.fwd = fwd;
  s.bwdGpu = bwdGpu;
  s.bwd = bwd;
  s.rec = rec;
  s.deq = deq;
  s.compute = fwd + bwd + rec + deq;
}

/** Communication and host transfers of a step, and what of them compute does not hide. */
function commTimes(w: TrainWork, r: GpuRates, s: StepTimes): void {
  const multiNode = w.gpus > r.gpusPerNode;
  const dpGroupInNode = Math.min(w.dp, Math.max(1, Math.floor(r.gpusPerNode / (w.tp * w.pp))));
  const intra = dpGroupInNode <= 2 ? r.intraPair : r.intraMany;
  // Across nodes NCCL runs one ring/tree channel per NIC (one NIC per GPU on DGX/HGX nodes): every GPU
  // of the node carries 1/k of the crossing traffic, so the group's bus bandwidth is the node's k NICs
  // together, capped by the intra-node links (nccl-tests bus bandwidth,
  // https://github.com/NVIDIA/nccl-tests/blob/master/doc/PERFORMANCE.md; DGX A100 8x HDR ~ 180 GB/s busbw).
  const dpLink = multiNode ? Math.min(intra, r.interNode * dpGroupInNode) : intra;
  const latency =
    intra === r.host || dpLink === r.interNode ? ALLREDUCE_LATENCY_PCIE : ALLREDUCE_LATENCY_NVLINK;
  // ZeRO-3 gathers: prefetched one unit ahead, hidden behind that micro-batch's compute except what exceeds it.
  const gatherT = w.gatherBytes / dpLink;
  const gradT = w.gradReduceBytes / dpLink;
  const perMicroComm = gatherT + (w.gradReducePerMicro ? gradT : 0);
  // What compute does not hide, plus what hiding costs: NCCL kernels run on SMs, so while a collective
  // overlaps compute it slows that compute by the SMs it holds (NCCL_SM_SHARE).
  const busy = s.fwd + s.bwd + s.rec;
  s.exposedMicro =
    Math.max(0, perMicroComm - busy) +
    (w.gatherBytes > 0 ? gatherT / w.layers : 0) +
    Math.min(perMicroComm, busy) * NCCL_SM_SHARE;
  // DDP: one all-reduce per step, overlapped with the last micro-batch's backward except the last bucket.
  const stepComm = w.gradReducePerMicro ? 0 : gradT;
  s.exposedStep =
    w.gradReduceBytes > 0 && !w.gradReducePerMicro
      ? Math.max(0, stepComm - s.bwd) +
        Math.min(stepComm, LAST_BUCKET_BYTES / dpLink) +
        latency +
        Math.min(stepComm, s.bwd) * NCCL_SM_SHARE
      : 0;
  const tpLink = w.tp > r.gpusPerNode ? r.interNode : w.tp <= 2 ? r.intraPair : r.intraMany;
  s.tpT = w.tpBytes / tpLink + w.tpCalls * ALLREDUCE_LATENCY_NVLINK;
  // Offload transfers are prefetched behind compute (FSDP CPU offload / torchtune activation offloading).
  s.offExposed = Math.max(0, w.offloadBytes / r.host - s.compute);
  s.dpLink = dpLink;
  s.gatherT = gatherT;
  s.perMicroComm = perMicroComm;
  s.zeroGather = w.paramGatherAfterStep / dpLink;
}

/** The seconds of each phase of the step (shares of `total` that the text and JSON show). */
function fillPhases(phases: Float64Array, w: TrainWork, s: StepTimes): void {
  const m = w.microBatches;
  const gatherShare = w.gatherBytes > 0 ? s.gatherT / s.perMicroComm : 0;
  phases.fill(0);
  phases[PH.forward] = m * s.fwd;
  phases[PH.backward] = m * s.bwd;
  phases[PH.recompute] = m * s.rec;
  phases[PH.dequantize] = m * s.deq;
  phases[PH.optimizer] = s.opt + s.hostOpt;
  phases[PH['gradient-reduce']] =
    s.exposedStep +
    s.zeroGather +
    (w.gradReducePerMicro ? m * Math.max(0, s.exposedMicro - s.exposedMicro * gatherShare) : 0);
  phases[PH['parameter-gather']] = w.gatherBytes > 0 ? m * s.exposedMicro * gatherShare : 0;
  phases[PH['tensor-parallel']] = m * s.tpT;
  phases[PH['pipeline-bubble']] = s.bubble;
  phases[PH.offload] = m * s.offExposed;
  phases[PH.overhead] = STEP_OVERHEAD_SECONDS;
}

/** What bounds the step: compute, memory, communication or the host. */
function boundOfStep(w: TrainWork, s: StepTimes, total: number): Bound {
  const m = w.microBatches;
  const fwdCompute = w.fwdGemmFlops / s.gemm + w.fwdAttnFlops / s.attnRate;
  const bwdCompute = w.bwdGemmFlops / s.gemm + w.bwdAttnFlops / s.attnRate;
  const computeT =
    m *
    (fwdCompute +
      bwdCompute +
      (w.recomputeAttnOnly ? s.rec : w.recompute * fwdCompute) +
      (w.int8ForwardFlops * (INT8_FORWARD_GEMM_SLOWDOWN - 1)) / s.gemm);
  const loopF = w.moeLoopOps * EAGER_OP_SECONDS;
  const hostT =
    s.hostOpt +
    m * s.offExposed +
    m * Math.max(0, w.fwdOps * s.hostPerOp - s.fwdGpu) * (loopF > 0 ? 0 : 1) +
    m * loopF * (1 + (w.recomputeAttnOnly ? 0 : w.recompute)) +
    m * Math.max(0, 2 * w.fwdOps * s.hostPerOp + 2 * loopF - s.bwdGpu) +
    m * w.dequantSeconds;
  const commT = m * (s.exposedMicro + s.tpT) + s.bubble + s.exposedStep + s.zeroGather;
  const memT = total - computeT - hostT - commT - STEP_OVERHEAD_SECONDS;
  return argmaxBound(computeT, memT, commT, hostT);
}

export function trainStep(
  w: TrainWork,
  r: GpuRates,
  phases?: Float64Array,
  bound?: { value: Bound },
): number {
  const s = scratch;
  computeTimes(w, r, s);
  commTimes(w, r, s);
  const perMicro = s.compute + s.exposedMicro + s.tpT + s.offExposed;
  const m = w.microBatches;
  // 1F1B bubble: (p-1)/m of the ideal pipeline time (Narayanan et al. SC'21 §2.2).
  s.bubble = w.pp > 1 ? ((w.pp - 1) / m) * (s.compute + s.tpT) : 0;
  s.opt = w.optimizerBytes / r.mem;
  const ranksPerNode = Math.min(w.gpus, r.gpusPerNode);
  s.hostOpt = w.optimizerOnHost ? (w.hostOptimizerBytes * ranksPerNode) / HOST_ADAM_BYTES_PER_S : 0;
  const total =
    m * perMicro +
    s.bubble +
    s.opt +
    s.hostOpt +
    s.exposedStep +
    s.zeroGather +
    STEP_OVERHEAD_SECONDS;
  if (phases) fillPhases(phases, w, s);
  if (bound) bound.value = boundOfStep(w, s, total);
  return total;
}

function argmaxBound(compute: number, memory: number, comm: number, host: number): Bound {
  let b: Bound = 'compute';
  let best = compute;
  if (memory > best) [b, best] = ['memory', memory];
  if (comm > best) [b, best] = ['communication', comm];
  if (host > best) b = 'host';
  return b;
}

// ---------------------------------------------------------------------------------------------
// Decode.

/**
 * Decode kernel families: bandwidth efficiency of the weight read relative to a bf16 GEMV at small batch,
 * and the batch above which the kernel dequantizes whole weights and runs a 16-bit GEMM instead.
 */
interface KernelFamily {
  eff8: number;
  eff4: number;
  crossover: number;
  src: string;
  /** Efficiencies on Hopper-class GPUs where the kernel has no Hopper path (absent: as on Ampere). */
  hopper?: { eff8: number; eff4: number };
}
const KERNELS: Record<QuantFormat, KernelFamily> = {
  // gpt-fast blog: Llama-2-7B A100 bf16 107 -> int8 157 -> int4 202 tok/s at 1/2 and ~1/3.6 of the bytes.
  torchao: {
    eff8: 0.73,
    eff4: 0.5,
    crossover: 16,
    src: 'https://pytorch.org/blog/accelerating-generative-ai-2/',
  },
  // Marlin: "near-optimal ~4x speedups up to batch sizes of 16-32 tokens", and a fused int4 x fp16 GEMM
  // that never dequantizes to memory, so larger batches run at about fp16 GEMM speed instead of falling off
  // (https://github.com/IST-DASLab/marlin; Frantar et al., MARLIN, arXiv:2408.11743 Fig. 1).
  // On Hopper Marlin keeps its Ampere pipeline (mma.sync, cp.async; README Requirements: "Marlin is not yet
  // optimized for Hopper"; vLLM added Machete, CUTLASS wgmma + TMA, for W4A16 there): it falls short of HBM3's
  // rate. No published figure: 0.72 (8-bit) and 0.57 (4-bit) were worked out from calibration rows
  // vllm-rtn-8b-int8-b1 and vllm-rtn-8b-int4-b1 (in sample; calibration/assumed.json).
  marlin: {
    eff8: 0.9,
    eff4: 0.9,
    crossover: Infinity,
    src: 'IST-DASLab/marlin README',
    hopper: {
      eff8: 0.72, // Marlin on Hopper, 8-bit
      eff4: 0.57, // Marlin on Hopper, 4-bit
    },
  },
  // CUTLASS W8A8 FP8/INT8 (and FP4 on Blackwell) GEMMs read the low-precision weight once per step like a
  // 16-bit GEMM (assumed 0.9 like Marlin); compute-bound batches run at the FP8 rate (time/index.ts decode).
  cutlass: {
    eff8: 0.9,
    eff4: 0.9,
    crossover: Infinity,
    src: 'https://docs.vllm.ai/en/latest/features/quantization/fp8.html',
  },
  // llama.cpp CUDA: mul_mat_vec_q for up to 8 rows, then MMQ (int8 tensor cores on the quantized blocks, no
  // dequantized copy): ggml/src/ggml-cuda/mmvq.cu, mmq.cu. Assumed 0.75 of the bandwidth bound.
  gguf: {
    eff8: 0.75,
    eff4: 0.75,
    crossover: Infinity,
    src: 'https://github.com/ggml-org/llama.cpp/tree/master/ggml/src/ggml-cuda',
  },
  // ExLlamaV2 matmul kernels for batch <= ~16, dequant + cuBLAS above (turboderp/exllamav2 README, assumed 0.75).
  exl2: { eff8: 0.75, eff4: 0.75, crossover: 16, src: 'turboderp/exllamav2' },
  // AutoAWQ: GEMV kernel fastest at batch 1, GEMM kernel up to batch 8-16 (casper-hansen/AutoAWQ README).
  awq: { eff8: 0.65, eff4: 0.65, crossover: 16, src: 'casper-hansen/AutoAWQ README' },
  // GPTQ through transformers/optimum exllama kernels: ~20-35% faster than fp16 at 13B (mit-han-lab/llm-awq #79).
  gptq: {
    eff8: 0.55,
    eff4: 0.55,
    crossover: 16,
    src: 'github.com/mit-han-lab/llm-awq/issues/79',
  },
  // HQQ 4-bit decodes through torchao's tinygemm int4 kernel (https://github.com/mobiusml/hqq): like torchao.
  hqq: { eff8: 0.6, eff4: 0.45, crossover: 8, src: 'https://github.com/mobiusml/hqq' },
  // bitsandbytes 0.40 4-bit inference kernel covers batch 1 only (release notes 0.40.0); above it
  // dequantizes to fp16 per call. LLM.int8 cost is per linear (INT8_LINEAR_SECONDS).
  bnb: { eff8: 0.5, eff4: 0.5, crossover: 1, src: 'bitsandbytes 0.40.0 release notes' },
};
// HF generate adds per-token Python work outside the layers (logits processors, stopping criteria, cache
// update, .item() sync): ~2 ms (assumed; transformers generation/utils.py loop).
const GENERATE_TOKEN_SECONDS = 2e-3;

export interface DecodeTime {
  /** Seconds per decode step (one token for each of the batch's sequences). */
  stepSeconds: number;
  /** Tokens generated per second by one model replica (batch x steps/s). */
  tokensPerSecond: number;
  /** Prefill of the whole context, seconds (not in decode tokens/s). */
  prefillSeconds: number;
  phases: Float64Array;
  bound: Bound;
  /** Model FLOPs of a decode step per GPU (2 x active params x batch / tp). */
  flopsPerGpu: number;
}

const EMPTY = new Float64Array(0);
const DPH = Object.fromEntries(DECODE_PHASES.map((p, i) => [p, i])) as Record<DecodePhase, number>;

// Eager decoding launches its kernels asynchronously: a token takes the longer of the GPU's work and the
// CPU's dispatch of it, then the per-token loop and sync. HF generate of Llama-7B fp16 on an RTX 3090 takes
// 32.9 ms/token where its 13.5 GB weight read is ~17 ms (bitsandbytes issue #347,
// https://github.com/bitsandbytes-foundation/bitsandbytes/issues/347): dispatch-bound, so (32.9 - 2) ms over
// 32 layers x 45 ops is ~21 µs per op of eager decoding (Python module calls on one-token tensors, where a
// training op on large tensors costs ~10 µs of CPU).
const EAGER_DECODE_OP_SECONDS = 21e-6;

/**
 * Per-token host cost of decoding: eager dispatch (overlaps the GPU's work), CUDA-graph replay gaps (add to
 * it: the GPU idles between graph kernels) and fixed per-token work (generate()'s loop and its sync).
 * bitsandbytes layers add Python and ctypes calls per linear; LLM.int8's small kernels per linear.
 */
function decodeHost(
  m: ModelFacts,
  o: EstimateOptions,
  q: QuantFormat | null,
): { dispatch: number; gaps: number; fixed: number } {
  const compiled = o.compile || FRAMEWORKS[o.framework].fusedKernels;
  const linears = m.layers * m.linearsPerLayer;
  // A CUDA-graph replay (vLLM registers bitsandbytes' 4-bit matmul as a custom op, captured with the rest:
  // vllm/model_executor/layers/quantization/bitsandbytes.py _apply_bnb_4bit + direct_register_custom_op)
  // launches its kernels without the Python around them: each op costs a graph kernel's gap, not a dispatch.
  const bnb4Op = compiled ? GRAPH_KERNEL_SECONDS : EAGER_DECODE_OP_SECONDS;
  const bnb =
    q !== 'bnb'
      ? 0
      : o.weights === 'int8'
        ? linears * INT8_LINEAR_SECONDS
        : linears * bnb4Ops(o) * bnb4Op;
  // An MoE layer's routing kernels beyond a dense MLP's (the engine's count, engines/<engine>/memory.ts).
  const routing = m.moeLayers * (FRAMEWORKS[o.framework].moeRoutingKernels ?? 0);
  if (compiled)
    return {
      dispatch: 0,
      gaps: (m.layers * OPS_PER_LAYER_COMPILED + routing) * GRAPH_KERNEL_SECONDS + bnb,
      fixed: 0,
    };
  return {
    dispatch: (m.layers * OPS_PER_LAYER_EAGER + routing) * EAGER_DECODE_OP_SECONDS + bnb,
    gaps: 0,
    fixed: GENERATE_TOKEN_SECONDS,
  };
}

/**
 * Megatron TP decode: 2 all-reduces per layer of batch x hidden, each paying the collective's latency: NCCL's,
 * or over NVLink inside a node the engine's own all-reduce where it has one (profile allReduceSeconds).
 */
function decodeTpSeconds(m: ModelFacts, o: EstimateOptions, B: number, r: GpuRates): number {
  const tp = o.tp;
  if (tp <= 1) return 0;
  const tpLink = tp > r.gpusPerNode ? r.interNode : tp <= 2 ? r.intraPair : r.intraMany;
  const own = FRAMEWORKS[o.framework].allReduceSeconds;
  const latency =
    tpLink === r.host
      ? ALLREDUCE_LATENCY_PCIE
      : own !== undefined && tpLink !== r.interNode
        ? own
        : ALLREDUCE_LATENCY_NVLINK;
  return 2 * m.layers * ((2 * B * m.hidden * 2 * (tp - 1)) / tp / tpLink + latency);
}

// llama.cpp layers left in host RAM decode at host memory bandwidth: dual-channel DDR5-5600 peaks at 89.6 GB/s
// and CPU token generation reaches ~60% of it (llama.cpp discussion #3847 CPU tables; assumed 55 GB/s).
const HOST_DECODE_BYTES_PER_S = 55e9;
// Low-precision tensor cores (FP8/INT8 W8A8) run dense GEMMs at twice the 16-bit rate (H100/L40S/RTX 4090
// datasheets: FP8 and INT8 dense TFLOPS = 2x BF16;
// https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet).
const W8A8_SPEEDUP = 2;

/** The kernel a serving engine's W8A8/FP4 path falls back to on the GPU: Marlin weight-only without the cores. */
function kernelOn(q: QuantFormat | null, o: EstimateOptions, r: GpuRates): QuantFormat | null {
  if (q !== 'cutlass') return q;
  if (o.weights === 'fp8' && !r.fp8) return 'marlin';
  if ((o.weights === 'mxfp4' || o.weights === 'nvfp4') && r.cc < 10) return 'marlin';
  return q;
}

/** The layers llama.cpp runs on the host (`--gpu-layers`), as a share; 0 for every other engine. */
function hostShare(m: ModelFacts, o: EstimateOptions): { layers: number; head: boolean } {
  if (!FRAMEWORKS[o.framework].layerOffload || o.gpuLayers === undefined)
    return { layers: 0, head: false };
  const ngl = Math.min(o.gpuLayers, m.layers + 1);
  return { layers: (m.layers - Math.min(ngl, m.layers)) / m.layers, head: ngl <= m.layers };
}

interface Traffic {
  /** Bytes a decode step reads on the GPU (weights at the kernel's efficiency; KV) and on the host. */
  weightGpu: number;
  kvGpu: number;
  host: number;
  /** Linear weight elements a step reads, and bytes per weight element. */
  linearRead: number;
  wb: number;
  q: QuantFormat | null;
}

/** What one decode step of B sequences at context `ctx` reads, per GPU and on the host. */
function decodeTraffic(
  m: ModelFacts,
  o: EstimateOptions,
  t: TimeOptions,
  r: GpuRates,
  B: number,
  ctx: number,
): Traffic {
  const q0 = t.quantFormat ?? defaultQuantFormat(o);
  const q = q0 !== null && o.weights in QUANT_FORMATS_FOR ? kernelOn(q0, o, r) : null;
  const wb = o.weights === 'fp32' ? 4 : weightBytes(o.weights);
  // MoE: at batch B a layer reads the distinct experts its tokens route to, E(1-(1-k/E)^B) on average.
  let linearRead = m.linearTotal;
  let expertRead = 0;
  if (m.experts > 1) {
    const dense = m.linearTotal - m.expertWeightsPerLayer * m.experts * m.moeLayers;
    const distinct = m.experts * (1 - Math.pow(1 - m.topK / m.experts, B));
    expertRead = m.expertWeightsPerLayer * distinct * m.moeLayers;
    linearRead = dense + expertRead;
  }
  // MXFP4 MoE checkpoints (gpt-oss) quantize the experts only: quantization_config.modules_to_not_convert keeps
  // self_attn, the router, embed_tokens and lm_head in BF16 (https://huggingface.co/openai/gpt-oss-20b/blob/main/config.json).
  const bf16Read = o.weights === 'mxfp4' && expertRead > 0 ? linearRead - expertRead : 0;
  // lm_head stays 16-bit in bitsandbytes/GPTQ/AWQ checkpoints (llm_int8_skip_modules default; AutoGPTQ); GGUF
  // and torchao quantize it with the rest.
  const headBytes = m.lmHead * (q === 'torchao' || q === 'gguf' ? wb : 2);
  const k = q ? KERNELS[q] : null;
  // A kernel without a Hopper path reads at its Hopper efficiency there (KernelFamily.hopper).
  const e = k && r.hopper && k.hopper ? k.hopper : k;
  const eff = e ? (o.weights === 'int8' || o.weights === 'fp8' ? e.eff8 : e.eff4) : 1;
  // Above the crossover: dequantize (write 2 B) then a 16-bit GEMM reads it back (2 B).
  const qRead = linearRead - bf16Read;
  const linearBytes =
    bf16Read * 2 + (k !== null && B > k.crossover ? qRead * (wb + 4) : (qRead * wb) / eff);
  // Bytes per linear weight element as stored (prefill reads each once; host layers at this size).
  const wbStored = (bf16Read * 2 + qRead * wb) / linearRead;
  // The cache each step reads, per GPU, from the layout the memory model stores (kv-layout.ts): the MLA
  // latent, this rank's KV heads, a sliding window's cells, a recurrent layer's state read and written.
  const fw = FRAMEWORKS[o.framework];
  const c = FLOAT_BYTES[o.compute];
  const kvElem = kvElementBytes(fw, o.kvCacheDtype, c);
  const kv = B * decodeCacheBytes(m.arch, fw, { c, tp: o.tp, kvElem }, ctx);
  const h = hostShare(m, o);
  const weightGpu = (linearBytes * (1 - h.layers) + (h.head ? 0 : headBytes)) / o.tp;
  const host = linearRead * wbStored * h.layers + (h.head ? headBytes : 0) + kv * h.layers;
  return { weightGpu, kvGpu: kv * (1 - h.layers), host, linearRead, wb: wbStored, q };
}

/** FLOP/s of the step's GEMMs: the W8A8 tensor-core rate where the kernel multiplies in 8 bits. */
const gemmRate = (q: QuantFormat | null, r: GpuRates): number =>
  q === 'cutlass' ? r.gemm16 * W8A8_SPEEDUP : r.gemm16;

/**
 * Prefill of `seqs` prompts of `tokens` tokens each: compute-bound GEMMs and attention at the prompt's shape,
 * one read of the weights, and (llama.cpp) the host layers' weights copied over PCIe once per ubatch.
 */
function prefillTime(
  m: ModelFacts,
  o: EstimateOptions,
  r: GpuRates,
  tr: Traffic,
  tokens: number,
  seqs: number,
): number {
  const flops =
    (2 * (m.active - embedOnly(m)) * tokens * seqs +
      2 * m.attnLayers * tokens * tokens * m.attnWidth * seqs +
      m.recurrentFlopsPerToken * tokens * seqs) /
    o.tp;
  const ubatches = FRAMEWORKS[o.framework].layerOffload ? Math.ceil((tokens * seqs) / 512) : 0;
  return (
    flops / (gemmRate(tr.q, r) * shapeFactor(tokens * seqs, m.hidden / o.tp)) +
    (tr.linearRead * tr.wb) / o.tp / r.mem +
    (ubatches * tr.host) / r.host
  );
}

/** The mat-vecs of one decode step, per layer and the output head (rows x cols, counted per step). */
function stepMatVecs(m: ModelFacts): MatVec[] {
  const L = m.layers;
  return [
    { rows: m.attnWidth, cols: m.hidden, count: L },
    { rows: m.kvWidth, cols: m.hidden, count: 2 * L },
    { rows: m.hidden, cols: m.attnWidth, count: L },
    { rows: m.ffn, cols: m.hidden, count: m.gated ? 2 * L : L },
    { rows: m.hidden, cols: m.ffn, count: L },
    { rows: m.vocab, cols: m.hidden, count: m.lmHead > 0 ? 1 : 0 },
  ];
}

/**
 * A llama.cpp build before PR #10318 multiplies F16 weights at batch 1 in dmmv, whose last wave of rows per
 * matrix is latency-bound (matvec-tail.ts). Only where the timing says so (TimeOptions.f16MatVec), on one GPU
 * holding every layer, for a dense model.
 */
function dmmvTail(
  m: ModelFacts,
  o: EstimateOptions,
  t: TimeOptions,
  r: GpuRates,
  tr: Traffic,
): number {
  const on =
    t.f16MatVec === 'dmmv' &&
    o.framework === 'llama.cpp' &&
    o.weights === 'fp16' &&
    o.batch === 1 &&
    o.tp === 1 &&
    m.experts <= 1 &&
    tr.host === 0;
  return on && r.dmmv ? dmmvTailSeconds(stepMatVecs(m), r.mem, r.dmmv.slots, r.dmmv.latency) : 0;
}

export function decodeStep(
  m: ModelFacts,
  o: EstimateOptions,
  t: TimeOptions,
  r: GpuRates,
  detail = true,
  ctx = o.seq,
): DecodeTime {
  const B = o.batch;
  const tp = o.tp;
  const tr = decodeTraffic(m, o, t, r, B, ctx);
  const weightT = tr.weightGpu / r.mem + dmmvTail(m, o, t, r, tr);
  const kvT = tr.kvGpu / r.mem;
  const flops =
    (2 * (m.active - embedOnly(m)) * B) / tp +
    (4 * m.attnLayers * ctx * m.attnWidth * B + m.recurrentFlopsPerToken * B) / tp;
  const computeT = flops / gemmRate(tr.q, r);
  const memT = weightT + kvT;
  const core = Math.max(memT, computeT);
  const host = decodeHost(m, o, tr.q);
  const tpT = decodeTpSeconds(m, o, B, r);
  // Host-RAM layers run after the GPU's, at host bandwidth; the engine's per-step scheduling/sampling adds on.
  const fw = FRAMEWORKS[o.framework];
  // A forward-pass-only timing (llama-bench) leaves out the server loop and the sampling.
  const loop = t.decodeOnly ? 0 : 1;
  const hostT =
    tr.host / HOST_DECODE_BYTES_PER_S +
    loop * (fw.stepHostSeconds ?? 0) +
    (t.serialScheduler ? (fw.serialStepHostSeconds ?? 0) : 0) +
    loop * (fw.seqHostSeconds ?? 0) * B;
  const step = Math.max(core, host.dispatch) + host.gaps + host.fixed + tpT + hostT;
  const overhead = step - core - tpT; // the host's share the GPU's work does not hide
  if (!detail)
    return {
      stepSeconds: step,
      tokensPerSecond: B / step,
      prefillSeconds: 0,
      phases: EMPTY,
      bound: 'memory',
      flopsPerGpu: flops,
    };
  const phases = new Float64Array(DECODE_PHASES.length);
  phases[DPH['decode-weights']] = memT >= computeT ? weightT : computeT * (weightT / memT);
  phases[DPH['decode-kv']] = memT >= computeT ? kvT : computeT * (kvT / memT);
  phases[DPH['tensor-parallel']] = tpT;
  phases[DPH.overhead] = overhead;
  const prefill = prefillTime(m, o, r, tr, ctx, B);
  phases[DPH.prefill] = prefill;
  return {
    stepSeconds: step,
    tokensPerSecond: B / step,
    prefillSeconds: prefill,
    phases,
    bound: argmaxBound(computeT > memT ? computeT : 0, computeT > memT ? 0 : memT, tpT, overhead),
    flopsPerGpu: flops,
  };
}

/**
 * Per request under continuous batching (vLLM/SGLang chunked prefill mixes prompts into decode steps:
 * https://docs.vllm.ai/en/latest/configuration/optimization.html): time to first token = its prompt's prefill
 * (compute-bound) plus the decode step it rides with; time per output token = a decode step of the batch at
 * its mean context (prompt + half the output), plus the batch's share of the prefills that interrupt it (each
 * of the B sequences is replaced, and its successor prefilled, once per output length).
 */
export function servingTime(
  m: ModelFacts,
  o: EstimateOptions,
  t: TimeOptions,
  r: GpuRates,
): { ttft: number; tpot: number } {
  const prompt = promptTokensOf(o);
  const out = Math.max(1, o.seq - prompt);
  const meanCtx = meanContextOf(o);
  const step = decodeStep(m, o, t, r, false, meanCtx).stepSeconds;
  // Prefix caching: the cached share of the prompt is not prefilled again (its attention reads not counted).
  const fresh = Math.max(1, Math.round(prompt * (1 - (o.prefixCacheFraction ?? 0))));
  const prefill = prefillTime(m, o, r, decodeTraffic(m, o, t, r, 1, prompt), fresh, 1);
  return { ttft: prefill + step, tpot: step + (prefill * o.batch) / out };
}

/**
 * A static batch, as vLLM's benchmark_latency and SGLang's bench_one_batch time it: the batch's prompts are
 * prefilled in one step, which samples each sequence's first token, then the other output tokens take one
 * decode step each at the batch's mean context (benchmarks/benchmark_latency.py: llm.generate of `batch`
 * prompts with ignore_eos, max_tokens = output_len).
 */
export function staticBatchSeconds(
  arch: Arch,
  o: EstimateOptions,
  gpu: Gpu,
  t: TimeOptions,
): number {
  const m = modelFacts(arch);
  const r = gpuRates(gpu, t);
  const prompt = promptTokensOf(o);
  const out = Math.max(1, o.seq - prompt);
  const tr = decodeTraffic(m, o, t, r, o.batch, prompt);
  const step = decodeStep(m, o, t, r, false, meanContextOf(o)).stepSeconds;
  return prefillTime(m, o, r, tr, prompt, o.batch) + (out - 1) * step;
}

// ---------------------------------------------------------------------------------------------
// The contract's `time` object.

export interface TimeResult {
  stepSeconds: number;
  tokensPerSecondPerGpu: number;
  mfu: number;
  bound: Bound;
  /** Inference: tokens generated per second by one replica, summed over the batch. */
  decodeTokensPerSecond?: number;
  /** Inference: a request's time to first token and time per output token under the batch (servingTime). */
  ttftSeconds?: number;
  tpotSeconds?: number;
  /** Seconds per step by phase (training: per optimizer step; inference: per decode step + prefill). */
  phases: { phase: string; seconds: number }[];
  /** The time settings used (flags or their defaults). */
  settings: TimeOptions & { quantFormat: QuantFormat | null; interconnect: Interconnect };
  /** Dense 16-bit tensor TFLOPS: the GPU's spec and what it sustains at its board power and power limit. */
  tensorTflops: { spec: number; sustained: number };
  /**
   * MoE models only: how the engine runs the routed experts (its profile's moeDispatch), the expert-parallel
   * degree used (1: the contract has no expert-parallel flag), the experts hit per layer per micro-batch, and
   * the seconds per step the per-expert loop costs over one grouped GEMM per layer (0 when grouped).
   */
  moe?: {
    dispatch: MoeDispatch;
    expertParallel: number;
    expertsHitPerLayer: number;
    loopSeconds: number;
    /** Seconds per step PEFT's ParamWrapper adds (LoRA on fused experts: ΔW, W + ΔW, its weight gradient). */
    adapterDeltaSeconds: number;
  };
}

const round = (x: number, d = 4) => Number(x.toPrecision(d));

/** Time of one configuration on one GPU type: the same trainWork/trainStep/decodeStep the planner calls. */
export function estimateTime(arch: Arch, o: EstimateOptions, gpu: Gpu, t: TimeOptions): TimeResult {
  const m = modelFacts(arch);
  const r = gpuRates(gpu, t);
  const settings = {
    ...t,
    quantFormat: kernelOn(t.quantFormat ?? defaultQuantFormat(o), o, r),
    interconnect: t.interconnect ?? defaultInterconnect(gpu),
  } as TimeResult['settings'];
  const tensorTflops = { spec: r.spec16, sustained: round(r.sustained16) };
  if (o.method === 'inference') {
    const d = decodeStep(m, o, t, r);
    const sv = servingTime(m, o, t, r);
    // The vision tower encodes a request's images before its prefill (time/vision.ts): in its TTFT, and a
    // phase of its own for the batch's images.
    const tower = towerTime(arch, o, r);
    const towerOne = towerTime(arch, o, r, 1);
    const phases = DECODE_PHASES.map((p, i) => ({
      phase: p as string,
      seconds: round(d.phases[i]!),
    }));
    if (tower) phases.push({ phase: 'vision-encoder', seconds: round(tower.seconds) });
    return {
      stepSeconds: round(d.stepSeconds),
      tokensPerSecondPerGpu: round(d.tokensPerSecond / o.tp),
      mfu: round(d.flopsPerGpu / d.stepSeconds / r.peak16, 3),
      bound: d.bound,
      decodeTokensPerSecond: round(d.tokensPerSecond),
      ttftSeconds: round(sv.ttft + (towerOne?.seconds ?? 0)),
      tpotSeconds: round(sv.tpot),
      phases,
      settings,
      tensorTflops,
    };
  }
  const w = trainWork(m, o, t);
  const phases = new Float64Array(TRAIN_PHASES.length);
  const bound = { value: 'compute' as Bound };
  const lmStep = trainStep(w, r, phases, bound);
  // The vision tower's forward (and backward when it takes part) per micro-batch (time/vision.ts).
  const tower = towerTime(arch, o, r);
  const step = lmStep + (tower ? tower.seconds * w.microBatches : 0);
  const tps = w.tokensPerStep / step / o.gpus;
  const towerFlopsPerSecond = tower ? (tower.modelFlops * w.microBatches) / step : 0;
  const moe =
    m.experts > 1
      ? {
          dispatch: w.moeDispatch,
          expertParallel: 1,
          expertsHitPerLayer: round(w.expertsHit, 3),
          loopSeconds:
            w.moeDispatch === 'loop'
              ? round(lmStep - trainStep(trainWork(m, o, t, 'grouped'), r))
              : 0,
          adapterDeltaSeconds:
            w.deltaFwdBytes > 0
              ? round(lmStep - trainStep(trainWork(m, o, t, w.moeDispatch, false), r))
              : 0,
        }
      : undefined;
  return {
    stepSeconds: round(step),
    tokensPerSecondPerGpu: round(tps),
    mfu: round((w.modelFlopsPerToken * tps + towerFlopsPerSecond) / r.peak16, 3),
    bound: bound.value,
    phases: [
      ...TRAIN_PHASES.map((p, i) => ({ phase: p as string, seconds: round(phases[i]!) })),
      { phase: 'vision-encoder', seconds: tower ? round(tower.seconds * w.microBatches) : 0 },
    ].filter((p) => p.seconds > 0),
    settings,
    tensorTflops,
    ...(moe ? { moe } : {}),
  };
}
