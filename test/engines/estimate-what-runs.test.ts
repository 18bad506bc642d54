// `estimate --framework <engine>` models what the engine itself runs; the planner and `launch` keep to what
// vramplan writes. A rule about a launcher's own map never refuses an estimate.
import { describe, expect, it } from 'vitest';
import { engineRefusal, withEngineDefaults } from '../../src/core/engines/defaults.js';
import { ENGINE_PROFILES } from '../../src/core/engines/engines.js';
import { forbiddenBy } from '../../src/core/engines/rules.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';

function onEngine(model: string, flags: Record<string, unknown>) {
  const arch = resolveModel(model);
  const options = withEngineDefaults(optionsFromFlags(flags), flags);
  return { arch, options, refusal: engineRefusal(arch, options, flags) };
}

describe('estimate what the engine runs', () => {
  it('unsloth: LoRA over FP8 base weights (load_in_fp8) is estimated; the launcher still writes none', () => {
    const flags = { framework: 'unsloth', method: 'lora', weights: 'fp8', gpu: 'l4' };
    expect(onEngine('qwen3-8b', flags).refusal).toBeNull();
    expect(ENGINE_PROFILES.unsloth.baseWeights).not.toContain('fp8');
  });
  it('torchtune: a family it builds (qwen2_5 at v0.6.1) is estimated though the launcher maps no builder', () => {
    const flags = { framework: 'torchtune', method: 'lora', model: 'qwen2.5-7b' };
    const { arch, options, refusal } = onEngine('qwen2.5-7b', flags);
    expect(refusal).toBeNull();
    const input = { arch, options, dp: 1, accum: 1 };
    // The planner and launch still read the writer's rule.
    expect(forbiddenBy(ENGINE_PROFILES.torchtune.rules, input)?.id).toBe('torchtune-no-builder');
    // A family torchtune 0.6.1 has no builder for at all is refused, citing its source.
    expect(onEngine('qwen3-8b', { ...flags, model: 'qwen3-8b' }).refusal).toMatch(/torchtune/);
  });
  it('torchtune and LitGPT on several GPUs without --zero shard as their recipes do (ZeRO-3), not refuse', () => {
    for (const framework of ['torchtune', 'litgpt']) {
      const flags = { framework, method: 'lora', gpus: 4 };
      const { options, refusal } = onEngine('llama-3.1-8b', flags);
      expect(refusal, framework).toBeNull();
      expect(options.zero, framework).toBe(3);
      // An explicit unsharded run is still refused, citing the engine's rule.
      expect(onEngine('llama-3.1-8b', { ...flags, zero: 0 }).refusal, framework).toMatch(
        /rule \S+-/,
      );
    }
    expect(
      onEngine('llama-3.1-8b', { framework: 'litgpt', method: 'lora', gpus: 4 }).options
        .checkpointing,
    ).toBe('full');
    // On one GPU nothing changes.
    expect(onEngine('llama-3.1-8b', { framework: 'torchtune', method: 'lora' }).options.zero).toBe(
      0,
    );
  });
  it('hf-fsdp: tensor and context parallelism over FSDP2 (Accelerate ParallelismConfig) are estimated', () => {
    for (const par of [{ tp: 2 }, { cp: 2 }]) {
      const flags = { framework: 'hf-fsdp', method: 'full', gpus: 8, zero: 3, ...par };
      const { options, refusal } = onEngine('llama-3.1-8b', flags);
      expect(refusal, JSON.stringify(par)).toBeNull();
      expect(options.tp * options.cp).toBe(2);
    }
    // The launcher writes no parallelism_config: the planner keeps to what vramplan writes.
    expect(ENGINE_PROFILES['hf-fsdp'].tp).toBe(false);
  });
  it('litgpt: QLoRA without --optimizer steps PagedAdamW, as LitGPT does with --quantize', () => {
    const flags = { framework: 'litgpt', method: 'qlora' };
    const { options, refusal } = onEngine('llama-3.1-8b', flags);
    expect(options.optimizer).toBe('paged-adamw');
    expect(refusal).toBeNull();
    // A non-AdamW optimizer named with --quantize raises ValueError in LitGPT: still refused.
    expect(onEngine('llama-3.1-8b', { ...flags, optimizer: 'sgd' }).refusal).toMatch(
      /litgpt-quantize-paged-adamw/,
    );
  });
  it('vLLM and SGLang load GGUF files, over tensor parallelism too: estimated (not ranked)', () => {
    const flags = { framework: 'vllm', method: 'inference', weights: 'q4_k_m' };
    const v = onEngine('llama-3.1-8b', flags);
    expect(v.options.weights).toBe('q4_k_m');
    expect(v.refusal).toBeNull();
    // What vramplan writes for vLLM has no GGUF: the planner never ranks it.
    expect(ENGINE_PROFILES.vllm.baseWeights).not.toContain('q4_k_m');
    expect(onEngine('llama-3.1-8b', { ...flags, framework: 'sglang' }).refusal).toBeNull();
    // SGLang 0.5.23 shards GGUF weights over --tp-size like any linear (layers/linear.py).
    for (const framework of ['vllm', 'sglang'])
      expect(
        onEngine('llama-3.1-8b', { ...flags, framework, tp: 2, gpus: 2 }).refusal,
        framework,
      ).toBeNull();
  });
  it('torchtitan 0.3.0 LoRA: every Linear (lm_head included) at rank 8 over float32 weights, its defaults', () => {
    const { options, refusal } = onEngine('llama-3.1-8b', {
      framework: 'torchtitan',
      method: 'lora',
      gpus: 8,
    });
    expect(refusal).toBeNull();
    expect(options.weights).toBe('fp32'); // training.dtype float32
    expect(options.loraRank).toBe(8);
    expect(options.loraTargets).toContain('lm_head');
    // Not what vramplan writes: the planner ranks torchtitan full fine-tunes only.
    expect(ENGINE_PROFILES.torchtitan.methods).toEqual(['full']);
  });
  it('Unsloth 2026.10.9 patches TRL experimental trainers (PPO, CPO/SimPO) and trains full fine-tunes in FP8', () => {
    for (const objective of ['ppo', 'simpo'])
      expect(
        onEngine('llama-3.1-8b', { framework: 'unsloth', method: 'lora', objective }).refusal,
      ).toBeNull();
    expect(
      onEngine('qwen3-1.7b', { framework: 'unsloth', method: 'full', compute: 'fp8' }).refusal,
    ).toBeNull();
    // What vramplan writes for Unsloth keeps to the objectives and precisions its launcher covers.
    expect(ENGINE_PROFILES.unsloth.objectives).not.toContain('ppo');
  });
});
