// SGLang splits each routed expert of a block-scaled FP8 checkpoint over the MoE layer's tensor-parallel ranks and
// refuses a share the 128-wide weight blocks do not tile (Fp8MoEMethod.create_weights in the sglang 0.5.23 wheel):
// Qwen3-235B-A22B-FP8's 1,536-wide experts leave 192 per rank at TP 8 (QwenLM/Qwen3#1485). vLLM 0.33 loads the same
// layout by refining the block scales (fused_moe/oracle/fp8.py refine_fp8_moe_block_shape), so only SGLang refuses.
import { describe, expect, it } from 'vitest';
import { engineRefusal, withEngineDefaults } from '../../src/core/engines/defaults.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';

const qwen = resolveModel('qwen3-235b-a22b-fp8');
const dsv3 = resolveModel('deepseek-v3');

function refusal(model: typeof qwen, flags: Record<string, unknown>): string | null {
  const all = { method: 'inference', weights: 'fp8', seq: 4096, batch: 32, ...flags };
  return engineRefusal(model, withEngineDefaults(optionsFromFlags(all), all), all);
}

describe('SGLang block-FP8 experts split over TP ranks', () => {
  it('reads the checkpoint weight blocks', () => {
    expect(qwen.quant).toMatchObject({ method: 'fp8', block: [128, 128] });
  });

  it('refuses 1,536-wide experts split 8 ways (192 a rank), not 4 ways (384)', () => {
    expect(refusal(qwen, { framework: 'sglang', gpus: 8, tp: 8 })).toMatch(
      /192 of the intermediate width.*rule sglang-block-fp8-expert-shard/,
    );
    expect(refusal(qwen, { framework: 'sglang', gpus: 4, tp: 4 })).toBeNull();
  });

  it('runs them whole on each rank with expert parallelism', () => {
    const dpa = { gpus: 8, tp: 1, 'dp-attention': true, ep: 8 };
    expect(refusal(qwen, { framework: 'sglang', ...dpa })).toBeNull();
  });

  it("checks a dense MLP's share over --tp-size too", () => {
    // DeepSeek-V3's 18,432-wide dense MLP (its first three layers) leaves 576 a rank at TP 32, where EP 32 keeps
    // every 2,048-wide expert whole (sgl-project/sglang#3345).
    expect(refusal(dsv3, { framework: 'sglang', gpus: 32, tp: 32, ep: 32 })).toMatch(
      /576 of the intermediate width/,
    );
    expect(refusal(dsv3, { framework: 'sglang', gpus: 16, tp: 16, ep: 16 })).toBeNull();
  });

  it('leaves vLLM, other weights and tiling widths alone', () => {
    expect(refusal(qwen, { framework: 'vllm', gpus: 8, tp: 8 })).toBeNull();
    expect(refusal(qwen, { framework: 'sglang', gpus: 8, tp: 8, weights: 'bf16' })).toBeNull();
    // DeepSeek-V3's 2,048-wide experts leave 256 a rank at TP 8.
    expect(refusal(dsv3, { framework: 'sglang', gpus: 8, tp: 8 })).toBeNull();
  });
});
