// On AMD GPUs a serving engine runs its own kernels where a CUDA family has no ROCm build (FP8 W8A8 through
// torch._scaled_mm / hipBLASLt, AWQ through Triton, ...): estimates and plans name those (FrameworkProfile
// rocmKernelNames), while the time model prices the family they stand in for.
import { afterAll, describe, expect, it } from 'vitest';
import { buildEstimate } from '../../src/core/estimate.js';
import { withEngineDefaults } from '../../src/core/engines/defaults.js';
import { plan } from '../../src/core/plan/index.js';
import { closeJslpWorkers } from '../../src/solve/index.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { defaultTimeOptions, type QuantFormat } from '../../src/schema/time.js';
import { techniqueOf } from '../../src/ui/plan-text.js';
import { inputOf } from './plan-input.js';

afterAll(() => closeJslpWorkers());

const est = (
  model: string,
  gpu: string,
  flags: Record<string, unknown>,
  quantFormat: QuantFormat | null = null,
) => {
  const f = { method: 'inference', ...flags };
  const o = withEngineDefaults(optionsFromFlags(f), f);
  return buildEstimate(resolveModel(model), o, findGpu(gpu), {
    ...defaultTimeOptions(o.gpus),
    quantFormat,
  }).time!;
};

describe('the kernel an estimate names on AMD GPUs', () => {
  it('FP8 W8A8 is hipBLASLt on an MI300X and CUTLASS on an H100, on vLLM and SGLang', () => {
    for (const framework of ['vllm', 'sglang']) {
      const mi = est('llama-3.1-8b', 'mi300x', { framework, weights: 'fp8' });
      expect(mi.settings.quantFormat, framework).toBe('hipblaslt');
      const h100 = est('llama-3.1-8b', 'h100-sxm', { framework, weights: 'fp8' });
      expect(h100.settings.quantFormat, framework).toBe('cutlass');
      // Only the name follows the platform: `--quant-format cutlass` is the same run, the same time.
      const named = est('llama-3.1-8b', 'mi300x', { framework, weights: 'fp8' }, 'cutlass');
      expect(named.settings.quantFormat, framework).toBe('hipblaslt');
      expect(named.decodeTokensPerSecond, framework).toBe(mi.decodeTokensPerSecond);
    }
  });

  it('int4 is Triton AWQ on an MI300X (no Marlin on ROCm); a named GPTQ keeps its name', () => {
    for (const framework of ['vllm', 'sglang'])
      expect(
        est('llama-3.1-8b', 'mi300x', { framework, weights: 'int4' }).settings.quantFormat,
        framework,
      ).toBe('triton-awq');
    const gptq = est('llama-3.1-8b', 'mi300x', { framework: 'vllm', weights: 'int4' }, 'gptq');
    expect(gptq.settings.quantFormat).toBe('gptq');
    expect(
      est('llama-3.1-8b', 'a100-80gb-sxm', { framework: 'vllm', weights: 'int4' }).settings
        .quantFormat,
    ).toBe('marlin');
  });

  it('MXFP4 and NVFP4 name the engine’s ROCm kernels, not Marlin', () => {
    const oss = (gpu: string, framework: string) =>
      est('gpt-oss-20b', gpu, { framework, weights: 'mxfp4' }).settings.quantFormat;
    expect(oss('mi300x', 'vllm')).toBe('triton');
    expect(oss('mi355x', 'sglang')).toBe('aiter');
    const nv = est('llama-3.1-8b', 'mi300x', { framework: 'vllm', weights: 'nvfp4' });
    expect(nv.settings.quantFormat).toBe('petit');
  });

  it('16-bit weights name none, on either platform', () => {
    expect(
      est('llama-3.1-8b', 'mi300x', { framework: 'vllm', weights: 'bf16' }).settings.quantFormat,
    ).toBeNull();
  });
});

describe('the kernel a serving plan names on AMD GPUs', () => {
  const planOn = (gpu: string) =>
    plan({
      ...inputOf('serve-8b-64-users-24gb.yaml', (s) => {
        s.hardware = { ...s.hardware, owned: [{ gpu, count: 1 }] };
        s.power = { ...s.power, circuits: [] };
        s.expect = undefined;
      }),
      top: 60,
    }).plans.find((p) => p.choices.weights === 'fp8');

  it('an MI300X FP8 plan says hipblaslt, an H100 one cutlass', () => {
    const mi = planOn('mi300x')!;
    expect(mi.choices.quantFormat).toBe('hipblaslt');
    expect(techniqueOf(mi)).toMatch(/^inference fp8 hipblaslt, /);
    const h100 = planOn('h100-sxm')!;
    expect(h100.choices.quantFormat).toBe('cutlass');
    expect(techniqueOf(h100)).toMatch(/^inference fp8 cutlass, /);
  });
});
