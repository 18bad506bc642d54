// What a measured build ran beyond the contract's flags (EstimateContext): torch AdamW's foreach step, gradients freed
// after each step, transformers 4.48's shifted fp32 logits, TRL 0.13's fp32 k-bit stream; and the final norm's fp32 input.
import { describe, expect, it } from 'vitest';
import { buildEstimate } from '../../src/core/estimate.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import type { EstimateContext } from '../../src/core/memory/index.js';

type Build = Pick<
  EstimateContext,
  'adamForeach' | 'gradsFreedEachStep' | 'kbitFp32Stream' | 'shiftedLogitsCopy'
>;

const arch = resolveModel('mistral-7b-v0.1');
const FULL = {
  framework: 'hf',
  method: 'full',
  weights: 'bf16',
  'optimizer-states': 'bf16',
  seq: 4096,
  checkpointing: 'full',
  attention: 'flash',
};
const QLORA = {
  framework: 'hf',
  method: 'qlora',
  'lora-rank': 16,
  'lora-targets': 'q,k,v,o',
  'double-quant': true,
  seq: 4096,
  checkpointing: 'full',
  attention: 'flash',
};

const est = (flags: Record<string, unknown>, build?: Build) =>
  buildEstimate(arch, optionsFromFlags(flags), undefined, undefined, build);
const phase = (r: ReturnType<typeof est>, name: string) => r.phases.find((p) => p.phase === name)!;

describe('a full fine-tune stepped by foreach AdamW with its gradients freed each step', () => {
  const build: Build = { adamForeach: true, gradsFreedEachStep: true };

  it('peaks at the step: weights, gradients, both bf16 states and the copy of v over the group', () => {
    const r = est({ ...FULL, batch: 4 }, build);
    expect(r.peakPhase).toBe('optimizer-step');
    const b = r.params.trainable * 2;
    // _foreach_sqrt(exp_avg_sqs): one bf16 element per trainable parameter beside the four copies.
    expect(r.perGpu.allocatedBytes).toBeCloseTo(5 * b, -6);
  });

  it('does not grow with batch, while the fused profile without the build does', () => {
    const b4 = est({ ...FULL, batch: 4 }, build).perGpu.allocatedBytes;
    const b8 = est({ ...FULL, batch: 8 }, build).perGpu.allocatedBytes;
    expect(b8).toBe(b4);
    const p4 = est({ ...FULL, batch: 4 }).perGpu.allocatedBytes;
    const p8 = est({ ...FULL, batch: 8 }).perGpu.allocatedBytes;
    expect(p8).toBeGreaterThan(p4);
  });

  it('holds no gradients through forward once they are freed each step', () => {
    expect(phase(est({ ...FULL, batch: 4 }), 'forward').parts.gradients).toBeGreaterThan(0);
    expect(phase(est({ ...FULL, batch: 4 }, build), 'forward').parts.gradients).toBe(0);
  });
});

describe("transformers 4.48's shifted logits", () => {
  it('adds one fp32 copy of the logits to the forward, not to the backward', () => {
    const flags = { ...QLORA, method: 'lora', batch: 4 };
    const tokens = 4 * 4096;
    const base = est(flags);
    const shifted = est(flags, { shiftedLogitsCopy: true });
    expect(phase(shifted, 'forward').parts.logits - phase(base, 'forward').parts.logits).toBe(
      4 * tokens * arch.vocab,
    );
    expect(phase(shifted, 'backward').parts.logits).toBe(phase(base, 'backward').parts.logits);
  });
});

describe("TRL 0.13's fp32 k-bit stream", () => {
  const tokens = 4 * 4096;
  const layers = arch.groups.reduce((a, g) => a + g.count, 0);

  it('keeps every checkpointed layer input in fp32', () => {
    const base = phase(est({ ...QLORA, batch: 4 }), 'forward').parts.activations;
    const fp32 = phase(est({ ...QLORA, batch: 4 }, { kbitFp32Stream: true }), 'forward').parts
      .activations;
    expect(fp32 - base).toBe(2 * arch.hidden * layers * tokens);
  });

  it('upcasts the norms but casts embed_tokens and lm_head back to bf16 (peft_module_casting_to_bf16)', () => {
    // The pinned TRL keeps every non-quantized weight in the load dtype (bf16); TRL 0.13's preparation takes the
    // norms (two a layer and the final one; Mistral has no biases) to fp32, 2 bytes more each, and nothing else.
    const base = est({ ...QLORA, batch: 4 }).perGpu.breakdown.weights;
    const cast = est({ ...QLORA, batch: 4 }, { kbitFp32Stream: true }).perGpu.breakdown.weights;
    const layers = arch.groups.reduce((a, g) => a + g.count, 0);
    expect(cast - base).toBe(2 * (2 * layers + 1) * arch.hidden);
  });

  it("keeps PEFT's fp32 adapters, where the pinned TRL casts them to bf16", () => {
    const base = est({ ...QLORA, batch: 4 }).perGpu.breakdown;
    const kept = est({ ...QLORA, batch: 4 }, { kbitFp32Stream: true }).perGpu.breakdown;
    // Rank 16 on q, k, v, o: A (r x in) and B (out x r) of each linear, in every layer.
    const g = arch.groups[0]!;
    const q = g.heads * g.headDim;
    const kv = g.kvHeads * g.headDim;
    const inOut = [arch.hidden + q, arch.hidden + kv, arch.hidden + kv, q + arch.hidden];
    const elements = layers * 16 * inOut.reduce((a, b) => a + b, 0);
    expect(base.adapters).toBe(2 * elements);
    expect(kept.adapters).toBe(4 * elements);
  });
});

describe('the final norm', () => {
  it('saves its fp32 input under an eager fp32 RMSNorm, beside the output the loss reads', () => {
    const r = est({ ...QLORA, method: 'lora', batch: 1, checkpointing: 'full' });
    const layers = arch.groups.reduce((a, g) => a + g.count, 0);
    // checkpointed layer inputs (bf16) + the final norm's bf16 output and fp32 input.
    expect(phase(r, 'forward').parts.activations).toBe((2 * layers + 2 + 4) * arch.hidden * 4096);
  });
});
