// vLLM's decode kernels beyond the counted chain for model types whose parts it runs apart (engines/vllm/decode-kernels.ts).
import { describe, expect, it } from 'vitest';
import {
  VLLM_DECODE_FEATURE_KERNELS as D,
  VLLM_MINIMAX_M2_KERNELS as M,
} from '../../src/core/engines/vllm/decode-kernels.js';
import { attentionTpAllReduces, decodeFeatureKernels } from '../../src/core/time/decode-host.js';
import { decodeTpSeconds } from '../../src/core/time/decode-tp.js';
import { gpuRates } from '../../src/core/time/hardware.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { defaultTimeOptions } from '../../src/schema/time.js';
import { minimaxM2, minimaxServedAt, qkNormAdded } from '../helpers/minimax-m2.js';

// MiniMax-M2's q and k norms span every head: under TP MiniMaxText01RMSNormTP.forward_qk all-reduces the two fp32 mean
// squares a token once a layer (vllm-project/vllm#31493); its torch ops are Inductor's to fuse, no kernels counted.
describe("vLLM's MiniMax-M2 full-width q/k norm", () => {
  const m = minimaxM2();
  const at = (tp: number) => minimaxServedAt('vllm', tp);

  it('counts one all-reduce an attention layer under TP and no kernels beyond the table it extends', () => {
    expect(m.attnLayers).toBe(62);
    expect([M.attentionLayer ?? 0, M.attentionTpAllReduces]).toEqual([0, 1]);
    expect({ ...M, attentionTpAllReduces: undefined }).toEqual({
      ...D,
      attentionTpAllReduces: undefined,
    });
    for (const cc of [8.0, 9.0, 10.0]) {
      expect(attentionTpAllReduces(m, at(4), { cc })).toBe(62);
      expect(attentionTpAllReduces(m, at(8), { cc })).toBe(62);
    }
    expect(attentionTpAllReduces(m, at(4), { cc: 0, gfx: 'gfx942' })).toBe(62);
    expect(attentionTpAllReduces(m, at(1), { cc: 9 })).toBe(0);
    // The all-reduce adds no kernel to the graph count: MiniMax-M2 counts as the model types vLLM's table leaves alone.
    const plain = { ...m, modelType: 'mixtral' };
    for (const cc of [9.0, 10.0])
      expect(decodeFeatureKernels(m, at(4), cc)).toBe(decodeFeatureKernels(plain, at(4), cc));
    // Other model types keep vLLM's table without the all-reduce.
    expect(attentionTpAllReduces({ ...m, modelType: 'qwen3_moe' }, at(4), { cc: 9 })).toBe(0);
  });

  it("prices each all-reduce at the statistic's small message", () => {
    const { added, layerCall } = qkNormAdded(m, 'vllm', 'h100-sxm');
    // 62 calls, each at least the all-reduce's latency and no more than a hidden-state all-reduce's.
    const r = gpuRates(findGpu('h100-sxm'), defaultTimeOptions(4));
    expect(added).toBeGreaterThan(62 * 1e-6);
    expect(added).toBeLessThanOrEqual(62 * layerCall);
    expect(decodeTpSeconds(m, at(1), 4, r)).toBe(0);
  });
});
