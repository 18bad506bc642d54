/**
 * The training loss's logit traffic, forward and backward apart (time/loss-bytes.ts): the eager cross-entropy's
 * kernels as PyTorch runs them (pytorch/pytorch@000cace5 aten/src/ATen/native/cuda/SoftMax.cu: cunn_SoftMaxForward
 * reads a row three times and writes it once, cunn_SoftMaxBackward likewise), transformers' fp32 upcast and its cast
 * back (huggingface/transformers@0114da07 src/transformers/loss/loss_utils.py ForCausalLMLoss), and the shifted
 * logits' contiguous copy of transformers up to 4.48 (huggingface/transformers#35646 pads the labels instead).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import '../../src/core/engines/index.js';
import type { Arch } from '../../src/core/model/index.js';
import {
  gpuRates,
  modelFacts,
  TRAIN_PHASES,
  trainStep,
  trainWork,
  type TrainWork,
} from '../../src/core/time/index.js';
import { servedArch } from '../../src/core/time/model-facts.js';
import { findGpu, loadGpus } from '../../src/io/load-catalog.js';
import { listModels, resolveModel } from '../../src/io/load-model.js';
import type { EstimateOptions } from '../../src/schema/estimate.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { defaultTimeOptions, type TimeOptions } from '../../src/schema/time.js';
import { generatedArchArb, isValid, labelled, optionsArb } from '../helpers/arbitraries.js';
import { stepPhases } from '../helpers/train-phases.js';

const FORWARD = TRAIN_PHASES.indexOf('forward');
const BACKWARD = TRAIN_PHASES.indexOf('backward');
const RECOMPUTE = TRAIN_PHASES.indexOf('recompute');

const h100 = gpuRates(findGpu('h100-sxm')!, defaultTimeOptions(1));
const qwen06 = modelFacts(resolveModel('Qwen/Qwen3-0.6B'));
const TOKENS = 8192;
const LOGITS = TOKENS * qwen06.vocab;

const qwenRun = (flags: Record<string, unknown>) =>
  optionsFromFlags({
    method: 'lora',
    weights: 'bf16',
    batch: 1,
    seq: TOKENS,
    gpus: 1,
    gpu: 'h100-sxm',
    framework: 'hf',
    attention: 'flash',
    checkpointing: 'full',
    ...flags,
  });

const workOf = (flags: Record<string, unknown>, t: Partial<TimeOptions> = {}): TrainWork =>
  trainWork(qwen06, qwenRun(flags), { ...defaultTimeOptions(1), ...t });

/** The step's phases (seconds) for a work record on `r`. */
const phasesOf = (w: TrainWork, r = h100): Float64Array => stepPhases(w, r);

describe("the eager loss's logit traffic, read from its kernels", () => {
  it('forward: the upcast (2 + 4 B) and log-softmax (three reads and a write of fp32); backward: 26 B', () => {
    const w = workOf({});
    expect(w.lossElemBytes / LOGITS).toBeCloseTo(2 + 4 + 4 * 4, 6);
    // nll_loss_backward's zero fill (4), log-softmax's backward (3 x 4 + 4), the cast back to 16 bits (4 + 2).
    expect(w.lossBwdBytes / LOGITS).toBeCloseTo(4 + 16 + 6, 6);
  });

  it('fp32 logits take no upcast and no cast back', () => {
    const w = workOf({ method: 'full', weights: 'fp32', compute: 'fp32' });
    expect(w.lossElemBytes / LOGITS).toBeCloseTo(16, 6);
    expect(w.lossBwdBytes / LOGITS).toBeCloseTo(20, 6);
  });

  it('a build that copies the shifted fp32 logits adds the copy (8 B) and its slice backward (12 B)', () => {
    const plain = workOf({});
    const shifted = workOf({}, { shiftedLogitsCopy: true });
    expect((shifted.lossElemBytes - plain.lossElemBytes) / LOGITS).toBeCloseTo(8, 6);
    expect((shifted.lossBwdBytes - plain.lossBwdBytes) / LOGITS).toBeCloseTo(12, 6);
    expect(shifted.fwdElemBytes - plain.fwdElemBytes).toBeCloseTo(8 * LOGITS, -3);
    const p = phasesOf(plain);
    const q = phasesOf(shifted);
    expect(q[BACKWARD]! - p[BACKWARD]!).toBeCloseTo((12 * LOGITS) / h100.mem, 9);
    expect(q[RECOMPUTE]!).toBeCloseTo(p[RECOMPUTE]!, 12);
  });

  it('a fused loss ignores the shifted copy (it never materialises the fp32 logits)', () => {
    const fused = workOf({ compile: true });
    const shifted = workOf({ compile: true }, { shiftedLogitsCopy: true });
    expect(shifted.lossElemBytes).toBe(fused.lossElemBytes);
    expect(fused.lossBwdBytes).toBeCloseTo(2 * fused.lossElemBytes, 0);
  });

  it("the backward charges the loss's own backward bytes, not twice its forward's", () => {
    const w = workOf({});
    const twice = { ...w, lossBwdBytes: 2 * w.lossElemBytes };
    // 26 B against 44 B a logit: the backward phase is shorter by 18 B a logit at the card's rate.
    const saved = phasesOf(twice)[BACKWARD]! - phasesOf(w)[BACKWARD]!;
    expect(saved).toBeCloseTo((18 * LOGITS) / h100.mem, 9);
  });
});

const catalogArchs: Arch[] = listModels().map((m) =>
  labelled(resolveModel(m.id), `catalog:${m.id}`),
);
const archArb = fc.oneof(
  { weight: 2, arbitrary: generatedArchArb() },
  { weight: 1, arbitrary: fc.constantFrom(...catalogArchs) },
);
const gpus = loadGpus();
const RUNS = Number(process.env.VRAMPLAN_FC_RUNS ?? 100);
const caseArb = fc.record({
  arch: archArb,
  o: optionsArb({ methods: ['full', 'lora', 'qlora'] }),
  gi: fc.integer({ min: 0, max: gpus.length - 1 }),
  more: fc.integer({ min: 1, max: 200_000 }),
  shifted: fc.boolean(),
});

const phasesAt = (arch: Arch, o: EstimateOptions, gi: number, shifted: boolean) => {
  const t: TimeOptions = { ...defaultTimeOptions(o.gpus), shiftedLogitsCopy: shifted };
  const w = trainWork(modelFacts(servedArch(arch, o)), o, t);
  const phases = new Float64Array(TRAIN_PHASES.length);
  const step = trainStep(w, gpuRates(gpus[gi]!, t), phases);
  return { w, step, phases };
};

describe('the loss and the vocabulary (properties)', () => {
  it('a longer vocabulary never shortens a step, and the recompute never carries the loss', () => {
    fc.assert(
      fc.property(caseArb, ({ arch, o, gi, more, shifted }) => {
        if (!isValid(o) || arch.kind === 'encoder') return;
        const longer: Arch = { ...arch, vocab: arch.vocab + more };
        const a = phasesAt(arch, o, gi, shifted);
        const b = phasesAt(longer, o, gi, shifted);
        expect(b.step, `${arch.vocab} -> ${longer.vocab}`).toBeGreaterThanOrEqual(
          a.step * (1 - 1e-9),
        );
        expect(b.w.lossElemBytes).toBeGreaterThan(a.w.lossElemBytes);
        expect(b.w.lossBwdBytes).toBeGreaterThan(a.w.lossBwdBytes);
        if (o.checkpointing !== 'full' && o.checkpointing !== 'offload') return;
        const rec = (x: { phases: Float64Array }) => x.phases[RECOMPUTE]!;
        const near = Math.abs(rec(b) - rec(a)) <= 1e-9 * Math.max(rec(a), rec(b));
        expect(near, `recompute ${rec(a)} -> ${rec(b)}`).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });

  it('the forward and the backward each grow with the shifted copy, the recompute stays', () => {
    fc.assert(
      fc.property(caseArb, ({ arch, o, gi }) => {
        if (!isValid(o) || arch.kind === 'encoder') return;
        const a = phasesAt(arch, o, gi, false);
        const b = phasesAt(arch, o, gi, true);
        expect(b.phases[FORWARD]!).toBeGreaterThanOrEqual(a.phases[FORWARD]! * (1 - 1e-12));
        expect(b.phases[BACKWARD]!).toBeGreaterThanOrEqual(a.phases[BACKWARD]! * (1 - 1e-12));
        expect(b.phases[RECOMPUTE]!).toBeCloseTo(a.phases[RECOMPUTE]!, 12);
      }),
      { numRuns: RUNS },
    );
  });
});
