// One trainable width for memory and time (src/core/memory/trainable-width.ts): for every engine profile, base dtype,
// ZeRO stage and build context, the optimizer step's traffic and the offloaded gradients move the adapters, states
// and stepped parameter in the widths memory counts them in (setupOf's trainBytes, masterPerParam, stateValueBytes).
import { describe, expect, it } from 'vitest';
import { setupOf } from '../../src/core/memory/setup.js';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { OPTIMIZER_PROFILES } from '../../src/core/engines/optimizers.js';
import { zero2WireFactor } from '../../src/core/time/zero2-bucket-reduce.js';
import { isServingFramework } from '../../src/core/time/accuracy.js';
import { modelFacts } from '../../src/core/time/model-facts.js';
import { gradClipBytes, optimizerStepBytes } from '../../src/core/time/optimizer-step.js';
import { trainWork } from '../../src/core/time/train-work.js';
import { resolveModel } from '../../src/io/load-model.js';
import {
  defaultOptions,
  type EstimateOptions,
  type Framework,
  type Method,
} from '../../src/schema/estimate.js';
import { defaultTimeOptions } from '../../src/schema/time.js';
import type { WidthContext } from '../../src/core/memory/trainable-width.js';

const arch = resolveModel('llama-3.2-1b');
const facts = modelFacts(arch);
const t0 = defaultTimeOptions(1);
// torch AdamW's foreach step: 6 passes of the stepped parameter, 14 of the states (time/optimizer-step.ts).
const foreach = (p: number, s: number) => 6 * p + 14 * s;

const CONTEXTS: readonly WidthContext[] = [
  {},
  { kbitFp32Adapters: true },
  { kbitFp32Stream: true },
  { adaptersInWeightDtype: true },
];
const training = (Object.keys(FRAMEWORKS) as Framework[]).filter(
  (f) => !isServingFramework(f) && f !== 'llama.cpp',
);
const cases = training.flatMap((framework) =>
  (['lora', 'qlora', 'full'] as const).flatMap((method: Method) =>
    ([0, 2, 3] as const).flatMap((zero) =>
      CONTEXTS.map((ctx) => ({ framework, method, zero, ctx })),
    ),
  ),
);

/** Memory's widths for one configuration: the trainable element, the stepped parameter, one state value. */
function memoryWidths(o: EstimateOptions, ctx: WidthContext) {
  const s = setupOf(arch, o, ctx);
  return {
    trainable: s.trainBytes,
    stepped: s.masterPerParam > 0 ? s.masterPerParam : s.trainBytes,
    state: s.stateValueBytes,
  };
}

describe('memory and time read one trainable width', () => {
  it('covers every training engine profile', () => {
    expect(training).toEqual(expect.arrayContaining(['hf', 'deepspeed', 'torchtune', 'unsloth']));
  });

  it.each(cases)(
    '$framework $method zero $zero $ctx: optimizer traffic and offloaded gradients',
    ({ framework, method, zero, ctx }) => {
      const o: EstimateOptions = { ...defaultOptions(method), framework, zero };
      const t = { ...t0, ...ctx };
      const mem = memoryWidths(o, ctx);
      // The fused row reads the states' width; the foreach ops the stepped parameter's too.
      expect(optimizerStepBytes(o, t)).toBe(OPTIMIZER_PROFILES.adamw.stepTraffic(mem.state));
      expect(optimizerStepBytes(o, { ...t, adamForeach: true })).toBe(
        foreach(mem.stepped, mem.state),
      );
      // Optimizer-only offload sends each trainable parameter's gradient to the host once a step.
      const onDevice = trainWork(facts, o, t);
      // The optimizer phase's bytes are the step's and the trainer's gradient-norm clip's (gradClipBytes).
      const trainable = onDevice.optimizerBytes / (optimizerStepBytes(o, t) + gradClipBytes(o, t));
      const offloaded = trainWork(facts, { ...o, offload: 'optimizer' }, t);
      expect(offloaded.offloadGradBytes / trainable).toBeCloseTo(mem.trainable, 9);
    },
  );

  it('the build context moves both sides: axolotl-kept fp32 k-bit adapters on the hf profile', () => {
    const o: EstimateOptions = { ...defaultOptions('qlora'), framework: 'hf' };
    expect(memoryWidths(o, {}).trainable).toBe(2);
    expect(memoryWidths(o, { kbitFp32Adapters: true }).trainable).toBe(4);
    expect(optimizerStepBytes(o, { ...t0, kbitFp32Adapters: true })).toBeGreaterThan(
      optimizerStepBytes(o, t0),
    );
  });
});

/** Bytes per trainable element the data-parallel gradient reduce moves on two ranks (its wire share undone). */
function reduceWidth(o: EstimateOptions, ctx: WidthContext): number {
  const t = { ...t0, ...ctx };
  const two = { ...o, gpus: 2 };
  const w = trainWork(facts, two, t);
  const shardOpt = o.zero >= 1 ? 2 : 1;
  const trainable =
    (w.optimizerBytes / (optimizerStepBytes(two, t) + gradClipBytes(two, t))) * shardOpt;
  // DDP's all-reduce moves 2(n-1)/n of the buffer, a reduce-scatter (n-1)/n: on two ranks 1 and 1/2; an engine whose
  // ZeRO-2 all-reduces its buckets moves the all-reduce's (time/zero2-bucket-reduce.ts).
  return w.gradReduceBytes / trainable / (o.zero >= 2 ? 0.5 * zero2WireFactor(two, 2) : 1);
}

describe('the gradient reduce reads the engine reduce dtype', () => {
  const ddp = training.filter((f) => FRAMEWORKS[f].gradReduce?.unsharded !== 'compute');
  it.each(
    ddp.flatMap((framework) =>
      (['lora', 'qlora', 'full'] as const).flatMap((method) =>
        CONTEXTS.map((ctx) => ({ framework, method, ctx })),
      ),
    ),
  )(
    '$framework $method $ctx: DDP buckets take the gradients own width',
    ({ framework, method, ctx }) => {
      const o: EstimateOptions = { ...defaultOptions(method), framework, zero: 0 };
      expect(reduceWidth(o, ctx)).toBeCloseTo(memoryWidths(o, ctx).trainable, 9);
    },
  );

  it('PEFT fp32 adapters under DDP reduce 4 bytes; TRL bf16 k-bit adapters 2', () => {
    expect(reduceWidth({ ...defaultOptions('lora'), framework: 'hf', zero: 0 }, {})).toBe(4);
    expect(reduceWidth({ ...defaultOptions('qlora'), framework: 'hf', zero: 0 }, {})).toBe(2);
  });

  it('DeepSpeed reduces in communication_data_type (the compute dtype) at every stage', () => {
    for (const zero of [1, 2, 3] as const) {
      for (const ctx of CONTEXTS) {
        const o: EstimateOptions = { ...defaultOptions('qlora'), framework: 'deepspeed', zero };
        expect(reduceWidth(o, ctx)).toBeCloseTo(2, 9);
        expect(reduceWidth({ ...o, compute: 'fp32' }, ctx)).toBeCloseTo(4, 9);
      }
    }
  });

  it("Accelerate's FSDP reduces in the mixed-precision dtype, fp32 master weights included", () => {
    const o: EstimateOptions = {
      ...defaultOptions('full'),
      framework: 'hf',
      weights: 'fp32',
      zero: 3,
    };
    expect(reduceWidth(o, {})).toBeCloseTo(2, 9);
    expect(reduceWidth({ ...o, zero: 0 }, {})).toBeCloseTo(4, 9);
    expect(reduceWidth({ ...defaultOptions('lora'), framework: 'hf', zero: 3 }, {})).toBeCloseTo(
      2,
      9,
    );
  });
});
