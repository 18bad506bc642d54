// Serving mechanisms: paged pools with admission, SGLang's static fraction, llama.cpp -ngl offload, KV dtype,
// TTFT/TPOT, kernels by GPU, and the flags' one-line errors.
import { describe, expect, it } from 'vitest';
import { buildEstimate } from '../../src/core/estimate.js';
import { withEngineDefaults } from '../../src/core/engines/defaults.js';
import { kernelRefusal } from '../../src/core/engines/kernels.js';
import { sglangDefaults } from '../../src/core/engines/sglang/memory.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { defaultTimeOptions } from '../../src/schema/time.js';
import { GGUF_BPW } from '../../src/core/model/dtypes.js';

const est = (model: string, gpu: string, flags: Record<string, unknown>) => {
  const f = { method: 'inference', ...flags };
  const o = withEngineDefaults(optionsFromFlags(f), f);
  return buildEstimate(resolveModel(model), o, findGpu(gpu), defaultTimeOptions(o.gpus));
};

describe('paged KV pools', () => {
  it('vLLM admits sequences at the mean context; an fp8 KV cache doubles the tokens', () => {
    const base = {
      framework: 'vllm',
      weights: 'int4',
      batch: 64,
      seq: 2048,
      'prompt-tokens': 1024,
    };
    const auto = est('llama-3.1-8b', 'rtx-4090', base);
    const fp8 = est('llama-3.1-8b', 'rtx-4090', { ...base, 'kv-cache-dtype': 'fp8' });
    expect(auto.fits).toBe(true);
    const s = auto.serving!;
    expect(s.meanContext).toBe(1536);
    expect(s.sequencesAtMeanContext).toBe(Math.min(64, Math.floor(s.kvTokens / 1536)));
    expect(s.sequencesAtMaxContext).toBe(Math.min(64, Math.floor(s.kvTokens / 2048)));
    expect(s.sequencesAtMeanContext).toBeGreaterThanOrEqual(s.sequencesAtMaxContext);
    expect(fp8.serving!.kvTokens / s.kvTokens).toBeGreaterThan(1.9);
    expect(fp8.serving!.kvTokens / s.kvTokens).toBeLessThan(2.1);
  });
  it('bf16 8B at 64 users overflows a 24 GB pool; int4 fits (the 8B scenario)', () => {
    const f = { framework: 'vllm', batch: 64, seq: 2048, 'prompt-tokens': 1024 };
    expect(est('llama-3.1-8b', 'rtx-4090', { ...f, weights: 'bf16' }).fits).toBe(false);
    expect(est('llama-3.1-8b', 'rtx-4090', { ...f, weights: 'int4' }).fits).toBe(true);
  });
  it('SGLang: weights + pool = mem_fraction_static of memory, from its own defaults', () => {
    const e = est('llama-3.1-8b', 'h100-sxm', { framework: 'sglang', batch: 8, seq: 4096 });
    const cap = findGpu('h100-sxm').memoryMiB * 2 ** 20;
    const d = sglangDefaults(cap, 1, 1);
    // H100 80 GB: reserved = max(512 + 8192*1.5 + 256*2 + 128, 10 GiB) MiB (server_args.py).
    expect(d.chunk).toBe(8192);
    expect(d.memFractionStatic).toBeCloseTo((cap / 2 ** 20 - 13440) / (cap / 2 ** 20), 3);
    const b = e.perGpu.breakdown;
    expect(b.weights + b.kvCache).toBeCloseTo(d.memFractionStatic * cap - 500 * 2 ** 20, -6);
  });
});

describe('llama.cpp', () => {
  it('-ngl puts that share of the layers on the GPU and the rest in host RAM', () => {
    const f = { framework: 'llama.cpp', weights: 'q4_k_m', seq: 8192 };
    const all = est('llama-3.1-70b', 'rtx-4090', f);
    const half = est('llama-3.1-70b', 'rtx-4090', { ...f, 'gpu-layers': 40 });
    expect(all.fits).toBe(false);
    expect(half.fits).toBe(true);
    // Llama-3.1-70B Q4_K_M is 43 GB (tools/quantize README): most of the half left is on the host.
    expect(half.hostBytesPerGpu).toBeGreaterThan(19e9);
    expect(half.perGpu.breakdown.weights).toBeLessThan(all.perGpu.breakdown.weights * 0.55);
    expect(half.time!.decodeTokensPerSecond!).toBeLessThan(all.time!.decodeTokensPerSecond! / 3);
  });
  it('GGUF sizes follow the quantize table (bits per weight)', () => {
    const e = est('llama-3.1-8b', 'rtx-4090', { framework: 'llama.cpp', weights: 'q4_k_m' });
    // 8.03 B parameters at 4.8944 bits: the README lists 4.58 GiB; token embeddings stay on the host.
    const w = e.perGpu.breakdown.weights + e.hostBytesPerGpu;
    expect(w / 2 ** 30).toBeCloseTo(4.58, 1);
    expect(e.hostBytesPerGpu).toBeGreaterThan(0.25 * 2 ** 30);
    expect(GGUF_BPW.q8_0).toBeCloseTo(8.5, 1);
  });
});

describe('time under concurrency', () => {
  it('TTFT grows with the prompt (compute-bound prefill), TPOT with the batch', () => {
    const f = { framework: 'vllm', weights: 'int4', seq: 4096 };
    const short = est('llama-3.1-8b', 'l40s', { ...f, 'prompt-tokens': 512 }).time!;
    const long = est('llama-3.1-8b', 'l40s', { ...f, 'prompt-tokens': 3584 }).time!;
    expect(long.ttftSeconds!).toBeGreaterThan(short.ttftSeconds! * 4);
    const b1 = est('llama-3.1-8b', 'l40s', { ...f, batch: 1 }).time!;
    const b32 = est('llama-3.1-8b', 'l40s', { ...f, batch: 32 }).time!;
    expect(b32.tpotSeconds!).toBeGreaterThan(b1.tpotSeconds!);
    expect(b32.decodeTokensPerSecond!).toBeGreaterThan(b1.decodeTokensPerSecond! * 8);
  });
  it('Marlin int4 stays at or above fp16 decode speed at large batches (no dequantize cliff)', () => {
    for (const batch of [16, 48, 128]) {
      const f = { framework: 'vllm', seq: 2048, batch };
      const int4 = est('llama-3.1-8b', 'a100-80gb-sxm', { ...f, weights: 'int4' }).time!;
      const bf16 = est('llama-3.1-8b', 'a100-80gb-sxm', { ...f, weights: 'bf16' }).time!;
      expect(int4.decodeTokensPerSecond!).toBeGreaterThanOrEqual(
        bf16.decodeTokensPerSecond! * 0.99,
      );
    }
  });
  it('bitsandbytes nf4 on vLLM is timed as bitsandbytes; fp8 on Ampere as Marlin weight-only', () => {
    const nf4 = est('llama-3.1-8b', 'rtx-4090', { framework: 'vllm', weights: 'nf4' }).time!;
    expect(nf4.settings.quantFormat).toBe('bnb');
    const fp8a = est('llama-3.1-8b', 'rtx-a6000', { framework: 'vllm', weights: 'fp8' }).time!;
    expect(fp8a.settings.quantFormat).toBe('marlin');
    const fp8h = est('llama-3.1-8b', 'h100-sxm', { framework: 'vllm', weights: 'fp8' }).time!;
    expect(fp8h.settings.quantFormat).toBe('cutlass');
  });
  it('int4 below compute capability 8.0 is timed as the plain AWQ kernel (Marlin needs 8.0), on vLLM and SGLang', () => {
    for (const framework of ['vllm', 'sglang']) {
      const t4 = est('llama-3.1-8b', 't4', { framework, weights: 'int4' }).time!;
      expect(t4.settings.quantFormat, framework).toBe('awq');
      const a10 = est('llama-3.1-8b', 'a10', { framework, weights: 'int4' }).time!;
      expect(a10.settings.quantFormat, framework).toBe('marlin');
    }
  });
});

describe('kernels and flags', () => {
  it('refuses formats an engine has no kernel for on the GPU, naming the engine', () => {
    // SGLang 0.5.23 runs FP8 through Marlin on 8.0-8.8 (fp8_utils.py can_auto_enable_marlin_fp8), not on Turing.
    expect(kernelRefusal('sglang', 'fp8', '7.5')).toMatch(/^sglang has no fp8 kernel/);
    expect(kernelRefusal('sglang', 'fp8', '8.6')).toBeNull();
    expect(kernelRefusal('vllm', 'fp8', '8.6')).toBeNull();
    expect(kernelRefusal('sglang', 'nvfp4', '7.5')).toMatch(/Blackwell/);
    expect(kernelRefusal('vllm', 'mxfp4', '7.5')).toMatch(/vllm/);
  });
  it('reads the ROCm table on AMD GPUs: what each engine runs on which gfx target', () => {
    expect(kernelRefusal('sglang', 'fp8', 'gfx942')).toBeNull(); // DeepSeek-V3 FP8 on MI300X
    expect(kernelRefusal('sglang', 'mxfp4', 'gfx942')).toMatch(
      /^sglang has no mxfp4 kernel for gfx942/,
    );
    expect(kernelRefusal('sglang', 'mxfp4', 'gfx950')).toBeNull();
    expect(kernelRefusal('vllm', 'mxfp4', 'gfx942')).toBeNull(); // gpt-oss on MI300X
    expect(kernelRefusal('vllm', 'int8', 'gfx942')).toBeNull(); // compressed-tensors W8A8 (Triton/AITER)
    expect(kernelRefusal('sglang', 'int8', 'gfx942')).toMatch(
      /^sglang has no int8 kernel for gfx942/,
    );
    expect(kernelRefusal('vllm', 'bf16', 'gfx942')).toBeNull();
  });
  it('one-line flag errors', () => {
    // A GGUF file trains on no engine (served by transformers dequantized: test/engines/hf-generate-gguf.test.ts).
    expect(() => optionsFromFlags({ method: 'lora', weights: 'q4_k_m', framework: 'hf' })).toThrow(
      /--weights.*llama\.cpp/,
    );
    expect(() => optionsFromFlags({ method: 'lora', 'kv-cache-dtype': 'fp8' })).toThrow(
      /kv-cache-dtype/,
    );
    expect(() => optionsFromFlags({ method: 'inference', 'gpu-layers': 10 })).toThrow(/gpu-layers/);
    expect(() => optionsFromFlags({ method: 'inference', seq: 100, 'prompt-tokens': 100 })).toThrow(
      /prompt-tokens/,
    );
    expect(() => optionsFromFlags({ method: 'inference', 'kv-cache-dtype': 'int4' })).toThrow(
      /kv-cache-dtype/,
    );
  });
});
