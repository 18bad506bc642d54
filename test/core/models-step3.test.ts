// Step3 (model_type step3_vl, text model step3_text): Multi-matrix Factorized Attention with one 256-wide KV head,
// MoE with a shared expert on the moe_layers_enum layers; the count against the model card, each engine's verdict.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { archOf as arch, kvOf } from '../helpers/model-configs.js';
import { paramCounts } from '../../src/core/model/index.js';
import { VLLM_ARCHITECTURES } from '../../src/core/engines/vllm/architectures.js';
import { SGLANG_ARCHITECTURES } from '../../src/core/engines/sglang/architectures.js';
import { LLAMA_CPP_ARCHITECTURES } from '../../src/core/engines/llama-cpp/architectures.js';
import { HF_ARCHITECTURES } from '../../src/core/engines/hf/architectures.js';
import { UNSLOTH_ARCHITECTURES } from '../../src/core/engines/unsloth/architectures.js';

const step3 = JSON.parse(
  readFileSync(new URL('../fixtures/models/families/step3.json', import.meta.url), 'utf8'),
) as { text_config: Record<string, unknown> } & Record<string, unknown>;

describe('Step3 (step3_vl): 61 layers, 5 dense and 56 MoE (48 experts top 3 + a shared expert)', () => {
  const a = arch(step3);

  it('counts 316.29B in the text model, 38.8B activated (card: 321B with the vision tower, 38B activated)', () => {
    const p = paramCounts(a);
    expect(p.total).toBe(316_294_538_240);
    expect(Math.round(p.active / 1e8) / 10).toBe(38.8);
    const moe = a.groups.find((g) => g.linears.some((l) => l.role === 'router'));
    expect(moe?.count).toBe(56);
  });

  it('routes the query through the 2048-wide share_q_dim bottleneck with its inter_norm', () => {
    const g = a.groups[0]!;
    const dims = g.linears
      .filter((l) => l.role.startsWith('q'))
      .map((l) => [l.role, l.inFeatures, l.outFeatures]);
    expect(dims).toEqual([
      ['q_a', 7168, 2048],
      ['q_b', 2048, 64 * 256],
    ]);
    expect(g.otherParamsPerLayer).toBe(2 * 7168 + 2048);
  });

  it('caches one K and one V head of 256 per layer (bf16), whatever num_attention_groups says', () => {
    expect(kvOf(a, 2048) - kvOf(a, 1024)).toBe(61 * 2 * 256 * 2 * 1024);
    const grouped = arch({
      ...step3,
      text_config: { ...step3.text_config, num_attention_groups: 8 },
    });
    expect(kvOf(grouped, 1024)).toBe(kvOf(a, 1024));
  });

  it("reads moe_layers_enum as the checkpoint's comma string too, and names the vision tower as not read", () => {
    const enumText = (step3.text_config.moe_layers_enum as number[]).join(',');
    const s = arch({ ...step3, text_config: { ...step3.text_config, moe_layers_enum: enumText } });
    expect(paramCounts(s).total).toBe(paramCounts(a).total);
    expect(a.assumptions?.some((x) => x.startsWith('vision_config'))).toBe(true);
  });

  it('reads the bare text model (step3_text, Step3TextForCausalLM) the same', () => {
    const t = arch({ ...step3.text_config, architectures: ['Step3TextForCausalLM'] });
    expect(paramCounts(t).total).toBe(paramCounts(a).total);
  });
});

describe("each engine's verdict on step3_vl / step3_text, from its own registry", () => {
  it('vLLM registers both (Step3VLForConditionalGeneration, Step3TextForCausalLM)', () => {
    expect(VLLM_ARCHITECTURES.runs).toEqual(expect.arrayContaining(['step3_vl', 'step3_text']));
  });

  it('SGLang 0.5.23 runs the wrapper (step3_vl.py) and has no Step3TextForCausalLM', () => {
    expect(SGLANG_ARCHITECTURES.runs).toContain('step3_vl');
    expect(SGLANG_ARCHITECTURES.refuses.step3_text).toBeDefined();
  });

  it('llama.cpp (no Step3 text arch in gguf 0.19.0), the HF engines and Unsloth (remote code) refuse both', () => {
    for (const t of ['step3_vl', 'step3_text']) {
      expect(LLAMA_CPP_ARCHITECTURES.refuses[t]).toMatch(/STEP35/);
      expect(HF_ARCHITECTURES.refuses[t]).toMatch(/trust_remote_code/);
      expect(UNSLOTH_ARCHITECTURES.refuses[t]).toMatch(/trust_remote_code/);
    }
  });
});
