// Liger's kernels on Apple GPUs: liger-kernel requires Triton, which PyPI publishes for Linux only, so a Hugging Face
// run that loads Liger (--liger, or a chunked loss through Liger) is refused there by `estimate --gpu`, blocked by
// launch and kept off by the planner, which keeps the plan without Liger that its Liger twin would have dropped.
import { describe, expect, it } from 'vitest';
import '../../src/core/engines/registry.js';
import { runEstimate } from '../../src/commands/estimate-run.js';
import { appleKernelsRefusal } from '../../src/core/engines/apple.js';
import { gpuRefusal } from '../../src/core/engines/gpu-refusal.js';
import { engineOf } from '../../src/core/engines/index.js';
import { explainFit } from '../../src/core/plan/index.js';
import { defaultOptions } from '../../src/schema/estimate.js';
import { gpuBlocker } from '../../src/core/launch/index.js';
import { plan } from '../../src/core/plan/index.js';
import { planInputOf } from '../../src/io/plan-scenario.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { scenarioSchema } from '../../src/schema/scenario.js';
import type { RawFlags } from '../../src/schema/flags.js';
import { stdoutOf } from '../helpers/published-configs.js';

const M4 = 'apple-m4-max-128gb';
const estimate = (flags: Record<string, unknown>): string =>
  stdoutOf(() => runEstimate(resolveModel('llama-3.1-8b'), flags as RawFlags, true));

/** A LoRA of Llama 3.1 8B on one `gpu` with hf-trainer. */
function lora(gpu: string) {
  const s = scenarioSchema.parse({
    name: 'liger-lora',
    model: 'llama-3.1-8b',
    job: { kind: 'fine-tune', methods: ['lora'], seq: 2048, globalBatch: 16, datasetTokens: 1e7 },
    hardware: { owned: [{ gpu, count: 1 }], counts: { min: 1, max: 1 } },
    search: { engines: ['hf-trainer'], optimizers: ['adamw'], attention: ['sdpa'] },
  });
  return plan({ ...planInputOf('liger-lora.yaml', s), top: 20 });
}

describe("Liger's kernels on an Apple GPU", () => {
  it('a LoRA on an M4 Max plans hf-trainer without Liger, and pruned the Liger rows for that reason', () => {
    const r = lora(M4);
    expect(r.plans.length).toBeGreaterThan(0);
    for (const p of r.plans) expect(p.options.liger).toBe(false);
    expect(r.pruned.map((p) => p.code)).toContain('no-apple-kernels');
  });

  it('on an RTX 4090 the first LoRA plan still loads Liger and no row is pruned for it', () => {
    const r = lora('rtx-4090');
    expect(r.plans[0]!.options.liger).toBe(true);
    expect(r.pruned.map((p) => p.code)).not.toContain('no-apple-kernels');
  });

  it('estimate --gpu refuses --liger and an hf chunked loss there, and launch blocks with the same reason', () => {
    const base = { method: 'lora', framework: 'hf', gpu: M4 };
    expect(() => estimate({ ...base, liger: true })).toThrow(
      /--liger: got true; expected off on the M4 Max/,
    );
    expect(() => estimate({ ...base, 'chunked-loss': true })).toThrow(/--chunked-loss: got true/);
    expect(() => estimate(base)).not.toThrow();
    const o = {
      method: 'lora',
      optimizer: 'adamw',
      weights: 'bf16',
      liger: true,
      chunkedLoss: false,
    } as const;
    const why = appleKernelsRefusal('hf-trainer', { vendor: 'apple' }, o);
    expect(why).toMatch(/triton/);
    expect(gpuBlocker('hf-trainer', findGpu(M4), o)).toBe(why);
    // Inference and engines that do not load Liger are untouched.
    expect(
      appleKernelsRefusal('hf-trainer', { vendor: 'apple' }, { ...o, method: 'inference' }),
    ).toBeNull();
    expect(
      appleKernelsRefusal('torchtune', { vendor: 'apple' }, { ...o, chunkedLoss: true }),
    ).toBeNull();
    expect(appleKernelsRefusal('hf-trainer', { vendor: 'nvidia' }, o)).toBeNull();
  });

  it("explain's fixes on an Apple GPU are ones estimate --gpu accepts there: no Liger", () => {
    const gpu = findGpu('apple-m3-max-128gb');
    const e = explainFit(
      resolveModel('llama-3.1-8b'),
      { ...defaultOptions('full'), seq: 16384, batch: 4 },
      gpu,
    );
    expect(e.fits).toBe(false);
    expect(e.fixes.length).toBeGreaterThan(0);
    for (const f of e.fixes) {
      expect(f.options.liger).toBe(false);
      expect(gpuRefusal(engineOf(f.options), gpu, f.options)).toBeNull();
    }
  });
});
