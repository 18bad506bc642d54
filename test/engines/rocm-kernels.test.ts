// Which quantized formats vLLM and SGLang run on AMD Instinct GPUs (each engine's kernels.ts `rocm` table): gpt-oss's
// MXFP4 on vLLM from MI300X up (vllm-project/recipes GPT-OSS.md), FP8 on SGLang from MI300X up (its AMD guide serves
// DeepSeek-V3's FP8 checkpoint on MI300X), SGLang's MXFP4 MoE on MI355X only; what neither lists stays refused.
import { describe, expect, it } from 'vitest';
import { kernelRefusal } from '../../src/core/engines/kernels.js';

describe('serving formats on ROCm', () => {
  it('vLLM runs FP8 and MXFP4 on gfx942 and gfx950, AWQ/GPTQ int4, int8 W8A8 and NVFP4 (Petit) too', () => {
    for (const cc of ['gfx942', 'gfx950']) {
      expect(kernelRefusal('vllm', 'fp8', cc), cc).toBeNull();
      expect(kernelRefusal('vllm', 'mxfp4', cc), cc).toBeNull();
    }
    // RocmPlatform.supported_quantization: awq/gptq (plain kernels), petit_nvfp4, compressed-tensors int8 W8A8
    // (AITER or Triton GEMMs).
    for (const w of ['int4', 'nvfp4', 'int8'] as const)
      expect(kernelRefusal('vllm', w, 'gfx942'), w).toBeNull();
    expect(kernelRefusal('vllm', 'nvfp4', 'gfx950')).toMatch(/vllm has no nvfp4 kernel for gfx950/);
    expect(kernelRefusal('vllm', 'mxfp4', 'gfx90a')).toMatch(/gfx90a/);
  });

  it('SGLang runs FP8 on gfx942 and gfx950, MXFP4 on gfx950 only, NVFP4 through Petit on gfx942, AWQ int4 on gfx942/gfx950 only', () => {
    for (const cc of ['gfx942', 'gfx950'])
      expect(kernelRefusal('sglang', 'fp8', cc), cc).toBeNull();
    expect(kernelRefusal('sglang', 'mxfp4', 'gfx950')).toBeNull();
    const mx = kernelRefusal('sglang', 'mxfp4', 'gfx942')!;
    expect(mx).toMatch(/sglang has no mxfp4 kernel for gfx942/);
    expect(mx).toMatch(/MI355X \(gfx950\)/);
    // The refusal quotes the engine's own: Mxfp4Config.from_config raises on HIP below gfx950 (0.5.23 wheel).
    expect(mx).toMatch(
      /not support mxfp4 computation.*sglang\/0\.5\.23\/ wheel, sglang\/srt\/layers\/quantization\/mxfp4\.py:324-333/,
    );
    expect(kernelRefusal('sglang', 'int8', 'gfx942')).not.toMatch(/mxfp4\.py/);
    expect(kernelRefusal('sglang', 'nvfp4', 'gfx950')).toMatch(/no nvfp4 kernel/);
    expect(kernelRefusal('sglang', 'nvfp4', 'gfx942')).toBeNull(); // Petit (petit.py)
    // AWQ through the wheel's Triton dequantize on HIP (hardware_backend/gpu/quantization/awq_kernels.py).
    expect(kernelRefusal('sglang', 'int4', 'gfx942')).toBeNull();
    expect(kernelRefusal('sglang', 'int4', 'gfx90a')).toMatch(/no int4 kernel/);
    // On NVIDIA GPUs FP8 runs from 8.0 (weight-only FP8 Marlin below 8.9), not on Turing.
    expect(kernelRefusal('sglang', 'fp8', '7.5')).toMatch(/compute capability 7\.5/);
  });

  it('SGLang runs int4 (plain AWQ) on Turing and bitsandbytes from Volta (its get_min_capability)', () => {
    for (const w of ['int4', 'nf4'] as const)
      expect(kernelRefusal('sglang', w, '7.5'), w).toBeNull();
    expect(kernelRefusal('sglang', 'nf4', '7.0')).toBeNull();
  });
});
