// gpt-oss's attention sinks with an FP8 KV cache: both serving engines run the pair at their pinned releases, so the
// plan keeps `--kv-cache-dtype fp8` on H100s, and the decode step reads the cache through the backend that runs it
// (vLLM: FlashAttention 3's FP8 path on Hopper, its Triton backend on Ampere and Ada; SGLang: fa3 on Hopper,
// trtllm_mha on SM100, Triton elsewhere), none of which has a KV-rate figure: the card's stream rate at a byte an
// element.
import { describe, expect, it } from 'vitest';
import { plan } from '../../src/core/plan/index.js';
import { fp8KvFlag, minKvCapability } from '../../src/core/engines/kernels.js';
import { sglangAttentionBackend } from '../../src/core/engines/sglang/attention-backend.js';
import { SGLANG_MEMORY } from '../../src/core/engines/sglang/memory.js';
import { VLLM_MEMORY } from '../../src/core/engines/vllm/memory.js';
import { planInputOf } from '../../src/io/plan-scenario.js';
import { scenarioSchema } from '../../src/schema/scenario.js';

const scenario = (engine: 'vllm' | 'sglang', concurrency: number) =>
  scenarioSchema.parse({
    name: 'gpt-oss-120b on two H100s',
    model: 'gpt-oss-120b',
    job: { kind: 'inference', context: 131072, promptTokens: 16384, concurrency },
    hardware: { owned: [{ gpu: 'h100-sxm', count: 2 }], counts: { min: 2, max: 2 } },
    search: { engines: [engine], weights: ['mxfp4'] },
    power: { powerLimits: [1] },
    rank: 'time',
  });

describe('gpt-oss with an fp8 KV cache', () => {
  it('is searched on Hopper and Ampere by vLLM, and on Hopper by SGLang', () => {
    expect(minKvCapability('vllm', 'fp8')).toBeLessThanOrEqual(8.0);
    expect(minKvCapability('sglang', 'fp8')).toBeLessThanOrEqual(9.0);
    // vLLM's FA3 on Hopper reads E4M3 (flash_attn.py get_fp8_dtype_for_flashattn); Triton's software cast below 8.9.
    expect(fp8KvFlag('vllm', '9.0')).toBe('fp8');
    expect(fp8KvFlag('vllm', '8.0')).toBe('fp8_e5m2');
  });

  it('keeps the fp8 cache in the best vLLM plan on two H100s', () => {
    const best = plan({ ...planInputOf('gpt-oss.yaml', scenario('vllm', 64)), top: 5 }).plans[0]!;
    expect(best.choices.engine).toBe('vllm');
    expect(best.options.kvCacheDtype).toBe('fp8');
  });

  it('keeps the fp8 cache in the best SGLang plan on two H100s', () => {
    const best = plan({ ...planInputOf('gpt-oss.yaml', scenario('sglang', 16)), top: 5 }).plans[0]!;
    expect(best.choices.engine).toBe('sglang');
    expect(best.options.kvCacheDtype).toBe('fp8');
  });

  it('reads the cache at the stream rate of the backend that runs the sinks, not FlashAttention 2 or FlashInfer', () => {
    // vLLM: FA3 on Hopper, Triton on Ampere (FLASH_ATTN refuses sinks below 9.0), FlashInfer's TRT-LLM kernel on 10.0.
    for (const cc of [8.0, 8.9, 9.0, 10.0])
      expect(VLLM_MEMORY.decodeAttention!('gpt_oss', false, cc)).toBeUndefined();
    expect(VLLM_MEMORY.decodeAttention!('llama', false, 8.0)).toBe('flash-attn-2');
    // SGLang's GptOssForCausalLM handler: fa3 on SM90, trtllm_mha on SM100, triton elsewhere.
    expect(sglangAttentionBackend('gpt_oss', false, 9.0)).toBe('fa3');
    expect(sglangAttentionBackend('gpt_oss', false, 10.0)).toBe('trtllm_mha');
    expect(sglangAttentionBackend('gpt_oss', false, 8.0)).toBe('triton');
    for (const cc of [8.9, 9.0, 10.0])
      expect(SGLANG_MEMORY.decodeAttention!('gpt_oss', false, cc)).toBeUndefined();
  });
});
