// bf16 on cards without bf16 tensor cores (Volta, Turing): cuBLAS runs the matmuls on CUDA cores at the card's
// measured rate (catalog gemmBf16EmulatedTflops), else at its fp32 rate (src/core/time/hardware.ts bf16Rate).
import { describe, expect, it } from 'vitest';
import { estimateTime, gpuRates } from '../../src/core/time/index.js';
import { timeVerdict } from '../../src/core/time/verdict.js';
import { timeLines } from '../../src/ui/estimate-text.js';
import { plan } from '../../src/core/plan/index.js';
import { planInputOf } from '../../src/io/plan-scenario.js';
import { scenarioSchema } from '../../src/schema/scenario.js';
import { resolveModel } from '../../src/io/load-model.js';
import { defaultOptions } from '../../src/schema/estimate.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

const rates = (id: string, powerLimit = 1) =>
  gpuRates(findGpu(id), { ...defaultTimeOptions(1), powerLimit });

describe('bf16 matmul rate without bf16 tensor cores', () => {
  it('a T4 and a V100 run bf16 at their measured CUDA-core rates, far below their fp16 tensor rates', () => {
    const t4 = rates('t4');
    // 2.20 TFLOPS at 4096^3 over shapeFactor(4096, 4096) 0.941 (catalog gemmBf16EmulatedTflops).
    expect(t4.gemmBf16Emulated! / 1e12).toBeCloseTo(2.34, 6);
    expect(t4.gemm16 / t4.gemmBf16Emulated!).toBeGreaterThan(10);
    // V100-PCIE-32GB: 9.6 TFLOPS bf16 against 14.0 fp32 (lablup/mlxcel#1654).
    expect(rates('v100-32gb').gemmBf16Emulated! / 1e12).toBeCloseTo(9.6, 6);
    expect(rates('v100-16gb').gemmBf16Emulated!).toBeLessThan(rates('v100-16gb').gemm32);
  });

  it('a card without a measured rate takes its fp32 CUDA-core rate; cards with bf16 tensor cores have none', () => {
    const titan = rates('titan-rtx');
    expect(titan.gemmBf16Emulated).toBe(titan.gemm32);
    expect(rates('a100-80gb-sxm').gemmBf16Emulated).toBeUndefined();
    expect(rates('rtx-4090').gemmBf16Emulated).toBeUndefined();
    expect(rates('l4').gemmBf16Emulated).toBeUndefined();
  });

  it('a power limit takes its share of the emulated rate too', () => {
    expect(rates('t4', 0.5).gemmBf16Emulated!).toBeLessThan(rates('t4').gemmBf16Emulated!);
  });
});

describe('a bf16 estimate on a T4', () => {
  const arch = resolveModel('qwen2.5-0.5b');
  const lora = { ...defaultOptions('lora'), seq: 1024 };
  const t4 = findGpu('t4');
  const bf16 = estimateTime(arch, { ...lora, compute: 'bf16' }, t4, defaultTimeOptions(1));
  const fp16 = estimateTime(arch, { ...lora, compute: 'fp16' }, t4, defaultTimeOptions(1));

  it('is timed at the emulated rate: several times the fp16 step', () => {
    expect(bf16.stepSeconds / fp16.stepSeconds).toBeGreaterThan(4);
    expect(bf16.tensorTflops.bf16Emulated).toBeCloseTo(2.3, 6);
    expect(fp16.tensorTflops.bf16Emulated).toBeUndefined();
  });

  it('says so, and names --compute fp16 as the lift', () => {
    expect(timeLines(bf16).some((l) => /bf16 is emulated here/.test(l))).toBe(true);
    expect(timeLines(fp16).some((l) => /emulated/.test(l))).toBe(false);
    expect(timeVerdict(bf16).lift).toMatch(/^--compute fp16/);
  });

  it('an A100 times bf16 and fp16 alike', () => {
    const a100 = findGpu('a100-80gb-sxm');
    const a = estimateTime(arch, { ...lora, compute: 'bf16' }, a100, defaultTimeOptions(1));
    const b = estimateTime(arch, { ...lora, compute: 'fp16' }, a100, defaultTimeOptions(1));
    expect(a.stepSeconds).toBe(b.stepSeconds);
  });
});

describe('the planner on a T4', () => {
  it('plans fp16 and searches at the fp16 rate, not the emulated bf16 one', () => {
    const scenario = scenarioSchema.parse({
      name: 't4-bf16',
      model: 'qwen2.5-0.5b',
      job: { kind: 'fine-tune', methods: ['lora'], seq: 512, globalBatch: 4, datasetTokens: 1e6 },
      hardware: { owned: [{ gpu: 't4', count: 1 }], counts: { min: 1, max: 1 } },
      search: {
        optimizers: ['adamw'],
        checkpointing: ['none'],
        attention: ['sdpa'],
        microBatches: [1],
      },
    });
    const r = plan(planInputOf('test.yaml', scenario));
    expect(r.plans.length).toBeGreaterThan(0);
    for (const p of r.plans) {
      expect(p.options.compute).not.toBe('bf16');
      // The search's tokens/s and the plan's own fp16 step agree (one GPU).
      expect(p.time.tokensPerSecond / p.time.tokensPerSecondPerGpu).toBeCloseTo(1, 2);
    }
  });
});
