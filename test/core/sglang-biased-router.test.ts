// SGLang's biased grouped top-k (layers/moe/topk.py `biased_grouped_topk_gpu`, sglang 0.5.2 to 0.5.8.post1) picks
// a fused gate or the torch.compile'd fallback by the router's expert count, groups and top-k and the release, on any
// CUDA card alike (no compute-capability check); with AITER on ROCm a gate of AITER's runs instead
// (engines/sglang/decode-kernels.ts SGLANG_TORCH_BIASED_ROUTER).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { caseInputs } from '../../src/commands/validate-throughput.js';
import { ccOf } from '../../src/core/engines/kernels.js';
import { SGLANG_TORCH_BIASED_ROUTER as R } from '../../src/core/engines/sglang/decode-kernels.js';
import { decodeFeatureKernels } from '../../src/core/time/decode-host.js';
import { modelFacts } from '../../src/core/time/model-facts.js';
import { loadThroughputCases } from '../../src/io/load-calibration.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

const options = optionsFromFlags({
  method: 'inference',
  framework: 'sglang',
  batch: 1,
  seq: 1000,
  'prompt-tokens': 500,
  gpus: 8,
  tp: 8,
});
const timeAt = (engineVersion?: string) => ({ ...defaultTimeOptions(8), engineVersion });
const RELEASES = ['0.5.2', '0.5.4', '0.5.5', '0.5.6', '0.5.7', '0.5.8', '0.5.8.post1', undefined];
const CUDA_CARDS = [8.0, 8.6, 8.9, 9.0]; // Ampere, Ada, Hopper: no table of their own for these models

/** topk.py's branches, written out from the source: whether a fused gate takes the router at a release. */
function sglangFuses(experts: number, groups: number, topK: number, release?: string): boolean {
  const pow2 = (experts & (experts - 1)) === 0;
  const n = release === undefined ? [9, 9, 9] : release.split(/[.]/).slice(0, 3).map(Number);
  const atLeast = (minor: number, patch: number) =>
    n[1]! > minor || (n[1] === minor && n[2]! >= patch);
  const flashinfer = atLeast(5, 8) && pow2 && topK <= 8 && groups === 1 && experts <= 384;
  const sglGate = pow2 && experts / groups <= 32;
  const kimi = atLeast(5, 6) && experts === 384 && groups === 1;
  return flashinfer || sglGate || kimi;
}

describe("SGLang's torch grouped top-k on every CUDA card", () => {
  const glm = modelFacts(resolveModel('glm-4.6'));

  it('reads the router groups from the config: GLM-4.6, Kimi K2 one, DeepSeek-V3 eight', () => {
    expect([glm.experts, glm.routerGroups]).toEqual([160, 1]);
    const kimi = modelFacts(resolveModel('kimi-k2-instruct'));
    expect([kimi.experts, kimi.routerGroups]).toEqual([384, 1]);
    const v3 = modelFacts(resolveModel('deepseek-v3'));
    expect([v3.experts, v3.routerGroups]).toEqual([256, 8]);
  });

  it('counts the torch router exactly where no fused gate fits, on Ampere, Ada and Hopper alike', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 512 }),
        fc.constantFrom(1, 2, 4, 8),
        fc.integer({ min: 1, max: 12 }),
        fc.constantFrom(...RELEASES),
        fc.constantFrom(...CUDA_CARDS),
        (experts, routerGroups, topK, release, cc) => {
          const m = { ...glm, experts, routerGroups, topK };
          const n = decodeFeatureKernels(m, options, cc, timeAt(release));
          expect(n).toBe(
            sglangFuses(experts, routerGroups, topK, release) ? 0 : R.kernels * glm.moeLayers,
          );
        },
      ),
    );
  });

  it('never counts it on gfx942 (AITER routes it) nor for a model type without the biased router', () => {
    expect(decodeFeatureKernels(glm, options, 0, timeAt('0.5.7'), 'gfx942')).toBe(0);
    expect(decodeFeatureKernels({ ...glm, modelType: 'qwen3_moe' }, options, 9.0)).toBe(0);
  });

  it('takes Kimi K2 through its own gate from 0.5.6, the torch router before', () => {
    const kimi = modelFacts(resolveModel('kimi-k2-instruct'));
    const at = (v: string) => decodeFeatureKernels(kimi, options, 9.0, timeAt(v));
    expect(at('0.5.5')).toBe(R.kernels * kimi.moeLayers);
    expect(at('0.5.6')).toBe(0);
  });

  it("leaves the H200 DeepSeek-R1 row's router fused (256 experts in 8 groups: moe_fused_gate)", () => {
    const row = loadThroughputCases('throughput.json').find(
      (c) => c.id === 'inferencex870-dsr1-fp8-h200-sglang-c8',
    )!;
    const { options: o, time, gpu, arch } = caseInputs(row);
    const m = modelFacts(arch);
    const cc = ccOf(gpu.computeCapability);
    expect(cc).toBe(9.0);
    expect(decodeFeatureKernels(m, o, cc, time)).toBe(0);
    // Read as one group of 256 (the config's n_group lost), the releases before 0.5.8 would run the torch router.
    const one = { ...m, routerGroups: 1 };
    expect(decodeFeatureKernels(one, o, cc, timeAt('0.5.7'))).toBe(R.kernels * m.moeLayers);
  });
});
