/**
 * SDPA on PyTorch's math path (TimeOptions.sdpaMath, set by `validate --throughput` for rows whose `sdpa_backend` is
 * 'math'): inputs the fused kernels refuse (torch 2.0's sdp_utils want as many key heads as query heads) run
 * `_scaled_dot_product_attention_math`, which materializes the scores and adds the causal mask to the whole square.
 */
import { describe, expect, it } from 'vitest';
import { modelFacts, trainWork } from '../../src/core/time/index.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { defaultTimeOptions } from '../../src/schema/time.js';
import { HF_LORA_ROW_FLAGS } from '../helpers/hf-lora-flags.js';

const flags = HF_LORA_ROW_FLAGS;

describe('SDPA on its math path (sdpaMath)', () => {
  const m = modelFacts(resolveModel('llama-2-7b'));
  const t = defaultTimeOptions(1);

  it('computes the whole square and moves 7 passes of 16-bit scores a layer', () => {
    const o = optionsFromFlags({ ...flags, attention: 'sdpa' });
    const fused = trainWork(m, o, t);
    const math = trainWork(m, o, { ...t, sdpaMath: true });
    expect(math.fwdAttnFlops).toBeCloseTo(2 * fused.fwdAttnFlops, -3);
    expect(math.bwdAttnFlops).toBeCloseTo(2 * fused.bwdAttnFlops, -3);
    // QK^T writes, the mask add reads the scores and the mask and writes, softmax reads and writes, PV reads.
    expect(math.fwdElemBytes - fused.fwdElemBytes).toBeCloseTo(
      o.batch * m.heads * o.seq * o.seq * 7 * 2 * m.layers,
      -3,
    );
  });

  it('moves less than eager attention (no fp32 softmax and cast back), and is slower than fused SDPA', () => {
    const sdpa = optionsFromFlags({ ...flags, attention: 'sdpa' });
    const eager = trainWork(m, optionsFromFlags({ ...flags, attention: 'eager' }), t);
    const math = trainWork(m, sdpa, { ...t, sdpaMath: true });
    expect(math.fwdElemBytes).toBeLessThan(eager.fwdElemBytes);
    expect(math.fwdElemBytes).toBeGreaterThan(trainWork(m, sdpa, t).fwdElemBytes);
  });

  it('leaves flash and eager attention as they were (only SDPA picks a backend)', () => {
    for (const attention of ['flash', 'eager'] as const) {
      const o = optionsFromFlags({ ...flags, attention });
      expect(trainWork(m, o, { ...t, sdpaMath: true })).toEqual(trainWork(m, o, t));
    }
  });
});
