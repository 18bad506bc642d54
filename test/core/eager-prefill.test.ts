// SGLang 0.5.6 captures decode steps in CUDA graphs but runs prefill (extend) batches eagerly (its piecewise graphs
// for extend are off by default): a prefill takes at least the host's launches of its kernels
// (FrameworkProfile.eagerPrefill, time/decode.ts eagerPrefillHostSeconds). Under the overlapped scheduler a
// neighbour's prefill is launched while the GPU still runs the decode step before it, so the decoding requests
// wait only for the launches beyond that step (servingTime), unless the attention backend reads a device value back
// before the prefill's first launch (FlashInfer's extend metadata: FrameworkProfile.prefillHostSync).
import { describe, expect, it } from 'vitest';
import { withEngineDefaults } from '../../src/core/engines/defaults.js';
import {
  decodeStep,
  decodeTraffic,
  eagerPrefillHostSeconds,
  prefillGpuSeconds,
  prefillTime,
} from '../../src/core/time/decode.js';
import { servingTime } from '../../src/core/time/serving-request.js';
import { gpuRates } from '../../src/core/time/hardware.js';
import { modelFacts } from '../../src/core/time/model-facts.js';
import { OPS_PER_LAYER_COMPILED } from '../../src/core/time/train-work.js';
import { SGLANG_EAGER_CALL_SECONDS, SGLANG_MEMORY } from '../../src/core/engines/sglang/memory.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { defaultTimeOptions } from '../../src/schema/time.js';
import { meanContextOf } from '../../src/schema/estimate.js';

const setup = (model: string, framework: string, batch: number, gpu = 'b200') => {
  const f = {
    method: 'inference',
    framework,
    gpus: 8,
    tp: 8,
    batch,
    seq: 1000,
    'prompt-tokens': 500,
  };
  const o = withEngineDefaults(optionsFromFlags(f), f);
  const t = defaultTimeOptions(o.gpus);
  const r = gpuRates(findGpu(gpu), t);
  const m = modelFacts(resolveModel(model));
  const gpuPrefill = () =>
    prefillTime(m, { ...o, framework: 'vllm' }, r, decodeTraffic(m, o, t, r, 1, 500), 500, 1);
  const step = () => decodeStep(m, o, t, r, false, meanContextOf(o)).stepSeconds;
  return { m, o, t, r, gpuPrefill, step };
};

describe('an eagerly launched prefill (SGLang)', () => {
  it("counts each layer's kernels, its two all-reduces, an MoE layer's routing kernels and Qwen3's q/k norms at SGLang's price a call", () => {
    const { m, o } = setup('qwen3-235b-a22b', 'sglang', 1);
    expect(m.moeLayers).toBeGreaterThan(0);
    const kernels =
      m.layers * (OPS_PER_LAYER_COMPILED + 2) +
      m.moeLayers * (SGLANG_MEMORY.moeRoutingKernels ?? 0) +
      m.qkNormLayers * (SGLANG_MEMORY.qkNormKernels?.eager ?? 0);
    expect(eagerPrefillHostSeconds(m, o)).toBeCloseTo(kernels * SGLANG_EAGER_CALL_SECONDS, 9);
  });

  it('is 0 for an engine that captures its prefills (vLLM)', () => {
    const { m, o } = setup('qwen3-235b-a22b', 'vllm', 1);
    expect(eagerPrefillHostSeconds(m, o)).toBe(0);
  });

  it('a short prompt of a wide MoE on B200s waits for the host; its TTFT is the launches and a step', () => {
    const { m, o, t, r, gpuPrefill, step } = setup('qwen3-235b-a22b', 'sglang', 1);
    const host = eagerPrefillHostSeconds(m, o);
    expect(gpuPrefill()).toBeLessThan(host);
    expect(servingTime(m, o, t, r).ttft).toBeCloseTo(host + step(), 9);
  });

  it('a neighbour stalls a decoding request for the launches beyond one decode step (overlapped scheduler, FA3 on Hopper)', () => {
    const B = 16;
    const { m, o, t, r, gpuPrefill, step } = setup('qwen3-235b-a22b', 'sglang', B, 'h100-sxm');
    const host = eagerPrefillHostSeconds(m, o);
    expect(host - step()).toBeGreaterThan(gpuPrefill());
    const out = 500;
    expect(servingTime(m, o, t, r).tpot).toBeCloseTo(step() + ((host - step()) * (B - 1)) / out, 9);
    // In series with the GPU (a serial scheduler) the whole launch stalls the batch.
    const serial = { ...t, serialScheduler: true };
    const serialStep = decodeStep(m, o, serial, r, false, meanContextOf(o)).stepSeconds;
    expect(servingTime(m, o, serial, r).tpot).toBeCloseTo(serialStep + (host * (B - 1)) / out, 9);
  });

  it("FlashInfer's prefill waits for the decode step before it: a neighbour stalls the batch for all its launches (B200)", () => {
    const B = 90;
    const { m, o, t, r, gpuPrefill, step } = setup('qwen3-235b-a22b', 'sglang', B);
    const host = eagerPrefillHostSeconds(m, o);
    expect(host).toBeGreaterThan(gpuPrefill());
    const out = 500;
    expect(servingTime(m, o, t, r).tpot).toBeCloseTo(step() + (host * (B - 1)) / out, 9);
  });

  it("a dense 70B's prefill on A100s outlasts its launches: unchanged", () => {
    const { m, o, t, r, step } = setup('llama-3.1-70b', 'sglang', 13, 'a100-80gb-sxm');
    // SGLang's own GPU work (its all-reduces are its custom kernel's, not vLLM's), without the launches.
    const gpu = prefillGpuSeconds(m, o, r, decodeTraffic(m, o, t, r, 1, 500), 500, 1);
    expect(gpu).toBeGreaterThan(eagerPrefillHostSeconds(m, o));
    expect(servingTime(m, o, t, r).ttft).toBeCloseTo(gpu + step(), 9);
  });

  it("vLLM's chunked prefill shares the decode step's weight read: a neighbour's prefill costs its work alone", () => {
    const B = 16;
    const { m, o, t, r, gpuPrefill } = setup('llama-3.1-70b', 'vllm', B, 'h100-sxm');
    const out = 500;
    const stall = (time: typeof t) => {
      const step = decodeStep(m, o, time, r, false, meanContextOf(o)).stepSeconds;
      return ((servingTime(m, o, time, r).tpot - step) * out) / (B - 1);
    };
    // 70B over TP 8: 17.6 GB of weights a GPU, about 5 ms at the H100's modelled read rate.
    expect(gpuPrefill() - stall(t)).toBeGreaterThan(3e-3);
    // The V0 engine prefilled in a step of its own: the whole prefill.
    expect(stall({ ...t, v0Scheduler: true })).toBeCloseTo(gpuPrefill(), 9);
    // A V0 server with --enable-chunked-prefill batched the decodes and the prefill chunks into one forward.
    const v0Chunked = { ...t, v0Scheduler: true, v0ChunkedPrefill: true };
    expect(gpuPrefill() - stall(v0Chunked)).toBeGreaterThan(3e-3);
  });
});
