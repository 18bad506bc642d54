/**
 * A dense MoE block whose experts run as per-expert linears one after another (TimeOptions.denseMoeLoop, set by
 * `validate --throughput` for rows whose `moe_dispatch` is 'dense-loop': axolotl's linearized Llama-4 experts):
 * the forward writes a zeroed output and copies each expert's slice into it, and the backward builds each expert's
 * gradients at the size of the whole block (CopySlices, select_backward and their accumulation).
 */
import { describe, expect, it } from 'vitest';
import { modelFacts, trainStep, trainWork, gpuRates } from '../../src/core/time/index.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

const h100 = findGpu('h100-sxm');
const qlora = optionsFromFlags({
  method: 'qlora',
  'lora-targets': 'q,k,v,o',
  batch: 1,
  seq: 4096,
  checkpointing: 'full',
  attention: 'flash',
  framework: 'hf',
});

describe('a dense MoE block run as a per-expert loop (denseMoeLoop)', () => {
  const scout = modelFacts(resolveModel('llama-4-scout-17b-16e'));
  const t = defaultTimeOptions(1);

  it('adds the block-sized gradients to the backward: 6 passes of E x tokens x hidden and 7 of tokens x hidden per expert', () => {
    const base = trainWork(scout, qlora, t);
    const looped = trainWork(scout, qlora, { ...t, denseMoeLoop: true });
    expect(base.moeDispatch).toBe('dense');
    expect(looped.moeDispatch).toBe('dense');
    expect(base.moeLoopBwdBytes).toBe(0);
    const slice = 4096 * scout.hidden;
    const perExpert = 6 * scout.experts * slice + 7 * slice;
    expect(looped.moeLoopBwdBytes).toBeCloseTo(scout.moeLayers * scout.experts * perExpert * 2, -3);
    // The forward's zeroed output and slice copies: 3 more passes of E x hidden per token per MoE layer.
    expect(looped.fwdElemBytes - base.fwdElemBytes).toBeCloseTo(
      3 * scout.experts * scout.hidden * 4096 * scout.moeLayers * 2,
      -3,
    );
    // No per-expert host syncs: the loop has no torch.where.
    expect(looped.moeLoopOps).toBe(0);
    // Against the same step without the loop's traffic (linearized experts are nn.Linear modules bitsandbytes
    // quantizes, where the fused ones of `base` stay fp32: time/float-experts.ts).
    const r = gpuRates(h100, t);
    const noLoop = { ...looped, moeLoopBwdBytes: 0, fwdElemBytes: base.fwdElemBytes };
    expect(trainStep(looped, r)).toBeGreaterThan(trainStep(noLoop, r));
  });

  it('leaves a model with routed (not dense) experts as it was', () => {
    const qwen = modelFacts(resolveModel('qwen3-30b-a3b'));
    // (A GPTQ format, whose experts are quantized either way: the flag also marks bitsandbytes' linearized experts.)
    const g = { ...t, quantFormat: 'gptq' as const };
    expect(trainWork(qwen, qlora, { ...g, denseMoeLoop: true })).toEqual(trainWork(qwen, qlora, g));
  });
});
