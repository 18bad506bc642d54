/**
 * A run whose padded batches hand transformers' SDPA attention the padding mask (TimeOptions.sdpaPaddingMask, set by
 * `validate --throughput` for rows whose `sdpa_mask` is 'padding'): SDPA runs with is_causal=False, so the kernel
 * computes every key block (no causal half skipped) and reads the 16-bit mask for every head, and it is PyTorch's
 * memory-efficient kernel that runs them, at SDPA_MEM_EFF_ATTN_SHARE of FlashAttention-2's rate.
 */
import { describe, expect, it } from 'vitest';
import { gpuRates, modelFacts, trainStep, trainWork } from '../../src/core/time/index.js';
import { SDPA_MEM_EFF_ATTN_SHARE } from '../../src/core/time/train-work.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { defaultTimeOptions } from '../../src/schema/time.js';
import { HF_LORA_ROW_FLAGS } from '../helpers/hf-lora-flags.js';

const flags = HF_LORA_ROW_FLAGS;

describe('SDPA handed a padding mask (sdpaPaddingMask)', () => {
  const m = modelFacts(resolveModel('llama-2-7b'));
  const t = defaultTimeOptions(1);

  it('computes the whole score matrix and reads the mask for every head of every layer', () => {
    const sdpa = optionsFromFlags({ ...flags, attention: 'sdpa' });
    const plain = trainWork(m, sdpa, t);
    const masked = trainWork(m, sdpa, { ...t, sdpaPaddingMask: true });
    expect(masked.fwdAttnFlops).toBeCloseTo(2 * plain.fwdAttnFlops, -3);
    // The mask's reads, and transformers' SDPA making q, k and v contiguous once handed a mask (a read and a write of
    // each, 16-bit; engines/hf/eager-modules.ts).
    expect(masked.fwdElemBytes - plain.fwdElemBytes).toBeCloseTo(
      4 * m.heads * 1024 * 1024 * 2 * m.layers +
        4 * 1024 * m.layers * 2 * 2 * (m.attnWidth + 2 * m.kvWidth),
      -3,
    );
  });

  it('copies nothing around an unmasked fused SDPA call, where flash is counted 2 passes over q, k and v', () => {
    // transformers' SDPA path: no q/k/v copies without a mask, and the output's transpose back to token-major is
    // already contiguous after PyTorch's fused kernels (engines/hf/eager-modules.ts); flash stays at the assumed 2
    // passes (a read and a write) over q, k and v of each layer's 4 x 1024 tokens.
    const sdpa = trainWork(m, optionsFromFlags({ ...flags, attention: 'sdpa' }), t);
    const flash = trainWork(m, optionsFromFlags({ ...flags, attention: 'flash' }), t);
    expect(flash.fwdElemBytes - sdpa.fwdElemBytes).toBeCloseTo(
      4 * 1024 * m.layers * 2 * 2 * (m.attnWidth + 2 * m.kvWidth),
      -3,
    );
  });

  it('leaves flash and eager attention as they were (flash takes no mask; eager already computes it all)', () => {
    for (const attention of ['flash', 'eager'] as const) {
      const o = optionsFromFlags({ ...flags, attention });
      expect(trainWork(m, o, { ...t, sdpaPaddingMask: true })).toEqual(trainWork(m, o, t));
    }
  });

  it('times the masked kernel at the memory-efficient share of the flash rate, forward, recompute and backward', () => {
    const o = optionsFromFlags({ ...flags, attention: 'sdpa', seq: 8192, batch: 2 });
    const masked = trainWork(m, o, { ...t, sdpaPaddingMask: true });
    expect(masked.attnShare).toBe(SDPA_MEM_EFF_ATTN_SHARE);
    expect(SDPA_MEM_EFF_ATTN_SHARE).toBe(0.5);
    expect(trainWork(m, o, t).attnShare).toBe(1);
    const r = gpuRates(findGpu('h100-sxm'), t);
    const atFlash = trainStep({ ...masked, attnShare: 1 }, r);
    const attnAtFlash =
      (masked.microBatches * ((1 + masked.recompute) * masked.fwdAttnFlops + masked.bwdAttnFlops)) /
      r.attn;
    // Half the rate: the attention's seconds at the flash rate come once more.
    expect(trainStep(masked, r) - atFlash).toBeCloseTo(attnAtFlash, 6);
  });

  it('keeps flash and eager attention at the flash rate', () => {
    for (const attention of ['flash', 'eager'] as const) {
      const o = optionsFromFlags({ ...flags, attention });
      expect(trainWork(m, o, { ...t, sdpaPaddingMask: true }).attnShare).toBe(1);
    }
  });
});
