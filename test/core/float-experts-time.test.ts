/**
 * Routed experts an engine's quantizer leaves in floating point (profile unquantizedExperts: transformers 5's
 * bitsandbytes integration swaps nn.Linear only) are timed as memory stores them: no dequantization, read at their
 * width (fp32 where the engine runs PEFT's k-bit upcast when training, else and when serving the compute dtype), fp32
 * grouped matmuls through torch._grouped_mm's per-group fallback (time/float-experts.ts). The hf engines' TRL runs no
 * upcast (kbitUpcastsToFp32 false); the fp32 path is checked on a copy of their profile with the flag set.
 */
import { describe, expect, it } from 'vitest';
import '../../src/core/engines/index.js';
import {
  decodeStep,
  gpuRates,
  modelFacts,
  trainStep,
  trainWork,
} from '../../src/core/time/index.js';
import { floatExperts } from '../../src/core/time/float-experts.js';
import { timeOfBuild } from '../../src/core/estimate.js';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { defaultTimeOptions } from '../../src/schema/time.js';
import type { Framework } from '../../src/schema/estimate.js';

const floatFw = Object.entries(FRAMEWORKS).find(([, f]) =>
  f.unquantizedExperts?.includes('nf4'),
) as [Framework, unknown];
const quantFw = Object.entries(FRAMEWORKS).find(
  ([, f]) => !f.unquantizedExperts && f.torchGroupedMm && f.kbitUpcastsToFp32,
);
/** Runs `fn` with the float-experts engine's profile upcasting k-bit models (restored afterwards). */
function withUpcast<T>(fn: () => T): T {
  const id = floatFw[0];
  const saved = FRAMEWORKS[id];
  FRAMEWORKS[id] = { ...saved, kbitUpcastsToFp32: true };
  try {
    return fn();
  } finally {
    FRAMEWORKS[id] = saved;
  }
}
const qlora = (framework: string, extra: Record<string, unknown> = {}) =>
  optionsFromFlags({
    method: 'qlora',
    'lora-rank': 16,
    'lora-targets': 'q,k,v,o',
    batch: 1,
    seq: 2048,
    checkpointing: 'full',
    framework,
    gpu: 'h100-sxm',
    ...extra,
  });

describe('routed experts left unquantized by the quantizer', () => {
  const m = modelFacts(resolveModel('qwen3-30b-a3b'));
  const t = defaultTimeOptions(1);
  const expertElems = m.expertWeightsPerLayer * m.experts * m.moeLayers;

  it('are read at the width the profile trains them at under QLoRA (bf16 on the hf engines), with no dequantization', () => {
    const o = qlora(floatFw[0]);
    const fe = floatExperts(m, o, t)!;
    expect(fe.bytes).toBe(FRAMEWORKS[floatFw[0]].kbitUpcastsToFp32 ? 4 : 2);
    expect(fe.elements).toBe(expertElems);
    const w = trainWork(m, o, t);
    expect(w.expertFp32).toBe(fe.bytes === 4);
    expect(w.groupedMmBf16).toBe(fe.bytes === 2);
  });

  it('are read at fp32 where the engine upcasts, their grouped matmuls fp32 off the grouped kernel', () => {
    const o = qlora(floatFw[0]);
    const [fe, w] = withUpcast(() => [floatExperts(m, o, t)!, trainWork(m, o, t)] as const);
    expect(fe.bytes).toBe(4);
    expect(fe.elements).toBe(expertElems);
    expect(w.expertFp32).toBe(true);
    expect(w.groupedMmBf16).toBe(false);
    expect(w.expertWeightBytes / w.expertsHit).toBeCloseTo(
      (4 * m.expertWeightsPerLayer * m.moeLayers) / o.tp,
      0,
    );
    // Dequantization covers the other linears only: far below what all of them would take.
    const other = m.linearTotal - expertElems;
    expect(w.dequantBytes).toBeLessThan((3 * 2.5 * m.linearTotal) / 2);
    expect(w.dequantBytes).toBeGreaterThan(0);
    expect(other).toBeLessThan(m.linearTotal / 10);
  });

  it('make the QLoRA step slower than timing them as 4-bit weights would at fp32, faster at bf16', () => {
    const o = qlora(floatFw[0]);
    const r = gpuRates(findGpu('h100-sxm')!, t);
    // The same options timed as if bitsandbytes had quantized the experts (a torchao format leaves none).
    const asQuant = trainStep(trainWork(m, o, { ...t, quantFormat: 'torchao' }), r);
    const asFp32 = withUpcast(() => trainStep(trainWork(m, o, t), r));
    expect(asFp32).toBeGreaterThan(asQuant);
    // bf16 experts on an H100: one read of 2 B an element on the grouped kernel, against dequantizing each pass.
    if (!FRAMEWORKS[floatFw[0]].kbitUpcastsToFp32)
      expect(trainStep(trainWork(m, o, t), r)).toBeLessThan(asQuant);
  });

  it('do not apply to a torchao format, to linearized experts, to 16-bit weights nor to an engine that quantizes them', () => {
    expect(floatExperts(m, qlora(floatFw[0]), { ...t, quantFormat: 'torchao' })).toBeNull();
    expect(floatExperts(m, qlora(floatFw[0]), { ...t, denseMoeLoop: true })).toBeNull();
    expect(floatExperts(m, qlora(floatFw[0], { method: 'lora', weights: 'bf16' }), t)).toBeNull();
    if (quantFw) expect(floatExperts(m, qlora(quantFw[0]), t)).toBeNull();
    expect(floatExperts(modelFacts(resolveModel('qwen3-8b')), qlora(floatFw[0]), t)).toBeNull();
  });

  it('do not apply to a transformers 4.x build whose MoE blocks loop over per-expert nn.Linear modules (moeLoop)', () => {
    const o = qlora(floatFw[0]);
    expect(floatExperts(m, o, t)).not.toBeNull();
    expect(floatExperts(m, o, { ...t, moeLoop: true })).toBeNull();
    // Quantized by bitsandbytes there, the looped experts are dequantized like the other linears, not read at fp32.
    const looped = trainWork(m, o, { ...t, moeLoop: true });
    expect(looped.expertFp32).toBe(false);
    expect(looped.dequantBytes).toBeGreaterThan(trainWork(m, o, t).dequantBytes + expertElems);
  });

  it('do not apply where the run quantized the fused stacks at load (quantize_moe_experts): every stack dequantized each pass', () => {
    const o = qlora(floatFw[0]);
    expect(floatExperts(m, o, { ...t, quantizedExperts: true })).toBeNull();
    const stacked = trainWork(m, o, { ...t, quantizedExperts: true });
    expect(stacked.expertFp32).toBe(false);
    // The parametrization dequantizes a layer's whole stack on access, all experts, not the routed ones: the
    // forward, the recompute (full checkpointing) and the backward each add every expert's elements.
    expect(stacked.dequantBytes - trainWork(m, o, t).dequantBytes).toBeGreaterThanOrEqual(
      3 * expertElems,
    );
    // The build context the axolotl reader sets reaches the time options.
    expect(timeOfBuild(t, { quantizedExperts: true }).quantizedExperts).toBe(true);
    expect(timeOfBuild(t, {}).quantizedExperts).toBeUndefined();
  });

  it('are read in the compute dtype when serving 4-bit weights, and at the trained width by a rollout', () => {
    const inf = optionsFromFlags({
      method: 'inference',
      weights: 'nf4',
      batch: 1,
      seq: 512,
      framework: floatFw[0],
      gpu: 'h100-sxm',
    });
    expect(floatExperts(m, inf, t)!.bytes).toBe(2);
    const rollout = { ...t, expertsOf: floatFw[0] };
    expect(floatExperts(m, inf, rollout)!.bytes).toBe(
      FRAMEWORKS[floatFw[0]].kbitUpcastsToFp32 ? 4 : 2,
    );
    expect(withUpcast(() => floatExperts(m, inf, rollout)!.bytes)).toBe(4);
    const r = gpuRates(findGpu('h100-sxm')!, t);
    const float = decodeStep(m, inf, t, r).stepSeconds;
    const quant = decodeStep(m, inf, { ...t, quantFormat: 'torchao' }, r).stepSeconds;
    expect(float).toBeGreaterThan(quant);
  });
});
