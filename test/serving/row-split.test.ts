// llama.cpp --split-mode row (FrameworkProfile.tpRowSplit): each split matrix multiplication sends the activation to
// the other GPUs and gathers their rows of the result on the main GPU, peer copies in series with the step (staged
// through host memory without P2P), with CUDA graphs and the matmul fusions off; no all-reduce.
import { describe, expect, it } from 'vitest';
import { estimateTime, modelFacts } from '../../src/core/time/index.js';
import { gpuRates } from '../../src/core/time/hardware.js';
import { rowSplitSeconds } from '../../src/core/time/row-split.js';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { resolveModel } from '../../src/io/load-model.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { defaultOptions, type EstimateOptions } from '../../src/schema/estimate.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

const arch = resolveModel('meta-llama/Llama-3.1-70B');
const o = (more: Partial<EstimateOptions>): EstimateOptions => ({
  ...defaultOptions('inference'),
  framework: 'llama.cpp',
  weights: 'q4_k_m',
  batch: 1,
  seq: 4096,
  gpus: 2,
  ...more,
});
const phase = (r: ReturnType<typeof estimateTime>, p: string) =>
  r.phases.find((x) => x.phase === p)?.seconds ?? 0;
const split = FRAMEWORKS['llama.cpp'].tpRowSplit!;
const m = modelFacts(arch);
// The split matrices of a step: every layer's linears and the output head.
const matmuls = m.layers * m.linearsPerLayer + 1;

describe('llama.cpp row split on two GeForce cards over PCIe (no P2P: copies staged through the host)', () => {
  const gpu = findGpu('rtx-3090');
  const t = { ...defaultTimeOptions(2), interconnect: 'pcie' as const };
  const row = estimateTime(arch, o({ tp: 2 }), gpu, t);
  const layer = estimateTime(arch, o({ pp: 2 }), gpu, t);
  it('pays two staged copies per split matrix, at least, in place of the all-reduces', () => {
    const floor = matmuls * split.copiesPerMatmul * 2 * split.copySeconds;
    expect(phase(row, 'tensor-parallel')).toBeGreaterThan(floor);
    // Every copy's bytes cross the main GPU's link too: the phase is more than the latency alone.
    expect(phase(row, 'tensor-parallel')).toBeLessThan(1.5 * floor);
  });
  it('decodes faster than the layer split, by far less than the 2x its halved weight read alone would give', () => {
    const speedup = row.decodeTokensPerSecond! / layer.decodeTokensPerSecond!;
    expect(speedup).toBeGreaterThan(1);
    expect(speedup).toBeLessThan(1.5);
  });
  it('launches its kernels unfused and without graph replay: more host gaps than the layer split', () => {
    expect(phase(row, 'overhead')).toBeGreaterThan(phase(layer, 'overhead'));
  });
});

describe('the copies follow the link', () => {
  it('over an NVLink bridge (P2P) each copy is one hop: half the latency of the staged copies', () => {
    const gpu = findGpu('rtx-3090');
    const opts = o({ tp: 2 });
    const pcie = gpuRates(gpu, { ...defaultTimeOptions(2), interconnect: 'pcie' });
    const nvlink = gpuRates(gpu, { ...defaultTimeOptions(2), interconnect: 'nvlink' });
    expect(pcie.peerStaged.pair).toBe(true);
    expect(nvlink.peerStaged.pair).toBe(false);
    const mvs = [{ rows: 8192, cols: 8192, count: 10 }];
    const bytesOnly = (r: typeof pcie) =>
      ((opts.tp - 1) * 8192 * 10 * (split.inBytesPerElement + split.outBytesPerElement / 2)) /
      r.intraPair;
    const latency = (r: typeof pcie) => rowSplitSeconds(split, mvs, opts, 1, r) - bytesOnly(r);
    expect(latency(pcie)).toBeCloseTo(2 * latency(nvlink), 12);
    // Above GGML_CUDA_PEER_MAX_BATCH_SIZE tokens peer access is off: staged even over the bridge.
    const at = (tokens: number) => rowSplitSeconds(split, mvs, opts, tokens, nvlink);
    const over = split.peerMaxTokens + 1;
    const perToken = at(2) - at(1); // bytes grow linearly with the tokens
    const rounds = Math.ceil(over / split.tokensPerRound);
    const stagedLatency = at(over) - perToken * over;
    expect(stagedLatency).toBeCloseTo(rounds * 2 * latency(nvlink), 9);
  });
  it('costs nothing on one GPU, and an engine without a row split keeps its all-reduces', () => {
    const gpu = findGpu('rtx-3090');
    const t = defaultTimeOptions(1);
    expect(phase(estimateTime(arch, o({ gpus: 1 }), gpu, t), 'tensor-parallel')).toBe(0);
    expect(FRAMEWORKS.vllm.tpRowSplit).toBeUndefined();
  });
});
