/**
 * Unsloth's FastLlamaModel replaces generate for Llama, Mistral and Qwen2, and its GRPO rollout without vLLM decodes
 * through LlamaModel_fast_forward_inference (engines/unsloth/generate-decode.ts, unslothai/unsloth@3869fbe1): its layer
 * issues 45 ops with the linears' matmuls, an adapted linear 2 more and a 4-bit linear 3 dequantize calls, in place of
 * transformers' layer, PEFT's lora.Linear.forward and bitsandbytes' Linear4bit. Models outside those types (Gemma 3, run
 * by FastModel with transformers' own generate) keep transformers' eager decode (docs/time-model.md "Unsloth's own
 * generate decode").
 */
import { describe, expect, it } from 'vitest';
import '../../src/core/engines/index.js';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import type { GenerateDecodeProfile } from '../../src/core/memory/eager-layer-profile.js';
import { paramCounts } from '../../src/core/model/params.js';
import { estimateObjectiveTime } from '../../src/core/time/objective.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags, type RawFlags } from '../../src/schema/flags.js';
import { timeOptionsFromFlags } from '../../src/schema/time.js';

const base: RawFlags = {
  gpu: 'a10',
  framework: 'unsloth',
  method: 'qlora',
  'lora-rank': 32,
  'lora-targets': 'all-linear',
  compute: 'bf16',
  'double-quant': true,
  objective: 'grpo',
  generations: 4,
  batch: 2,
  'grad-accum': 2,
  'prompt-tokens': 256,
  'completion-tokens': 194,
  'max-completion-tokens': 512,
  rollout: 'hf',
};

function rollout(model: string, own: GenerateDecodeProfile | undefined): number {
  const fw = FRAMEWORKS.unsloth as { generateDecode?: GenerateDecodeProfile };
  const kept = fw.generateDecode;
  fw.generateDecode = own;
  try {
    const f = { ...base, model };
    const o = optionsFromFlags(f);
    const arch = resolveModel(model);
    const t = timeOptionsFromFlags(f, o);
    return estimateObjectiveTime(arch, o, findGpu('a10'), t, paramCounts(arch).total)
      .objectivePhases.rollout;
  } finally {
    fw.generateDecode = kept;
  }
}

describe("Unsloth's own generate decode in GRPO rollouts without vLLM", () => {
  const own = FRAMEWORKS.unsloth.generateDecode!;

  it('the profile: Llama, Mistral and Qwen2, 45 ops a layer, 2 an adapted linear, 3 a 4-bit linear', () => {
    expect([...own.modelTypes].sort()).toEqual(['llama', 'mistral', 'qwen2']);
    expect(own.layerOps).toBe(45);
    expect(own.adapterOps).toBe(2);
    expect(own.bnb4Ops).toBe(3);
    expect(FRAMEWORKS.hf.generateDecode).toBeUndefined();
  });

  it("a Llama QLoRA rollout is dispatched through Unsloth's layer: well under transformers' layer under PEFT", () => {
    const fast = rollout('meta-llama/Llama-3.2-1B', own);
    const eager = rollout('meta-llama/Llama-3.2-1B', undefined);
    expect(fast).toBeGreaterThan(0);
    expect(fast).toBeLessThan(0.6 * eager);
  });

  it('a Qwen2 rollout too; a Gemma 3 rollout keeps transformers generate', () => {
    expect(rollout('Qwen/Qwen2.5-0.5B', own)).toBeLessThan(rollout('Qwen/Qwen2.5-0.5B', undefined));
    expect(rollout('google/gemma-3-1b-it', own)).toBe(rollout('google/gemma-3-1b-it', undefined));
  });
});
