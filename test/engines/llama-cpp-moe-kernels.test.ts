// llama.cpp's MoE routing kernels beyond a dense MLP's, counted in ggml's graph by build
// (engines/llama-cpp/moe-kernels.ts): apart in an unfused graph and before the MoE fusions, the top-k MoE kernel and the
// chained adds after them, gpt-oss's softmax after the top-k fused only once its own fusion came.
import { describe, expect, it } from 'vitest';
import { ggmlMoeRoutingKernels } from '../../src/core/engines/llama-cpp/moe-kernels.js';
import { moeRoutingKernelCount } from '../../src/core/time/decode-host.js';
import { modelFacts } from '../../src/core/time/model-facts.js';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { resolveModel } from '../../src/io/load-model.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

const LLAMA = FRAMEWORKS['llama.cpp'];
const t1 = defaultTimeOptions(1);

describe('ggml MoE routing kernels by build', () => {
  it('Qwen3-MoE (softmax, norm, top-8): router, 6 routing ops, mul and 7 adds apart; 4 fused', () => {
    expect(ggmlMoeRoutingKernels('qwen3_moe', 8, 'unfused')).toBe(1 + 6 + 1 + 7);
    expect(ggmlMoeRoutingKernels('qwen3_moe', 8, 'no-moe-fusion')).toBe(1 + 5 + 1 + 7); // no clamp yet
    expect(ggmlMoeRoutingKernels('qwen3_moe', 8, 'no-gemv-fusion')).toBe(4);
    expect(ggmlMoeRoutingKernels('qwen3_moe', 8, 'fused')).toBe(4);
  });

  it('gpt-oss (softmax after the top-k, biased, top-4)', () => {
    // router, its bias and the 3 experts' ADD_ID, argsort, get_rows, softmax, mul, 3 adds
    expect(ggmlMoeRoutingKernels('gpt_oss', 4, 'unfused')).toBe(1 + 4 + 3 + 1 + 3);
    // the biases are the GEMV fusion's (gemvFusion) once ops fuse at all
    expect(ggmlMoeRoutingKernels('gpt_oss', 4, 'no-moe-fusion')).toBe(1 + 3 + 1 + 3);
    // chained adds fused; its top-k fusion not yet
    expect(ggmlMoeRoutingKernels('gpt_oss', 4, 'no-gemv-fusion')).toBe(1 + 3 + 1 + 1);
    expect(ggmlMoeRoutingKernels('gpt_oss', 4, 'fused')).toBe(4);
  });

  it('more than 8 adds take a second fused-add kernel', () => {
    expect(ggmlMoeRoutingKernels('qwen3_moe', 10, 'fused')).toBe(1 + 1 + 1 + 2);
  });
});

describe('the decode step reads the count by the build flags', () => {
  const qwen = modelFacts(resolveModel('qwen3-30b-a3b'));
  const mixtral = modelFacts(resolveModel('mixtral-8x7b'));

  it('picks the graph from TimeOptions and drops the router quantization an unfused graph counts', () => {
    expect(moeRoutingKernelCount(qwen, LLAMA, t1, false, 0)).toBe(48 * 4);
    expect(moeRoutingKernelCount(qwen, LLAMA, { ...t1, noGemvFusion: true }, false, 0)).toBe(
      48 * 4,
    );
    expect(
      moeRoutingKernelCount(
        qwen,
        LLAMA,
        { ...t1, noGemvFusion: true, noMoeFusion: true },
        false,
        0,
      ),
    ).toBe(48 * 14);
    expect(moeRoutingKernelCount(qwen, LLAMA, { ...t1, unfusedGraph: true }, true, 1)).toBe(
      48 * 14,
    );
  });

  it('a per-slot MUL_MAT_ID build counts its routing in perSlotMoeKernels only', () => {
    expect(moeRoutingKernelCount(mixtral, LLAMA, { ...t1, mulMatIdSync: true }, true, 1)).toBe(0);
  });

  it("an engine with a flat count keeps it (vLLM's 4)", () => {
    expect(moeRoutingKernelCount(qwen, FRAMEWORKS.vllm, t1, false, 0)).toBe(48 * 4);
  });
});
