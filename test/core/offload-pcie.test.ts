/**
 * Parameter offload and ZeRO-3 gathers priced by what runs: DeepSpeed's offloaded partitions reach the GPU by a
 * blocking copy on the thread that issues the compute (FrameworkProfile.zeroHooks.blockingParamCopies), pageable
 * partitions copy at a share of the pinned rate (TimeOptions.pageableOffload), and so do gradients copied into pageable
 * host buffers (TimeOptions.pageableGradOffload). Properties over generated plans: a
 * modelled offload is never faster than the same plan with the weights resident, pageable copies never beat pinned
 * ones, blocking copies never beat asynchronous ones, and more gathers or more bytes copied never make a step faster.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildEstimate } from '../../src/core/estimate.js';
import { modelFacts } from '../../src/core/time/model-facts.js';
import { gpuRates } from '../../src/core/time/hardware.js';
import { PAGEABLE_COPY_SHARE } from '../../src/core/time/offload-work.js';
import { trainWork } from '../../src/core/time/train-work.js';
import { trainStep } from '../../src/core/time/train-step.js';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { defaultTimeOptions, type TimeOptions } from '../../src/schema/time.js';
import { generatedArchArb, isValid, optionsArb, withDiffString } from '../helpers/arbitraries.js';

const RUNS = Number(process.env.VRAMPLAN_FC_RUNS ?? 60);
const SEED = Number(process.env.VRAMPLAN_FC_SEED ?? 20261205);
const gpus = ['t4', 'rtx-4090', 'a100-40gb-sxm', 'h100-sxm', 'l40s'].map((id) => findGpu(id));

describe('parameter offload against resident weights (properties)', () => {
  it('a DeepSpeed or FSDP offload, pinned or pageable, is never faster than the weights resident', () => {
    fc.assert(
      fc.property(
        generatedArchArb({ maxLayers: 32, maxHeads: 32 }),
        optionsArb({ methods: ['full', 'lora'], maxDp: 8, maxSeq: 4096 }),
        fc.constantFrom('deepspeed' as const, 'hf' as const),
        fc.constantFrom(...gpus),
        fc.integer({ min: 1, max: 8 }),
        fc.boolean(),
        fc.boolean(),
        (arch, o, framework, gpu, accum, pageable, pageableGrads) => {
          const off = withDiffString({ ...o, framework, zero: 3, offload: 'optimizer+params' });
          const resident = withDiffString({ ...off, offload: 'optimizer' });
          fc.pre(isValid(off) && isValid(resident));
          const t: TimeOptions = { ...defaultTimeOptions(off.gpus), gradAccum: accum };
          const pinned = buildEstimate(arch, off, gpu, t).time!.stepSeconds;
          const paged = buildEstimate(arch, off, gpu, {
            ...t,
            pageableOffload: pageable,
            pageableGradOffload: pageableGrads,
          }).time!;
          const base = buildEstimate(arch, resident, gpu, t).time!.stepSeconds;
          expect(pinned).toBeGreaterThanOrEqual(base);
          expect(paged.stepSeconds).toBeGreaterThanOrEqual(pinned);
        },
      ),
      { numRuns: RUNS, seed: SEED },
    );
  });
});

describe('a ZeRO-3 step with more to fetch (properties)', () => {
  const models = ['tinyllama-1.1b', 'llama-3.1-8b', 'qwen2.5-7b', 'mixtral-8x7b'].map((id) =>
    resolveModel(id),
  );
  const caseArb = fc.record({
    model: fc.constantFrom(...models),
    gpu: fc.constantFrom(...gpus),
    framework: fc.constantFrom('hf-deepspeed', 'hf-fsdp'),
    method: fc.constantFrom('full', 'lora'),
    gpus: fc.constantFrom(2, 8, 16),
    batch: fc.constantFrom(1, 4),
    seq: fc.constantFrom(512, 4096),
    checkpointing: fc.constantFrom('none', 'full'),
    offload: fc.constantFrom('optimizer', 'optimizer+params'),
    accum: fc.constantFrom(1, 8),
    more: fc.double({ min: 1, max: 20, noNaN: true }),
  });

  it('more gathers, more bytes copied, a slower copy or a blocking one never shorten the step', () => {
    fc.assert(
      fc.property(caseArb, (c) => {
        const o = optionsFromFlags({
          framework: c.framework,
          method: c.method,
          zero: 3,
          offload: c.offload,
          gpus: c.gpus,
          batch: c.batch,
          seq: c.seq,
          checkpointing: c.checkpointing,
          attention: 'flash',
        });
        const t: TimeOptions = {
          ...defaultTimeOptions(c.gpus),
          gradAccum: c.accum,
          gpusPerNode: 8,
        };
        const w = trainWork(modelFacts(c.model), o, t);
        const r = gpuRates(c.gpu, t);
        const step = trainStep(w, r);
        const variants = [
          { zeroGathers: w.zeroGathers * c.more + 1 },
          { gatherBytes: w.gatherBytes * c.more, gatherPassBytes: w.gatherPassBytes * c.more },
          { offloadParamPassBytes: w.offloadParamPassBytes * c.more },
          { offloadCopyShare: w.offloadCopyShare / c.more },
          { offloadGradCopyShare: w.offloadGradCopyShare / c.more },
          { offloadCopyBlocks: true },
        ];
        for (const v of variants) expect(trainStep({ ...w, ...v }, r)).toBeGreaterThanOrEqual(step);
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });

  it('copies gradients into pageable host buffers at the pageable share, slower than into pinned ones', () => {
    // ZeRO-3 full fine-tune of an 8B model on one GPU with the optimizer offloaded: each micro-batch's 16 GB of
    // gradients to the host outlast its short backward, so their rate sets the step.
    const o = optionsFromFlags({
      framework: 'hf-deepspeed',
      method: 'full',
      zero: 3,
      offload: 'optimizer',
      gpus: 1,
      batch: 1,
      seq: 512,
      checkpointing: 'full',
      attention: 'flash',
    });
    const t: TimeOptions = { ...defaultTimeOptions(1), gradAccum: 4 };
    const m = modelFacts(resolveModel('llama-3.1-8b'));
    const pinned = trainWork(m, o, t);
    const paged = trainWork(m, o, { ...t, pageableGradOffload: true });
    expect(pinned.offloadGradCopyShare).toBe(1);
    expect(paged.offloadGradCopyShare).toBe(PAGEABLE_COPY_SHARE);
    const r = gpuRates(findGpu('a100-80gb-sxm'), t);
    const grad = pinned.offloadGradBytes / r.host;
    expect(grad).toBeGreaterThan(0);
    // The copy outlasts backward pinned, so the pageable copy adds its whole extra time each micro-batch.
    const extra = pinned.microBatches * grad * (1 / PAGEABLE_COPY_SHARE - 1);
    expect(trainStep(paged, r) - trainStep(pinned, r)).toBeCloseTo(extra, 6);
    // Parameter copies keep their own share.
    expect(paged.offloadCopyShare).toBe(1);
  });

  it('marks only DeepSpeed as copying its offloaded partitions with a blocking copy', () => {
    expect(FRAMEWORKS.deepspeed.zeroHooks?.blockingParamCopies).toBe(true);
    for (const fw of Object.values(FRAMEWORKS))
      if (fw.id !== 'deepspeed') expect(fw.zeroHooks?.blockingParamCopies).toBeUndefined();
  });
});
