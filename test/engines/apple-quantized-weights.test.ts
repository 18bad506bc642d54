// Quantized base weights on Apple GPUs, as the libraries each engine's launch folder pins run them (the profiles'
// appleWeights): transformers with bitsandbytes 0.50.2 (hf-trainer, hf-generate) runs nf4, fp4 and int8 on MPS,
// torchtune's torchao NF4Tensor is plain torch, and LitGPT's Lightning BitsandbytesPrecision is CUDA only.
// `estimate --gpu` and the planner read the same field: what runs is estimated and planned, what fails is refused
// by both.
import { describe, expect, it } from 'vitest';
import '../../src/core/engines/registry.js';
import { runEstimate } from '../../src/commands/estimate-run.js';
import { appleWeightsOf, appleWeightsRefusal } from '../../src/core/engines/apple.js';
import { buildLaunch, bundleBlocked, gpuBlocker } from '../../src/core/launch/index.js';
import { parse } from 'yaml';
import { launchInputOf } from '../helpers/launch.js';
import { plan } from '../../src/core/plan/index.js';
import { planInputOf } from '../../src/io/plan-scenario.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { scenarioSchema } from '../../src/schema/scenario.js';
import type { RawFlags } from '../../src/schema/flags.js';
import type { Engine } from '../../src/schema/engine.js';
import { stdoutOf } from '../helpers/published-configs.js';
import { int8ForwardExtraSeconds } from '../../src/core/time/bnb-dequant.js';
import { INT8_FORWARD_GEMM_SLOWDOWN } from '../../src/core/time/train-work.js';

const M4 = 'apple-m4-max-128gb';
const APPLE = { vendor: 'apple' } as const;
const estimate = (flags: Record<string, unknown>): string =>
  stdoutOf(() => runEstimate(resolveModel('llama-3.1-8b'), flags as RawFlags, true));

/** A QLoRA of Llama 3.1 8B on one M4 Max, over `engines` (all by default) and `optimizers`. */
function qlora(engines?: Engine[], optimizers = ['adamw']) {
  const s = scenarioSchema.parse({
    name: 'm4-qlora',
    model: 'llama-3.1-8b',
    job: { kind: 'fine-tune', methods: ['qlora'], seq: 2048, globalBatch: 16, datasetTokens: 1e7 },
    hardware: { owned: [{ gpu: M4, count: 1 }], counts: { min: 1, max: 1 } },
    search: {
      optimizers,
      checkpointing: ['none', 'full'],
      attention: ['sdpa'],
      ...(engines ? { engines } : {}),
    },
  });
  return plan({ ...planInputOf('m4-qlora.yaml', s), top: 50 });
}

describe('quantized weights on an M4 Max', () => {
  it('a QLoRA plans 4-bit plans on the engines whose pinned stack runs them there', () => {
    const r = qlora();
    expect(r.plans.length).toBeGreaterThan(0);
    for (const p of r.plans) {
      expect(['nf4', 'fp4']).toContain(p.options.weights);
      expect(appleWeightsOf(p.choices.engine, p.options.weights)).toBe('runs');
    }
    const engines = new Set(r.plans.map((p) => p.choices.engine));
    expect(engines.has('hf-trainer')).toBe(true);
    expect(engines.has('litgpt')).toBe(false);
  });

  it('torchtune QLoRA (torchao NF4) plans and estimates there, and its recipe runs on device mps', () => {
    const r = qlora(['torchtune']);
    expect(r.plans.length).toBeGreaterThan(0);
    expect(r.plans.every((p) => p.options.weights === 'nf4')).toBe(true);
    expect(() => estimate({ framework: 'torchtune', method: 'qlora', gpu: M4 })).not.toThrow();
    const device = (gpu: string) => {
      const b = buildLaunch(
        launchInputOf('llama-3.1-8b', gpu, { method: 'qlora', framework: 'torchtune' }),
      );
      expect(bundleBlocked(b)).toBeNull();
      const yaml = b.files.find((f) => f.path === 'torchtune.yaml')!;
      return (parse(yaml.content) as { device: string }).device;
    };
    expect(device(M4)).toBe('mps');
    expect(device('h100-sxm')).toBe('cuda');
  });

  it('transformers + bitsandbytes estimate nf4, fp4 and int8 there', () => {
    for (const weights of ['nf4', 'fp4'])
      expect(() =>
        estimate({ framework: 'hf-trainer', method: 'qlora', weights, gpu: M4 }),
      ).not.toThrow();
    expect(() =>
      estimate({ framework: 'hf-trainer', method: 'lora', weights: 'int8', gpu: M4 }),
    ).not.toThrow();
    expect(appleWeightsOf('hf-generate', 'nf4')).toBe('runs');
  });

  it('LitGPT is refused by estimate and kept off by plan, for the same source line', () => {
    const why = appleWeightsRefusal('litgpt', APPLE, 'nf4');
    expect(why).toMatch(/Bitsandbytes is only supported on CUDA GPUs.*fabric\/connector\.py/);
    const run = () =>
      estimate({ framework: 'litgpt', method: 'qlora', optimizer: 'paged-adamw', gpu: M4 });
    expect(run).toThrow(/--weights: got 'nf4'/);
    expect(run).toThrow(why!);
    const r = qlora(['litgpt'], ['paged-adamw']);
    expect(r.plans).toHaveLength(0);
    expect(r.pruned.map((p) => p.code)).toContain('no-apple-weights');
    // launch refuses alike.
    expect(
      gpuBlocker('litgpt', findGpu(M4), {
        method: 'qlora',
        optimizer: 'paged-adamw',
        weights: 'nf4',
        liger: false,
        chunkedLoss: false,
      }),
    ).toBe(why);
    // On NVIDIA GPUs it runs.
    expect(appleWeightsRefusal('litgpt', { vendor: 'nvidia' }, 'nf4')).toBeNull();
    expect(() =>
      estimate({ framework: 'litgpt', method: 'qlora', optimizer: 'paged-adamw', gpu: 'h100-sxm' }),
    ).not.toThrow();
  });

  it('a format no profile reads for Apple GPUs is left out of plans there, not refused by estimate', () => {
    expect(appleWeightsOf('hf-generate', 'int4')).toBe('unread');
    expect(appleWeightsRefusal('hf-generate', APPLE, 'int4')).toBeNull();
    expect(appleWeightsOf('hf-trainer', 'bf16')).toBeNull();
  });
});

describe("LLM.int8's forward matmuls on an Apple GPU", () => {
  const flops = 2 * 2048 * 7e9;
  it("run bitsandbytes' default op there: an fp32 matmul at the GEMM's shape plus the weight's cast to fp32", () => {
    const mps = { apple: true, gemm32: 20e12, mem: 400e9 };
    // 7e9 weight elements, 1 B read and 4 B written each.
    expect(int8ForwardExtraSeconds(flops, 2048, mps, 10e12, 0.5)).toBeCloseTo(
      flops / 10e12 - flops / 10e12 + (7e9 * 5) / 400e9,
      9,
    );
    expect(int8ForwardExtraSeconds(0, 2048, mps, 10e12, 0.5)).toBe(0);
  });

  it("keep CUDA's int8 slowdown elsewhere", () => {
    const cuda = { gemm32: 50e12, mem: 3e12 };
    expect(int8ForwardExtraSeconds(flops, 2048, cuda, 500e12, 0.8)).toBe(
      (flops * (INT8_FORWARD_GEMM_SLOWDOWN - 1)) / 500e12,
    );
  });

  it('an int8 LoRA on an M4 Max dequantizes in a small share of its step', () => {
    const out = JSON.parse(
      estimate({ framework: 'hf-trainer', method: 'lora', weights: 'int8', gpu: M4, json: true }),
    ) as { time: { stepSeconds: number; phases: { phase: string; seconds: number }[] } };
    const deq = out.time.phases.find((p) => p.phase === 'dequantize')!.seconds;
    expect(deq).toBeGreaterThan(0);
    expect(deq / out.time.stepSeconds).toBeLessThan(0.1);
  });
});
