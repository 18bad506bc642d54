// vLLM sizes its KV pool after a start-up profile (Worker.determine_available_memory, vllm/v1/worker/gpu_worker.py of
// the 0.8.4 wheel): one forward of max_num_batched_tokens tokens, whose MoE layers allocate fused_experts'
// workspaces, then a sampler over one row per max_num_seqs slot (GPUModelRunner._dummy_run / _dummy_sampler_run).
import { describe, expect, it } from 'vitest';
import { buildEstimate } from '../../src/core/estimate.js';
import {
  VLLM_FUSED_MOE_CHUNK_TOKENS,
  vllmFusedMoeWorkspace,
} from '../../src/core/engines/vllm/fused-moe-workspace.js';
import { VLLM_SAMPLER_BYTES_PER_LOGIT } from '../../src/core/engines/vllm/memory.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { defaultOptions, type EstimateOptions } from '../../src/schema/estimate.js';
import { optionsFromFlags } from '../../src/schema/flags.js';

const arch = resolveModel('deepseek-ai/DeepSeek-R1');
const gpu = findGpu('h200-sxm');
const served = (extra: Partial<EstimateOptions> = {}): EstimateOptions => ({
  ...defaultOptions('inference'),
  framework: 'vllm',
  weights: 'fp8',
  gpus: 8,
  tp: 8,
  batch: 200,
  seq: 3000,
  promptTokens: 1000,
  ...extra,
});

describe("vLLM's start-up profile on DeepSeek-R1 FP8 over TP 8 on H200", () => {
  it('samples one row per max_num_seqs slot where the cap is above --batch, and the pool shrinks by it', () => {
    const at = buildEstimate(arch, served(), gpu);
    const capped = buildEstimate(arch, served({ maxNumSeqs: 1024 }), gpu);
    const V = 129280;
    expect(at.perGpu.breakdown.logits).toBe(200 * V * VLLM_SAMPLER_BYTES_PER_LOGIT);
    expect(capped.perGpu.breakdown.logits).toBe(1024 * V * VLLM_SAMPLER_BYTES_PER_LOGIT);
    const lost = (at.serving!.kvTokens - capped.serving!.kvTokens) * capped.cache!.kvBytesPerToken;
    expect(lost / (824 * V * VLLM_SAMPLER_BYTES_PER_LOGIT)).toBeCloseTo(1, 2);
  });
  it('a cap at or below --batch changes nothing', () => {
    const at = buildEstimate(arch, served(), gpu);
    const same = buildEstimate(arch, served({ maxNumSeqs: 200 }), gpu);
    expect(same.perGpu.breakdown.logits).toBe(at.perGpu.breakdown.logits);
  });
  it("the profiled forward holds fused_experts' cache13, cache2 and output at the 8192-token chunk", () => {
    const e = buildEstimate(arch, served(), gpu);
    const h = 7168;
    // cache13: 8192 x 8 x max(2 x 2048 / 8, 7168); cache2: 8192 x 8 x 256; out: 8192 x 7168; bf16
    const workspace = 8192 * 2 * (8 * (h + 256) + h);
    expect(
      vllmFusedMoeWorkspace({ tokens: 8192, hidden: h, ffn: 2048, topK: 8, tp: 8, c: 2 }),
    ).toBe(workspace);
    expect(e.perGpu.breakdown.activations).toBe(8192 * (4 * h + 2 * 2 * h) + workspace);
    expect(VLLM_FUSED_MOE_CHUNK_TOKENS).toBe(32768);
  });
  it('--max-num-seqs is read as a serving flag', () => {
    const o = optionsFromFlags({
      method: 'inference',
      framework: 'vllm',
      batch: 200,
      'max-num-seqs': 1024,
    });
    expect(o.maxNumSeqs).toBe(1024);
    expect(() => optionsFromFlags({ method: 'lora', 'max-num-seqs': 1024 })).toThrow(
      /max-num-seqs/,
    );
  });
});
