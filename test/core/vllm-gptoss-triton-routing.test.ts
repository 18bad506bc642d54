/**
 * gpt-oss's MXFP4 MoE on Hopper under vLLM releases that run triton_kernels' `matmul_ogs`: each span of releases'
 * routing chain of small kernels a layer (engines/vllm/decode-kernels.ts VLLM_SM90_GPT_OSS_KERNELS: the fused
 * `routing()` of 0.12-0.16, the two `SparseMatrix` builds of 0.17-0.18, `make_routing_data`'s v3.6.0 chain of
 * 0.19-0.20), each a graph kernel's gap (engines/graph-kernel.ts), beyond the counted chain. Gated by release
 * (TimeOptions.engineVersion), by card (9.x only: SM100 runs FlashInfer's MoE, 8.x Marlin) and by the format named
 * (`--quant-format marlin` runs Marlin).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { VLLM_SM90_GPT_OSS_KERNELS } from '../../src/core/engines/vllm/decode-kernels.js';
import { releaseAtLeast, releaseNamedBefore } from '../../src/core/compare-releases.js';
import { SERVING_GRAPH_KERNEL_SECONDS } from '../../src/core/engines/graph-kernel.js';
import { buildEstimate } from '../../src/core/estimate.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags, type RawFlags } from '../../src/schema/flags.js';
import { timeOptionsFromFlags } from '../../src/schema/time.js';

/** The vLLM blog's FP8 KV-cache post's H100 build (calibration rows `vllmblogfp8kv-gptoss20b-h100-*`). */
const BLOG_FP8KV_RELEASE = '0.19.1';
/** vllm-project/vllm#40838's two builds (calibration rows `vllm40838-*`): the fused `routing()` and the v3.6 API. */
const ISSUE_40838_RELEASES = ['0.16.0', '0.17.0'] as const;
/** A release before triton_kernels became Hopper's default MXFP4 MoE (engines/vllm/mxfp4-backend.ts: from 0.12.0). */
const PRE_TRITON_RELEASE = '0.11.0';
/** gpt-oss-20b's MoE layers (configs/openai__gpt-oss-20b.json num_hidden_layers, every layer routed). */
const GPT_OSS_20B_MOE_LAYERS = 24;

/** The estimate's TPOT of gpt-oss-20b on `gpu` at `batch` requests under vLLM `release`, `quant` the format named. */
function tpot(gpu: string, release: string | undefined, batch = 1, quant?: string): number {
  const f: RawFlags = {
    model: 'gpt-oss-20b',
    gpu,
    method: 'inference',
    framework: 'vllm',
    weights: 'mxfp4',
    batch,
    seq: 1152,
    'prompt-tokens': 1024,
    ...(quant !== undefined ? { 'quant-format': quant } : {}),
  };
  const o = optionsFromFlags(f);
  const t = timeOptionsFromFlags(f, o);
  if (release !== undefined) t.engineVersion = release;
  return buildEstimate(resolveModel('gpt-oss-20b'), o, findGpu(gpu), t).time!.tpotSeconds!;
}

describe("vLLM's triton_kernels routing chains for gpt-oss on Hopper", () => {
  const spans = VLLM_SM90_GPT_OSS_KERNELS.tritonKernelsMxfp4Routing!;
  /** The span's kernels for `release` (read in the table, so a test of the step can fail without it). */
  const kernelsAt = (release: string): number =>
    spans.find((s) => releaseAtLeast(release, s.from) && releaseNamedBefore(release, s.before))
      ?.kernels ?? 0;
  const perStep = (kernels: number): number =>
    GPT_OSS_20B_MOE_LAYERS * kernels * SERVING_GRAPH_KERNEL_SECONDS;

  it('counts read in the wheels: 1 (0.12-0.16 routing()), 12 (0.17-0.18), 14 (0.19-0.20)', () => {
    expect(kernelsAt('0.12.0')).toBe(1);
    expect(kernelsAt(ISSUE_40838_RELEASES[0])).toBe(1);
    // 0.17-0.18's matmul_ogs runs w13's `torch.div` of the gather's src_indx (matmul_ogs.py:565) as 0.19.1's does,
    // and both spans' gate gather casts its int32 index to int64 first (ATen's make_info)
    expect(kernelsAt(ISSUE_40838_RELEASES[1])).toBe(12);
    expect(kernelsAt('0.18.0')).toBe(12);
    // vllm-project/vllm#39714's "14-kernel chain for computing routing data", less align and activation, plus 2
    expect(kernelsAt(BLOG_FP8KV_RELEASE)).toBe(14);
    expect(kernelsAt(PRE_TRITON_RELEASE)).toBe(0);
    expect(kernelsAt('0.21.0')).toBe(0);
  });

  it('the spans do not overlap and run in release order', () => {
    for (let i = 1; i < spans.length; i++) {
      expect(spans[i]!.from).toBe(spans[i - 1]!.before);
      expect(releaseAtLeast(spans[i]!.from, spans[i - 1]!.from)).toBe(true);
    }
  });

  it('v0.19.1 on an H100 SXM pays 14 more graph kernels a MoE layer than a build before 0.12', () => {
    const d = tpot('h100-sxm', BLOG_FP8KV_RELEASE) - tpot('h100-sxm', PRE_TRITON_RELEASE);
    // The gap is priced in SM cycles at the card's clock (engines/graph-kernel.ts): within 1% of 3.15 us on an H100 SXM.
    expect(Math.abs(d / perStep(14) - 1)).toBeLessThan(0.01);
    // 24 x 14 x 3.15 us: about 1.06 ms a step.
    expect(d * 1e3).toBeGreaterThan(1.03);
  });

  it("vllm-project/vllm#40838's builds: 0.16.0 pays 1 kernel a layer, 0.17.0 pays 12", () => {
    const base = tpot('h200-sxm', PRE_TRITON_RELEASE);
    const d16 = tpot('h200-sxm', ISSUE_40838_RELEASES[0]) - base;
    const d17 = tpot('h200-sxm', ISSUE_40838_RELEASES[1]) - base;
    expect(Math.abs(d16 / perStep(1) - 1)).toBeLessThan(0.01);
    expect(Math.abs(d17 / perStep(12) - 1)).toBeLessThan(0.01);
    expect(d17).toBeGreaterThan(d16);
  });

  it('no release named, Marlin named, a release before 0.12 or from 0.21: not priced', () => {
    const base = tpot('h100-sxm', PRE_TRITON_RELEASE);
    expect(tpot('h100-sxm', undefined)).toBeCloseTo(base, 9);
    for (const release of ['0.16.0', '0.17.0', BLOG_FP8KV_RELEASE])
      expect(tpot('h100-sxm', release, 1, 'marlin')).toBeCloseTo(
        tpot('h100-sxm', PRE_TRITON_RELEASE, 1, 'marlin'),
        9,
      );
    expect(tpot('h100-sxm', '0.21.0')).toBeCloseTo(base, 9);
  });

  it('other cards are untouched: B200 (FlashInfer TensorRT-LLM MoE) and A100 (Marlin)', () => {
    for (const gpu of ['b200', 'a100-80gb-sxm'])
      for (const release of ['0.16.0', '0.17.0', BLOG_FP8KV_RELEASE])
        expect(tpot(gpu, release)).toBeCloseTo(tpot(gpu, PRE_TRITON_RELEASE), 9);
  });

  it("each span adds its chain's kernels at any batch and never makes the step faster (property)", () => {
    fc.assert(
      fc.property(
        fc.constantFrom('h100-sxm', 'h200-sxm'),
        fc.integer({ min: 1, max: 16 }),
        fc.constantFrom('0.12.0', '0.14.1', '0.16.0', '0.17.1', '0.18.0', '0.19.0', '0.20.1'),
        (gpu, batch, release) => {
          const d = tpot(gpu, release, batch) - tpot(gpu, PRE_TRITON_RELEASE, batch);
          return d > 0 && Math.abs(d / perStep(kernelsAt(release)) - 1) < 0.01;
        },
      ),
      { numRuns: 12 },
    );
  });
});
