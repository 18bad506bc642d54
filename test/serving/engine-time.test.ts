// a static batch (vLLM benchmark_latency, SGLang bench_one_batch)
// is one prefill then output-1 decode steps; vLLM and SGLang reduce tensor-parallel activations with their own
// all-reduce over NVLink; vLLM V1 leaves the GPU idle for its step's host work; Marlin on Hopper reads below
// the Ampere efficiency.
import { describe, expect, it } from 'vitest';
import { withEngineDefaults } from '../../src/core/engines/defaults.js';
import { estimateTime, staticBatchSeconds } from '../../src/core/time/index.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { timeOptionsFromFlags } from '../../src/schema/time.js';
import { ALLREDUCE_LATENCY_NVLINK, ALLREDUCE_LATENCY_PCIE } from '../../src/core/time/nccl-ring.js';

const setup = (model: string, gpu: string, flags: Record<string, unknown>) => {
  const f = { method: 'inference', ...flags };
  const o = withEngineDefaults(optionsFromFlags(f), f);
  return { arch: resolveModel(model), o, g: findGpu(gpu), t: timeOptionsFromFlags(f, o) };
};
const time = (model: string, gpu: string, flags: Record<string, unknown>) => {
  const { arch, o, g, t } = setup(model, gpu, flags);
  return estimateTime(arch, o, g, t);
};
const batch = (model: string, gpu: string, flags: Record<string, unknown>) => {
  const { arch, o, g, t } = setup(model, gpu, flags);
  return staticBatchSeconds(arch, o, g, t);
};
const phase = (r: ReturnType<typeof estimateTime>, p: string) =>
  r.phases.find((x) => x.phase === p)!.seconds;

describe('a static batch: one prefill, then a decode step per further output token', () => {
  const base = { framework: 'vllm', 'prompt-tokens': 256, batch: 4 };
  it('one output token costs the prefill alone; each further token about one decode step', () => {
    const one = batch('llama-3.1-8b', 'h100-sxm', { ...base, seq: 257 });
    // estimateTime's prefill phase prefills the batch's prompts: 4 prompts of 256 tokens here.
    const prefill = phase(time('llama-3.1-8b', 'h100-sxm', { ...base, seq: 257 }), 'prefill');
    expect(Math.abs(one / prefill - 1)).toBeLessThan(1e-3);
    const a = batch('llama-3.1-8b', 'h100-sxm', { ...base, seq: 288 });
    const b = batch('llama-3.1-8b', 'h100-sxm', { ...base, seq: 320 });
    const step = time('llama-3.1-8b', 'h100-sxm', { ...base, seq: 288 }).stepSeconds;
    // 32 more output tokens: 32 more steps, each a little slower (their mean context grows by 16 tokens).
    expect((b - a) / 32).toBeGreaterThan(step * 0.99);
    expect((b - a) / 32).toBeLessThan(step * 1.05);
  });
  it("the prefill phase is the prompts' alone: a longer context past the same prompt leaves it as it is", () => {
    const at = (seq: number) =>
      phase(time('qwen2.5-72b', 'a100-80gb-sxm', { ...base, seq }), 'prefill');
    expect(at(8192)).toBe(at(2048));
    const longer = { ...base, 'prompt-tokens': 1024 };
    expect(
      phase(time('qwen2.5-72b', 'a100-80gb-sxm', { ...longer, seq: 8192 }), 'prefill'),
    ).toBeGreaterThan(at(8192) * 2);
  });
  it('a bigger batch takes longer (its prefill grows with the prompts)', () => {
    const b1 = batch('llama-3.1-8b', 'h100-sxm', { ...base, batch: 1, seq: 288 });
    const b16 = batch('llama-3.1-8b', 'h100-sxm', { ...base, batch: 16, seq: 288 });
    expect(b16).toBeGreaterThan(b1);
  });
});

describe('serving engines own all-reduce', () => {
  const f = { seq: 2048, 'prompt-tokens': 1024, batch: 1, gpus: 4, tp: 4 };
  it('vLLM and SGLang reduce over NVLink in ~9 µs where NCCL takes ~25 µs', () => {
    const nccl = phase(
      time('llama-3.1-70b', 'h100-sxm', { ...f, framework: 'hf' }),
      'tensor-parallel',
    );
    for (const framework of ['vllm', 'sglang']) {
      const own = phase(time('llama-3.1-70b', 'h100-sxm', { ...f, framework }), 'tensor-parallel');
      // 2 all-reduces x 80 layers x (25 - 9) µs, the data term being the same, less what only the engine runs: its
      // vocabulary-parallel embedding's all-reduce (9 µs) and the logits' gather through NCCL (25 µs); their data
      // terms are under a microsecond at one sequence.
      expect(nccl - own).toBeCloseTo(2 * 80 * 16e-6 - 9e-6 - ALLREDUCE_LATENCY_NVLINK, 5);
    }
  });
  it('over PCIe the engine pays the same latency as NCCL', () => {
    const p = { ...f, gpus: 2, tp: 2, interconnect: 'pcie' };
    const hf = phase(
      time('llama-3.1-8b', 'rtx-a6000', { ...p, framework: 'hf' }),
      'tensor-parallel',
    );
    const vl = phase(
      time('llama-3.1-8b', 'rtx-a6000', { ...p, framework: 'vllm' }),
      'tensor-parallel',
    );
    // The same latency a call; the engine's two calls more (the vocabulary-parallel embedding's all-reduce and the
    // logits' gather) each pay NCCL's PCIe latency, plus a few microseconds of data.
    expect(vl - hf).toBeGreaterThan(2 * ALLREDUCE_LATENCY_PCIE);
    expect(vl - hf).toBeLessThan(2 * ALLREDUCE_LATENCY_PCIE + 10e-6);
  });
});

describe('serial schedulers and Marlin on Hopper', () => {
  const f = { seq: 288, 'prompt-tokens': 256, batch: 1 };
  it('the pinned engines overlap their scheduling; a serial scheduler adds its step gap', () => {
    const { arch, o, g, t } = setup('llama-3.1-8b', 'h100-sxm', { ...f, framework: 'vllm' });
    const s = setup('llama-3.1-8b', 'h100-sxm', { ...f, framework: 'sglang' });
    const step = (x: typeof s, serial: boolean) =>
      estimateTime(x.arch, x.o, x.g, { ...x.t, serialScheduler: serial }).stepSeconds;
    // Overlapped (vLLM async scheduling by default, SGLang's overlap scheduler): the same step but for vLLM's sampler
    // passes over the logits (time/sampler-step.ts: 10 B a logit, 1.3 MB at one Llama-3.1-8B request, under 1 µs).
    const vllmStep = estimateTime(arch, o, g, t).stepSeconds;
    expect(vllmStep).toBeCloseTo(step(s, false), 5);
    expect(vllmStep).toBeGreaterThanOrEqual(step(s, false));
    // vLLM V1's serial step: 0.13 ms plus 10 µs per running request (serialSeqHostSeconds), at this batch of one.
    expect(step({ arch, o, g, t }, true) - step({ arch, o, g, t }, false)).toBeCloseTo(
      1.3e-4 + o.batch * 1e-5,
      6,
    );
    expect(step(s, true) - step(s, false)).toBeCloseTo(0.87e-3, 6);
  });
  it('Marlin int4 reads at 0.57 of the bandwidth bound on an H100, 0.9 on an A100', () => {
    const w = { ...f, framework: 'vllm', weights: 'int4' };
    const h = phase(time('llama-3.1-8b', 'h100-sxm', w), 'decode-weights');
    const a = phase(time('llama-3.1-8b', 'a100-80gb-sxm', w), 'decode-weights');
    const hb = phase(time('llama-3.1-8b', 'h100-sxm', { ...w, weights: 'bf16' }), 'decode-weights');
    const ab = phase(
      time('llama-3.1-8b', 'a100-80gb-sxm', { ...w, weights: 'bf16' }),
      'decode-weights',
    );
    // Relative to bf16 on the same card (the 16-bit lm_head is common to both), Hopper's int4 share is larger.
    expect(h / hb).toBeGreaterThan((a / ab) * 1.3);
  });
});
