// hf-generate (transformers generate): NVFP4 through FP-Quant on Blackwell is estimated; multi-LoRA serving
// stays refused with transformers' own source and what to do instead.
import { describe, expect, it } from 'vitest';
import { buildEstimate } from '../../src/core/estimate.js';
import { engineRefusal, withEngineDefaults } from '../../src/core/engines/defaults.js';
import { ENGINE_PROFILES } from '../../src/core/engines/engines.js';
import { kernelRefusal } from '../../src/core/engines/kernels.js';
import { resolveModel } from '../../src/io/load-model.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { estimateChecks } from '../../src/commands/estimate-run.js';

const llama = resolveModel('llama-3.1-8b');
const SOURCE = /https:\/\/github\.com\/huggingface\/transformers\/(blob|tree)\/[0-9a-f]{40}\//;

function onGenerate(flags: Record<string, unknown>, gpu = 'b200') {
  const all = { method: 'inference', framework: 'hf-generate', batch: 8, seq: 4096, ...flags };
  const o = withEngineDefaults(optionsFromFlags(all), all);
  return {
    o,
    refusal: engineRefusal(llama, o, all),
    e: () => buildEstimate(llama, o, findGpu(gpu)),
  };
}

describe('hf-generate: what transformers runs', () => {
  it('NVFP4 on Blackwell (FP-Quant with QuTLASS) is estimated, finite and smaller than bf16', () => {
    for (const gpu of ['b200', 'rtx-5090']) {
      const nv = onGenerate({ weights: 'nvfp4' }, gpu);
      expect(nv.refusal, gpu).toBeNull();
      expect(kernelRefusal('hf-generate', 'nvfp4', findGpu(gpu).computeCapability)).toBeNull();
      const e = nv.e();
      const bf16 = onGenerate({ weights: 'bf16' }, gpu).e();
      expect(Number.isFinite(e.time!.decodeTokensPerSecond!)).toBe(true);
      expect(e.perGpu.breakdown.weights).toBeLessThan(0.4 * bf16.perGpu.breakdown.weights);
    }
    // Estimated, not written: the launcher's set is unchanged.
    expect(ENGINE_PROFILES['hf-generate'].baseWeights).not.toContain('nvfp4');
  });
  it('NVFP4 below Blackwell and on AMD GPUs is refused with the quantizer as source', () => {
    for (const cc of ['9.0', '8.9', 'gfx942']) {
      const why = kernelRefusal('hf-generate', 'nvfp4', cc);
      expect(why, cc).toMatch(SOURCE);
      expect(why, cc).toMatch(/nvfp4/);
    }
    expect(kernelRefusal('hf-generate', 'nvfp4', '9.0')).toMatch(/estimate --weights bf16/);
  });
  it('multi-LoRA serving is refused in one line naming the field, value, source and what runs instead', () => {
    const why = onGenerate({ 'max-loras': 4 }).refusal!;
    expect(why).toMatch(/^hf-generate: --max-loras: got 4; /);
    expect(why).toMatch(/integrations\/peft\.py/);
    expect(why).toMatch(SOURCE);
    expect(why).toMatch(/vllm, sglang or llama\.cpp/);
    expect(why).not.toMatch(/\n/);
  });
});

describe('--dp-attention with one data-parallel rank', () => {
  it('is estimated as plain tensor parallelism, with a note', () => {
    const qwen = resolveModel('qwen3-30b-a3b');
    for (const framework of ['vllm', 'sglang']) {
      const flags = {
        method: 'inference',
        framework,
        gpus: 8,
        tp: 8,
        ep: 8,
        'dp-attention': true,
      };
      const o = withEngineDefaults(optionsFromFlags(flags), flags);
      expect(o.dpAttention, framework).toBeUndefined();
      const notes = estimateChecks(qwen, o, flags, findGpu('h200-sxm'));
      expect(notes.join('\n'), framework).toMatch(/attention DP of width 1/);
      const e = buildEstimate(qwen, o, findGpu('h200-sxm'));
      expect(Number.isFinite(e.time!.decodeTokensPerSecond!)).toBe(true);
    }
  });
});
