// vLLM V1 before FULL_AND_PIECEWISE became its default captured decode in piecewise CUDA graphs and ran each layer's
// attention op eagerly from Python (TimeOptions.piecewiseGraphs): the host issues each attention layer's torch calls
// (the engine's piecewiseAttentionCalls, one PyTorch dispatch each) while the GPU runs, and the step takes the longer
// of the two; the GPU idles at each split besides (gapSeconds a layer; time/piecewise.ts).
import { describe, expect, it } from 'vitest';
import { estimateTime } from '../../src/core/time/index.js';
import { resolveModel } from '../../src/io/load-model.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { defaultOptions } from '../../src/schema/estimate.js';
import { defaultTimeOptions, type TimeOptions } from '../../src/schema/time.js';
import { VLLM_PIECEWISE_ATTENTION_CALLS } from '../../src/core/engines/vllm/piecewise.js';
import { VLLM_MEMORY } from '../../src/core/engines/vllm/memory.js';
import { piecewiseAttentionSeconds, TRITON_LAUNCH_SECONDS } from '../../src/core/time/piecewise.js';
import { modelFacts } from '../../src/core/time/model-facts.js';
import { decodeHost } from '../../src/core/time/decode-host.js';

const EAGER_OP = 10e-6; // time/train-work.ts EAGER_OP_SECONDS
// The async scheduler's own step work, which the eager attention calls add to (FrameworkProfile.asyncStepHostSeconds).
const LOOP = VLLM_MEMORY.asyncStepHostSeconds ?? 0;
// A FlashAttention layer's eager op: its kernels at one dispatch each and its measured Python.
const KV_LAYER =
  VLLM_PIECEWISE_ATTENTION_CALLS.kv * EAGER_OP +
  (VLLM_PIECEWISE_ATTENTION_CALLS.kvPythonSeconds ?? 0);
const step = (model: string, o: object, time: Partial<TimeOptions> = {}) =>
  estimateTime(
    resolveModel(model),
    { ...defaultOptions('inference'), framework: 'vllm', batch: 1, seq: 192, ...o },
    findGpu('h100-sxm'),
    { ...defaultTimeOptions(8), ...time },
  ).stepSeconds;
const deepseek = { weights: 'int4', gpus: 8, tp: 8 };
const pw = { piecewiseGraphs: true };
// The pieces' cudaGraphLaunch host time: the step's graph kernels as decode-host.ts counts them, less those the eager
// attention op runs (`kv` a layer, and an MLA layer's own kernels), at pieceLaunchNodeSeconds a node.
const NODE = VLLM_PIECEWISE_ATTENTION_CALLS.pieceLaunchNodeSeconds ?? 0;
const launches = (model: string, o: object, time: Partial<TimeOptions>, eagerKernels: number) => {
  const opts = {
    ...defaultOptions('inference'),
    framework: 'vllm' as const,
    batch: 1,
    seq: 192,
    ...o,
  };
  const t = { ...defaultTimeOptions(8), ...time };
  // An H100 (compute capability 9.0), as `step` times.
  const { kernels } = decodeHost(modelFacts(resolveModel(model)), opts, t, null, undefined, 0, 9);
  return (kernels - eagerKernels) * NODE;
};

describe('piecewise CUDA graphs (vLLM V1 before full decode graphs)', () => {
  it("DeepSeek over TP 8 waits for the host: 61 MLA layers x the MLA path's calls x one dispatch", () => {
    const eager =
      61 *
      (VLLM_PIECEWISE_ATTENTION_CALLS.kv +
        (VLLM_MEMORY.decodeFeatureKernels?.('deepseek_v3', 9)?.mlaLayer ?? 0));
    const host =
      61 * VLLM_PIECEWISE_ATTENTION_CALLS.mla * EAGER_OP +
      LOOP +
      launches('deepseek-v3', deepseek, { ...pw, gpusPerNode: 8 }, eager);
    expect(step('deepseek-v3', deepseek)).toBeLessThan(host);
    // stepSeconds has three significant figures: within 1%.
    expect(step('deepseek-v3', deepseek, pw) / host).toBeCloseTo(1, 1);
  });

  it('a small K/V-head model waits for the host too: 28 layers x the FlashAttention op', () => {
    const host =
      28 * KV_LAYER +
      LOOP +
      launches('qwen3-0.6b', {}, { ...pw, gpusPerNode: 1 }, 28 * VLLM_PIECEWISE_ATTENTION_CALLS.kv);
    expect(step('qwen3-0.6b', {}, { gpusPerNode: 1 })).toBeLessThan(host);
    expect(step('qwen3-0.6b', {}, { ...pw, gpusPerNode: 1 }) / host).toBeCloseTo(1, 1);
  });

  it("a model whose layers keep the GPU busier than the host's calls pays only the GPU's gap at each split", () => {
    const o = { weights: 'bf16' };
    // 32 attention layers x 14 µs (vllm-project/vllm#20059); stepSeconds has three significant figures.
    const gap = 32 * VLLM_PIECEWISE_ATTENTION_CALLS.gapSeconds;
    expect(VLLM_PIECEWISE_ATTENTION_CALLS.gapSeconds).toBe(14e-6);
    expect(step('llama-3.1-8b', o, pw) - step('llama-3.1-8b', o)).toBeCloseTo(gap, 5);
  });

  it('SGLang captures its whole decode step: unchanged', () => {
    const o = { ...deepseek, framework: 'sglang' };
    expect(step('deepseek-v3', o, pw)).toBe(step('deepseek-v3', o));
  });

  it("the host launches each piece's graph between the eager calls: about a microsecond a node", () => {
    // sgl-project/sglang#29960: vLLM's 2,187-node graph took 1.983 ms of cudaGraphLaunch host time.
    expect(NODE * 2187).toBeCloseTo(1.983e-3, 4);
    const m = modelFacts(resolveModel('qwen3-0.6b'));
    const at = (graphKernels?: number) =>
      piecewiseAttentionSeconds(
        m,
        VLLM_MEMORY,
        { ...defaultTimeOptions(8), ...pw },
        { cc: 9, rows: 1, tp: 1, graphKernels },
      ).host;
    // 400 graph kernels, 28 x 2 of them in the eager attention op: 344 nodes replayed in pieces.
    expect(at(400) - at()).toBeCloseTo((400 - 28 * VLLM_PIECEWISE_ATTENTION_CALLS.kv) * NODE, 12);
    expect(at(0)).toBe(at());
  });

  it('no flag, no change: the pinned vLLM replays one full graph per decode step', () => {
    expect(step('deepseek-v3', deepseek, { piecewiseGraphs: false })).toBe(
      step('deepseek-v3', deepseek),
    );
  });
});

describe("an overlapped scheduler's step work bounds the step (vLLM async scheduling)", () => {
  const small = (time: Partial<TimeOptions> = {}) =>
    estimateTime(
      resolveModel('qwen3-0.6b'),
      { ...defaultOptions('inference'), framework: 'vllm', batch: 1, seq: 513, promptTokens: 1 },
      findGpu('b200'),
      { ...defaultTimeOptions(8), gpusPerNode: 1, ...time },
    ).stepSeconds;

  it('a 0.6B model on a B200 steps no faster than the host loop (vllm-project/vllm#47089: 1.53 ms measured)', () => {
    expect(LOOP).toBeGreaterThan(0);
    expect(small()).toBeCloseTo(LOOP, 4);
  });

  it('a serial scheduler pays its gap in series instead, with no floor', () => {
    const serial = small({ serialScheduler: true });
    const gap = VLLM_MEMORY.serialStepHostSeconds ?? 0;
    expect(serial).toBeLessThan(LOOP + gap);
    expect(serial).toBeGreaterThan(gap);
  });

  it('an 8B model on an H100 steps longer than the loop: the floor does not bind', () => {
    const o = { weights: 'bf16' };
    expect(step('llama-3.1-8b', o)).toBeGreaterThan(LOOP);
  });
});

describe('attention sinks pick the backend whose eager calls the host issues (vLLM v0.10.1)', () => {
  const gptoss = resolveModel('gpt-oss-20b');
  const { attentionSinks: _dropped, ...noSinks } = gptoss;
  const pwOn = { ...defaultTimeOptions(8), piecewiseGraphs: true };
  const host = (arch: typeof gptoss, cc: number, rows: number) =>
    piecewiseAttentionSeconds(modelFacts(arch), VLLM_MEMORY, pwOn, { cc, rows, tp: 1 }).host;
  const sinks = VLLM_PIECEWISE_ATTENTION_CALLS.sinks;
  const layers = gptoss.groups.reduce((n, g) => n + (g.name === 'decoder' ? g.count : 0), 0);

  it('gpt-oss declares its sinks; a model without them does not', () => {
    expect(gptoss.attentionSinks).toBe(true);
    expect(resolveModel('llama-3.1-8b').attentionSinks).toBeUndefined();
  });

  it('Hopper keeps FlashAttention (FA3 takes the sinks): the same calls as a sink-free model', () => {
    expect(host(gptoss, 9, 1)).toBeCloseTo(host(noSinks, 9, 1), 12);
    expect(host(gptoss, 9, 1)).toBeCloseTo(layers * KV_LAYER, 12);
  });

  it('Blackwell 10.0 runs FlashInfer (its TRT-LLM decode kernel takes the sinks): its torch calls, no Triton launch', () => {
    expect(host(gptoss, 10, 1)).toBeCloseTo(layers * sinks!.flashinfer.torch * EAGER_OP, 12);
    expect(host(gptoss, 10, 16)).toBeCloseTo(host(gptoss, 10, 1), 12);
    expect(host(gptoss, 10, 1)).toBeGreaterThan(host(noSinks, 10, 1));
  });

  it("Ampere and ROCm run Triton: at few sequences the split path's torch calls and two Triton launches", () => {
    const split = sinks!.split;
    const perLayer = split.torch * EAGER_OP + split.triton * TRITON_LAUNCH_SECONDS;
    for (const cc of [8, 0]) {
      expect(host(gptoss, cc, 1)).toBeCloseTo(layers * perLayer, 12);
      expect(host(gptoss, cc, 1)).toBeGreaterThan(host(noSinks, cc, 1));
    }
  });

  it('16 sequences of 64 query heads over 8 K/V heads fill the grid: one Triton kernel a layer', () => {
    // BLOCK_Q = 16 / 8 = 2: (16 // 2 + 16) x 8 = 192 > 128; at 8 sequences (4 + 8) x 8 = 96 <= 128 still splits.
    const single = sinks!.single;
    expect(host(gptoss, 8, 16)).toBeCloseTo(
      layers * (single.torch * EAGER_OP + single.triton * TRITON_LAUNCH_SECONDS),
      12,
    );
    expect(host(gptoss, 8, 8)).toBeCloseTo(host(gptoss, 8, 1), 12);
  });

  it('full decode graphs capture attention: no eager calls with or without sinks', () => {
    const off = { ...pwOn, piecewiseGraphs: false };
    expect(
      piecewiseAttentionSeconds(modelFacts(gptoss), VLLM_MEMORY, off, { cc: 10, rows: 1, tp: 1 }),
    ).toEqual({
      host: 0,
      gpu: 0,
    });
  });
});
