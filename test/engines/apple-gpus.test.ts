// Engines on Apple GPUs (Metal / MPS): those whose own docs or source give them no Apple GPU path (Unsloth's
// get_device_type, vLLM's and SGLang's installation guides, DeepSpeed's MPS accelerator) are refused by
// `estimate --gpu` with that source and never ranked by the planner; llama.cpp (Metal) and the transformers
// engines keep running there.
import { describe, expect, it } from 'vitest';
import '../../src/core/engines/registry.js';
import { runEstimate } from '../../src/commands/estimate-run.js';
import {
  appleOptimizerRefusal,
  appleRefusal,
  optimizerRunsOnApple,
  runsOnApple,
} from '../../src/core/engines/apple.js';
import { plan } from '../../src/core/plan/index.js';
import { planInputOf } from '../../src/io/plan-scenario.js';
import { resolveModel } from '../../src/io/load-model.js';
import { scenarioSchema } from '../../src/schema/scenario.js';
import type { RawFlags } from '../../src/schema/flags.js';
import { stdoutOf } from '../helpers/published-configs.js';

const M4 = 'apple-m4-max-128gb';
const estimate = (flags: Record<string, unknown>): string =>
  stdoutOf(() => runEstimate(resolveModel('llama-2-7b'), flags as RawFlags, true));

describe('engines with no Apple GPU path', () => {
  it('estimate refuses Unsloth on an M4 Max, quoting unsloth_zoo get_device_type', () => {
    const run = () => estimate({ framework: 'unsloth', method: 'lora', gpu: M4 });
    expect(run).toThrow(/unsloth has no Apple GPU path/);
    expect(run).toThrow(/only works on NVIDIA, AMD and Intel GPUs.*unsloth_zoo\/device_type\.py/);
  });

  it('estimate refuses vLLM, SGLang and hf-deepspeed there, each with its own source', () => {
    expect(() => estimate({ framework: 'vllm', method: 'inference', gpu: M4 })).toThrow(
      /docs\.vllm\.ai.*installation\/cpu/,
    );
    expect(() => estimate({ framework: 'sglang', method: 'inference', gpu: M4 })).toThrow(
      /hardware-platforms\/apple_metal/,
    );
    expect(() => estimate({ framework: 'hf-deepspeed', method: 'lora', gpu: M4 })).toThrow(
      /mps_accelerator\.py/,
    );
    expect(() => estimate({ framework: 'hf-fsdp', method: 'lora', gpu: M4 })).toThrow(
      /Accelerate runs no FSDP on MPS.*accelerate\/blob\/beb0672a.*state\.py/,
    );
  });

  it('the same engines estimate on NVIDIA GPUs, and the engines with an Apple path estimate on the M4 Max', () => {
    expect(() => estimate({ framework: 'unsloth', method: 'lora', gpu: 'h100-sxm' })).not.toThrow();
    expect(() => estimate({ framework: 'hf-trainer', method: 'lora', gpu: M4 })).not.toThrow();
    expect(() =>
      estimate({ framework: 'llama.cpp', method: 'inference', weights: 'q4_k_m', gpu: M4 }),
    ).not.toThrow();
    expect(appleRefusal('unsloth', { vendor: 'nvidia' })).toBeNull();
    expect(runsOnApple('llama.cpp')).toBe(true);
    expect(runsOnApple('hf-generate')).toBe(true);
  });
});

describe("bitsandbytes' 8-bit and paged optimizers on Apple GPUs", () => {
  it('estimate refuses them there, citing the kernels bitsandbytes registers', () => {
    const run = (optimizer: string) => () =>
      estimate({ framework: 'hf-trainer', method: 'lora', optimizer, gpu: M4 });
    expect(run('adamw-8bit')).toThrow(/--optimizer.*optimizer_update_8bit_blockwise.*none for MPS/);
    expect(run('paged-adamw')).toThrow(/cget_managed_ptr/);
    expect(run('paged-adamw-8bit')).toThrow(/optimizer_update_8bit_blockwise.*cget_managed_ptr/);
    expect(run('adamw')).not.toThrow();
    expect(() =>
      estimate({
        framework: 'hf-trainer',
        method: 'lora',
        optimizer: 'adamw-8bit',
        gpu: 'h100-sxm',
      }),
    ).not.toThrow();
  });

  it('the optimizer profiles say which step on Apple GPUs', () => {
    expect(optimizerRunsOnApple('adamw-8bit')).toBe(false);
    expect(optimizerRunsOnApple('paged-adamw-8bit')).toBe(false);
    expect(optimizerRunsOnApple('adamw')).toBe(true);
    expect(appleOptimizerRefusal('adamw-8bit', { vendor: 'nvidia' })).toBeNull();
  });
});

describe('plans on one M4 Max', () => {
  const scenario = (kind: 'fine-tune' | 'inference') =>
    scenarioSchema.parse({
      name: 'm4',
      model: 'llama-2-7b',
      job:
        kind === 'fine-tune'
          ? { kind, methods: ['lora'], seq: 2048, globalBatch: 16 }
          : { kind, context: 4096, concurrency: 4, outputTokens: 1000000 },
      hardware: { owned: [{ gpu: M4, count: 1 }], counts: { min: 1, max: 1 } },
    });

  it('a LoRA ranks only engines that run on Apple GPUs (not Unsloth or DeepSpeed)', () => {
    const r = plan({ ...planInputOf('m4.yaml', scenario('fine-tune')), top: 50 });
    expect(r.plans.length).toBeGreaterThan(0);
    const engines = new Set(r.plans.map((p) => p.choices.engine));
    for (const e of engines) expect(runsOnApple(e)).toBe(true);
    expect(engines.has('unsloth')).toBe(false);
    expect(engines.has('hf-deepspeed')).toBe(false);
    expect(engines.has('hf-fsdp')).toBe(false);
    for (const p of r.plans) expect(optimizerRunsOnApple(p.options.optimizer)).toBe(true);
  });

  it('serving ranks no vLLM or SGLang plan', () => {
    const r = plan({ ...planInputOf('m4.yaml', scenario('inference')), top: 50 });
    expect(r.plans.length).toBeGreaterThan(0);
    const engines = new Set(r.plans.map((p) => p.choices.engine));
    expect(engines.has('vllm')).toBe(false);
    expect(engines.has('sglang')).toBe(false);
    for (const e of engines) expect(runsOnApple(e)).toBe(true);
  });
});
