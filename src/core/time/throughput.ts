/**
 * Step time and tokens/s from FLOPs, achievable utilisation and communication volume (training), or from
 * bytes read per decode step (inference). Sources: docs/reference/formulas-and-factors.md §2.
 */
import type { Gpu } from '../../schema/gpu.js';

/** Achievable model-FLOPs utilisation prior for bf16 training, by GPU class (§2.7 planner default). */
export function mfuPrior(gpu: Gpu): number {
  if (gpu.vendor === 'apple') return 0.2; // assumed: MPS kernels, no published LLM-training MFU
  if (gpu.vendor === 'amd') return 0.35; // assumed: ROCm stacks below the NVIDIA priors
  if (gpu.category === 'datacenter') {
    // H100 MPT 7B-70B: 40-46%; A100: 50-64% (llm-foundry benchmarks, §2.7)
    return gpu.supportsFp8 ? 0.42 : 0.5;
  }
  return 0.4; // consumer/workstation single GPU 35-55% (nanoGPT 4090 55%, PEFT LoRA 37%), §2.7
}

/** Memory-bandwidth utilisation of decode (MBU 0.5-0.8, Databricks inference guide; §2.8). */
export const DECODE_MBU = 0.6;

/** Dense tensor TFLOPS for the compute dtype (falls back to fp16, then fp32). */
export function peakTflops(gpu: Gpu, compute: 'bf16' | 'fp16' | 'fp32'): number {
  const t = gpu.tflops;
  if (compute === 'fp32') return t.fp32 ?? 1;
  return (compute === 'bf16' ? (t.bf16 ?? t.fp16) : (t.fp16 ?? t.bf16)) ?? t.fp32 ?? 1;
}

/** PCIe x16 GB/s per direction by generation (§2.6 link speeds). */
export function pcieGBps(pcie: string): number {
  const m = /PCIe\s*(\d)/i.exec(pcie);
  const gen = m ? Number(m[1]) : 4;
  return gen >= 6 ? 128 : gen === 5 ? 64 : gen === 4 ? 32 : gen === 3 ? 16 : 8;
}

/** Per-direction GPU-to-GPU bandwidth inside one node, GB/s. Without P2P, traffic bounces through host memory. */
export function intraNodeGBps(gpu: Gpu): number {
  if (gpu.interconnect.nvlinkGBps) return gpu.interconnect.nvlinkGBps / 2; // spec totals are bidirectional
  const p = pcieGBps(gpu.interconnect.pcie);
  return gpu.interconnect.p2p ? p : p / 2;
}

// Calculon systems/a100_80g.json: NVLink efficiency 0.6, IB 0.9; applied to all links here.
const LINK_EFFICIENCY = 0.7;
// Share of data-parallel gradient traffic not hidden behind backward compute (bucketed overlap; assumed).
const DP_EXPOSED = 0.5;
// Micro-batch tokens at which GEMM efficiency is half its large-batch value (assumed; small GEMMs underuse SMs).
const HALF_EFFICIENCY_TOKENS = 256;

/** Everything the training time model needs, as plain numbers (hot loop: no objects per call). */
export interface TrainTimeInput {
  /** Model FLOPs per token (6N + attention), before technique slowdowns. */
  flopsPerToken: number;
  tokensPerStep: number;
  microBatchTokens: number;
  /** Product of slowdown.ts factors of the configuration. */
  slowdown: number;
  gpus: number;
  tp: number;
  pp: number;
  dp: number;
  /** Micro-batches per step per pipeline (gradient accumulation). */
  microBatches: number;
  /** Bytes all-reduced (or reduce-scattered + gathered) by data parallelism per step, per GPU. */
  dpBytes: number;
  /** Bytes all-reduced by tensor parallelism per step, per GPU. */
  tpBytes: number;
  /** Peak TFLOPS x MFU x power-limit factor, per GPU, FLOP/s. */
  flopsPerSecond: number;
  intraGBps: number;
  interGBps: number;
  gpusPerNode: number;
}

/** Seconds per optimizer step. */
export function trainStepSeconds(x: TrainTimeInput): number {
  const gemm = x.microBatchTokens / (x.microBatchTokens + HALF_EFFICIENCY_TOKENS);
  const compute =
    (x.flopsPerToken * x.tokensPerStep * x.slowdown) / (x.gpus * x.flopsPerSecond * gemm);
  // 1F1B/GPipe bubble: idle share (p-1)/(m+p-1) (Narayanan et al. §2.2).
  const bubble = x.pp > 1 ? compute * ((x.pp - 1) / x.microBatches) : 0;
  const multiNode = x.gpus > x.gpusPerNode;
  const dpLink =
    (multiNode ? Math.min(x.intraGBps, x.interGBps) : x.intraGBps) * 1e9 * LINK_EFFICIENCY;
  // Ring all-reduce moves 2(n-1)/n of the buffer per GPU (§2.6, Calculon all-reduce factor 2).
  const dpComm = x.dp > 1 ? (x.dpBytes * ((x.dp - 1) / x.dp)) / dpLink : 0;
  const tpLink = (x.tp > x.gpusPerNode ? x.interGBps : x.intraGBps) * 1e9 * LINK_EFFICIENCY;
  const tpComm = x.tp > 1 ? (x.tpBytes * ((x.tp - 1) / x.tp)) / tpLink : 0;
  return compute + bubble + DP_EXPOSED * dpComm + tpComm;
}

/** Training FLOPs per token: 6N for the linears + 6·L·s·d_attn for attention scores (Kaplan et al. 2020 Table 1). */
export function trainFlopsPerToken(
  activeParams: number,
  layers: number,
  seq: number,
  attnWidth: number,
): number {
  return 6 * activeParams + 6 * layers * seq * attnWidth;
}

/** Decode tokens/s of one model replica spread over `tp` GPUs (bandwidth-bound, §2.8; compute-bound cap). */
export function decodeTokensPerSecond(input: {
  /** Weight + constant bytes per GPU read each step. */
  weightBytesPerGpu: number;
  /** KV bytes per GPU read each step (whole cache at average fill). */
  kvBytesPerGpu: number;
  concurrency: number;
  activeParams: number;
  tp: number;
  bandwidthGBps: number;
  flopsPerSecond: number;
  /** Power-limit factor for bandwidth-bound work. */
  memoryFactor: number;
  tpLinkGBps: number;
  hidden: number;
  layers: number;
}): number {
  const bw = input.bandwidthGBps * 1e9 * DECODE_MBU * input.memoryFactor;
  const memTime = (input.weightBytesPerGpu + input.kvBytesPerGpu) / bw;
  const computeTime =
    (2 * input.activeParams * input.concurrency) / (input.tp * input.flopsPerSecond);
  // Megatron TP: 2 all-reduces per layer of concurrency x hidden x 2 bytes per decode step.
  const tpTime =
    input.tp > 1
      ? (2 *
          input.layers *
          input.concurrency *
          input.hidden *
          2 *
          2 *
          ((input.tp - 1) / input.tp)) /
        (input.tpLinkGBps * 1e9 * LINK_EFFICIENCY)
      : 0;
  return input.concurrency / (Math.max(memTime, computeTime) + tpTime);
}
