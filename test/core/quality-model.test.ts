/**
 * Quality by model: Unsloth's Qwen3.5 guide advises against 4-bit QLoRA on Qwen3.5 (dense or MoE: larger than
 * normal quantization differences), so an NF4 base trains at the lossy tier there and near elsewhere; the
 * default search (quality near) then plans Qwen3.5-27B without QLoRA.
 */
import { describe, expect, it } from 'vitest';
import { qualityOf } from '../../src/core/plan/quality.js';
import { plan } from '../../src/core/plan/index.js';
import { parseScenario } from '../../src/io/load-scenario.js';
import { planInputOf } from '../../src/io/plan-scenario.js';
import { optionsFromFlags } from '../../src/schema/flags.js';

const GEMMA2_DPO = `
name: Gemma-2-9B DPO on one A10G
model: gemma-2-9b
job: { kind: fine-tune, objective: dpo, methods: [lora, qlora], seq: 1024, globalBatch: 32, datasetTokens: 10000000 }
hardware: { rent: { gpus: [a10g], providers: [aws], kinds: [on-demand] }, counts: { min: 1, max: 1 } }
rank: cost
`;

const SCENARIO = `
name: Qwen3.5-27B adapters on one RTX 5090
model: qwen3.5-27b
job:
  kind: fine-tune
  methods: [lora, qlora]
  seq: 2048
  globalBatch: 16
  datasetTokens: 5000000
hardware:
  owned: [{ gpu: rtx-5090, count: 1 }]
  counts: { min: 1, max: 1 }
rank: cost
`;

describe('quality by model', () => {
  it('an NF4 base trains lossy on Qwen3.5, near on other models; NF4 serving stays near', () => {
    const qlora = optionsFromFlags({ method: 'qlora' });
    expect(qualityOf(qlora, 'qwen3_5').tier).toBe('lossy');
    expect(qualityOf(qlora, 'qwen3_5_moe').tier).toBe('lossy');
    expect(qualityOf(qlora, 'llama').tier).toBe('near');
    expect(qualityOf(qlora).tier).toBe('near');
    const served = optionsFromFlags({ method: 'inference', weights: 'nf4' });
    expect(qualityOf(served, 'qwen3_5').tier).toBe('near');
  });

  it('gpt-oss served in MXFP4, the format it was trained and released in, is exact; elsewhere MXFP4 is near', () => {
    const mxfp4 = optionsFromFlags({ method: 'inference', weights: 'mxfp4' });
    expect(qualityOf(mxfp4, 'gpt_oss').tier).toBe('exact');
    expect(qualityOf(mxfp4, 'llama').tier).toBe('near');
    expect(
      qualityOf(optionsFromFlags({ method: 'inference', weights: 'nvfp4' }), 'gpt_oss').tier,
    ).toBe('near');
    // An FP8 KV cache still costs what it costs on the released weights.
    const kv = optionsFromFlags({ method: 'inference', weights: 'mxfp4', 'kv-cache-dtype': 'fp8' });
    expect(qualityOf(kv, 'gpt_oss').tier).toBe('near');
  });

  it('DeepSeek-V3/R1 served in FP8, the format it was trained and released in, is exact; elsewhere FP8 is near', () => {
    const fp8 = optionsFromFlags({ method: 'inference', weights: 'fp8' });
    expect(qualityOf(fp8, 'deepseek_v3').tier).toBe('exact');
    expect(qualityOf(fp8, 'llama').tier).toBe('near');
    expect(qualityOf(fp8).tier).toBe('near');
    // Another low-bit format of the FP8 release is still a quantization of it.
    expect(
      qualityOf(optionsFromFlags({ method: 'inference', weights: 'nvfp4' }), 'deepseek_v3').tier,
    ).toBe('near');
  });

  /** The first plan serving `model` on 8 `gpu`s for 64 users under quality: exact. */
  const firstExactServing = (model: string, gpu: string, outputTokens: number) => {
    const file = `/tmp/quality-model-${model}.yaml`;
    const text = `name: ${model} on 8 ${gpu}
model: ${model}
job: { kind: inference, context: 8192, promptTokens: 4096, concurrency: 64, outputTokens: ${outputTokens} }
hardware:
  owned: [{ gpu: ${gpu}, count: 8 }]
  counts: { min: 8, max: 8 }
rank: time
quality: exact
`;
    return plan(planInputOf(file, parseScenario(file, text))).plans[0];
  };

  it('DeepSeek-V3 under quality exact is served from its FP8 checkpoint (a bf16 upcast does not fit 8 H200)', () => {
    const best = firstExactServing('deepseek-v3', 'h200-sxm', 100_000_000);
    expect(best?.options.weights).toBe('fp8');
    expect(best?.quality.tier).toBe('exact');
  });

  it('gpt-oss-120b under quality exact is served from its MXFP4 checkpoint, not a bf16 upcast', () => {
    expect(firstExactServing('gpt-oss-120b', 'h100-sxm', 500_000_000)?.options.weights).toBe(
      'mxfp4',
    );
  });

  it('the default search plans Qwen3.5-27B on one RTX 5090 without QLoRA, and says why', () => {
    const file = '/tmp/quality-model.yaml';
    const r = plan(planInputOf(file, parseScenario(file, SCENARIO)));
    expect(r.plans.length).toBeGreaterThan(0);
    for (const p of r.plans) expect(p.options.method).not.toBe('qlora');
    const lossy = plan(
      planInputOf(file, parseScenario(file, `${SCENARIO}quality: lossy\n`)),
    ).plans.find((p) => p.options.method === 'qlora');
    expect(lossy?.quality.tier).toBe('lossy');
    expect(lossy?.quality.items[0]?.source).toBe(
      'https://unsloth.ai/docs/models/qwen3.5/fine-tune',
    );
  });

  it('Gemma 2 trained under transformers SDPA (no soft-cap) is lossy; flash, eager, Unsloth and serving are not', () => {
    const sdpa = optionsFromFlags({ method: 'lora', attention: 'sdpa' });
    expect(qualityOf(sdpa, 'gemma2').tier).toBe('lossy');
    expect(
      qualityOf(
        optionsFromFlags({ method: 'lora', attention: 'sdpa', framework: 'deepspeed', zero: 3 }),
        'gemma2',
      ).tier,
    ).toBe('lossy');
    expect(qualityOf(sdpa, 'gemma3_text').tier).toBe('near');
    expect(qualityOf(optionsFromFlags({ method: 'lora', attention: 'flash' }), 'gemma2').tier).toBe(
      'near',
    );
    expect(qualityOf(optionsFromFlags({ method: 'lora', attention: 'eager' }), 'gemma2').tier).toBe(
      'near',
    );
    expect(
      qualityOf(
        optionsFromFlags({ method: 'lora', attention: 'sdpa', framework: 'unsloth' }),
        'gemma2',
      ).tier,
    ).toBe('near');
    expect(
      qualityOf(optionsFromFlags({ method: 'inference', attention: 'sdpa' }), 'gemma2').tier,
    ).toBe('exact');
  });

  it('a Gemma-2-9B DPO on an A10G plans no transformers SDPA attention', () => {
    const file = '/tmp/quality-gemma2.yaml';
    const r = plan(planInputOf(file, parseScenario(file, GEMMA2_DPO)));
    expect(r.plans.length).toBeGreaterThan(0);
    for (const p of r.plans)
      if (p.options.attention === 'sdpa') expect(p.options.framework).toBe('unsloth');
    expect(r.plans[0]?.options.attention).toBe('flash');
  });
});
