/**
 * gpt-oss's MXFP4 MoE on Hopper under vLLM releases that run triton_kernels' `matmul_ogs` with the vendored v3.6.0
 * routing: `make_routing_data`'s chain of small kernels a layer (engines/vllm/decode-kernels.ts
 * VLLM_SM90_GPT_OSS_KERNELS), each a graph kernel's gap (engines/graph-kernel.ts), beyond the counted chain. Gated by
 * release (TimeOptions.engineVersion), by card (9.x only: SM100 runs FlashInfer's MoE, 8.x Marlin) and by the format
 * named (`--quant-format marlin` runs Marlin).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { VLLM_SM90_GPT_OSS_KERNELS } from '../../src/core/engines/vllm/decode-kernels.js';
import { SERVING_GRAPH_KERNEL_SECONDS } from '../../src/core/engines/graph-kernel.js';
import { buildEstimate } from '../../src/core/estimate.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags, type RawFlags } from '../../src/schema/flags.js';
import { timeOptionsFromFlags } from '../../src/schema/time.js';

/** The vLLM blog's FP8 KV-cache post's H100 build (calibration rows `vllmblogfp8kv-gptoss20b-h100-*`). */
const BLOG_FP8KV_RELEASE = '0.19.1';
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

describe("vLLM's triton_kernels v3.6.0 routing chain for gpt-oss on Hopper", () => {
  const perStep =
    GPT_OSS_20B_MOE_LAYERS *
    VLLM_SM90_GPT_OSS_KERNELS.tritonKernelsMxfp4Routing!.kernels *
    SERVING_GRAPH_KERNEL_SECONDS;

  it('v0.19.1 on an H100 SXM pays 11 more graph kernels a MoE layer than v0.16.0 (triton_kernels v3.5.1)', () => {
    const d = tpot('h100-sxm', BLOG_FP8KV_RELEASE) - tpot('h100-sxm', '0.16.0');
    expect(VLLM_SM90_GPT_OSS_KERNELS.tritonKernelsMxfp4Routing!.kernels).toBe(11);
    // The gap is priced in SM cycles at the card's clock (engines/graph-kernel.ts): within 1% of 3.15 us on an H100 SXM.
    expect(Math.abs(d / perStep - 1)).toBeLessThan(0.01);
    // 24 x 11 x 3.15 us: about 0.83 ms a step.
    expect(d * 1e3).toBeGreaterThan(0.8);
  });

  it('no release named, Marlin named, or a later release: not priced', () => {
    const base = tpot('h100-sxm', '0.16.0');
    expect(tpot('h100-sxm', undefined)).toBeCloseTo(base, 9);
    expect(tpot('h100-sxm', BLOG_FP8KV_RELEASE, 1, 'marlin')).toBeCloseTo(
      tpot('h100-sxm', '0.16.0', 1, 'marlin'),
      9,
    );
    expect(tpot('h100-sxm', '0.21.0')).toBeCloseTo(base, 9);
  });

  it('other cards are untouched: B200 (FlashInfer TensorRT-LLM MoE) and A100 (Marlin)', () => {
    for (const gpu of ['b200', 'a100-80gb-sxm'])
      expect(tpot(gpu, BLOG_FP8KV_RELEASE)).toBeCloseTo(tpot(gpu, '0.16.0'), 9);
  });

  it('the chain adds the same kernels at any batch and never makes the step faster (property)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('h100-sxm', 'h200-sxm'),
        fc.integer({ min: 1, max: 16 }),
        fc.constantFrom('0.19.0', '0.19.1', '0.20.0', '0.20.1'),
        (gpu, batch, release) => {
          const d = tpot(gpu, release, batch) - tpot(gpu, '0.16.0', batch);
          return d > 0 && Math.abs(d / perStep - 1) < 0.01;
        },
      ),
      { numRuns: 12 },
    );
  });
});
