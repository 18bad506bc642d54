/**
 * Activation checkpointing wraps each decoder layer, never the output layer or the loss: transformers'
 * GradientCheckpointingLayer (huggingface/transformers@00029cfa src/transformers/modeling_layers.py) and LlamaModel's
 * checkpointed loop over `self.layers`, with `self.lm_head` and the loss after it in LlamaForCausalLM.forward
 * (@00222783 src/transformers/models/llama/modeling_llama.py); torchtitan v0.2.2 apply_ac over the children of
 * `model.layers`; torchtune v0.6.1 `set_activation_checkpointing(auto_wrap_policy={TransformerSelfAttentionLayer})`;
 * litgpt v0.5.13 `activation_checkpointing_policy={Block}`. So the recompute re-runs neither the lm_head GEMM nor the
 * loss's logit traffic (TrainWork.headFwdFlops, TrainWork.lossElemBytes).
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
import { defaultTimeOptions } from '../../src/schema/time.js';
import { generatedArchArb, isValid, labelled, optionsArb } from '../helpers/arbitraries.js';
import { stepPhases } from '../helpers/train-phases.js';

const FORWARD = TRAIN_PHASES.indexOf('forward');
const RECOMPUTE = TRAIN_PHASES.indexOf('recompute');

const h100 = gpuRates(findGpu('h100-sxm')!, defaultTimeOptions(1));

/** The step's phases (seconds) for a work record on `r`. */
const phasesOf = (w: TrainWork, r = h100): Float64Array => stepPhases(w, r);

/** The same work with no output layer and no loss: what the checkpointed layers alone run. */
const layersOnly = (w: TrainWork): TrainWork => ({
  ...w,
  fwdGemmFlops: w.fwdGemmFlops - w.headFwdFlops,
  fwdElemBytes: w.fwdElemBytes - w.lossElemBytes,
  headFwdFlops: 0,
  lossElemBytes: 0,
  lossBwdBytes: 0,
});

const qwen06 = modelFacts(resolveModel('Qwen/Qwen3-0.6B'));

const qwenRun = (flags: Record<string, unknown>) =>
  optionsFromFlags({
    method: 'full',
    weights: 'bf16',
    batch: 1,
    seq: 8192,
    gpus: 1,
    gpu: 'h100-sxm',
    framework: 'hf',
    attention: 'flash',
    checkpointing: 'full',
    ...flags,
  });

describe('the recompute leaves out the output layer and the loss', () => {
  it("counts the lm_head's forward FLOPs and the loss's logit bytes apart, inside the forward's totals", () => {
    const w = trainWork(qwen06, qwenRun({}), defaultTimeOptions(1));
    // Qwen3-0.6B: vocabulary 151,936 x hidden 1,024; 8,192 tokens; the eager loss's 22 B an entry in forward
    // (the upcast's 6, log-softmax's 16: time/loss-bytes.ts).
    expect(w.headFwdFlops).toBeCloseTo(2 * 8192 * 151936 * 1024, -6);
    expect(w.lossElemBytes).toBeCloseTo(8192 * 151936 * 22, -3);
    expect(w.fwdGemmFlops).toBeGreaterThan(w.headFwdFlops);
    expect(w.fwdElemBytes).toBeGreaterThan(w.lossElemBytes);
  });

  it('full checkpointing re-runs the layers alone: the forward less the head and the loss', () => {
    const w = trainWork(qwen06, qwenRun({}), defaultTimeOptions(1));
    const p = phasesOf(w);
    const layers = phasesOf(layersOnly(w));
    expect(p[RECOMPUTE]!).toBeCloseTo(layers[FORWARD]!, 9);
    // The loss's bytes alone (4.98 GB at the H100's rate) put the forward ahead of the recompute.
    expect(p[FORWARD]! - p[RECOMPUTE]!).toBeGreaterThan(w.lossElemBytes / h100.mem);
  });

  it("torchtitan's selective policy recomputes the layers' share, not the head's GEMM nor the loss", () => {
    const o = qwenRun({ framework: 'torchtitan', checkpointing: 'selective', zero: 3 });
    const w = trainWork(qwen06, o, defaultTimeOptions(1));
    expect(w.recomputeAttnOnly).toBe(true);
    expect(w.selElem).toBe(1);
    expect(phasesOf(w)[RECOMPUTE]!).toBeCloseTo(phasesOf(layersOnly(w))[RECOMPUTE]!, 9);
  });

  it('offloaded checkpoints (Unsloth) re-run the layers alone as well', () => {
    const o = qwenRun({ framework: 'unsloth', method: 'lora', checkpointing: 'offload' });
    const w = trainWork(qwen06, o, defaultTimeOptions(1));
    expect(w.recompute).toBe(1);
    const p = phasesOf(w);
    expect(p[RECOMPUTE]!).toBeCloseTo(phasesOf(layersOnly(w))[FORWARD]!, 9);
    expect(p[RECOMPUTE]!).toBeLessThan(p[FORWARD]!);
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
  extra: fc.double({ min: 1e6, max: 1e12, noNaN: true }),
});

const stepOf = (arch: Arch, o: EstimateOptions, gi: number) => {
  const t = defaultTimeOptions(o.gpus);
  const w = trainWork(modelFacts(servedArch(arch, o)), o, t);
  const r = gpuRates(gpus[gi]!, t);
  return { w, r, step: trainStep(w, r, new Float64Array(TRAIN_PHASES.length)) };
};

describe('checkpointing and the loss (properties)', () => {
  // Full and offloaded checkpointing: selective's attention-only recompute spreads bitsandbytes' 4-bit host dispatch
  // over a third pass (train-step.ts exposedBnb4Host), a mechanism apart from the loss's.
  it('full or offloaded checkpointing never lowers the step time', () => {
    fc.assert(
      fc.property(caseArb, ({ arch, o, gi }) => {
        const none: EstimateOptions = { ...o, checkpointing: 'none' };
        if (!isValid(none)) return;
        for (const checkpointing of ['full', 'offload'] as const) {
          const ck: EstimateOptions = { ...o, checkpointing };
          if (!isValid(ck)) continue;
          const base = stepOf(arch, none, gi).step;
          expect(stepOf(arch, ck, gi).step, checkpointing).toBeGreaterThanOrEqual(
            base * (1 - 1e-9),
          );
        }
      }),
      { numRuns: RUNS },
    );
  });

  it("the recompute's bytes never include the loss: more logit traffic moves the forward, not the recompute", () => {
    fc.assert(
      fc.property(caseArb, ({ arch, o, gi, extra }) => {
        if (o.checkpointing === 'none' || !isValid(o)) return;
        const { w, r } = stepOf(arch, o, gi);
        const more = {
          ...w,
          fwdElemBytes: w.fwdElemBytes + extra,
          lossElemBytes: w.lossElemBytes + extra,
        };
        const p = phasesOf(w, r);
        const q = phasesOf(more, r);
        const near = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(a, b);
        expect(near(q[RECOMPUTE]!, p[RECOMPUTE]!), `${q[RECOMPUTE]} vs ${p[RECOMPUTE]}`).toBe(true);
        expect(q[FORWARD]!).toBeGreaterThanOrEqual(p[FORWARD]!);
        const layers = phasesOf(layersOnly(w), r)[RECOMPUTE]!;
        expect(near(p[RECOMPUTE]!, layers), `${p[RECOMPUTE]} vs ${layers}`).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });
});
