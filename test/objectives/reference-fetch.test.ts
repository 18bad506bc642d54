/**
 * A reference forward (DPO, KTO: TRL runs it each step through the policy's own modules with the adapters disabled, or
 * through a copy wrapped as the policy is) fetches the parameters as the policy's forward does: under ZeRO-3 it
 * gathers every unit again and under parameter offload it copies every shard to the device again. A pass cannot end
 * before its parameters arrive, so a DPO step under either is at least the SFT step of its policy plus the longer of
 * the reference's forward and one more parameter pass.
 */
import { describe, expect, it } from 'vitest';
import { paramCounts } from '../../src/core/model/params.js';
import { policyOptions } from '../../src/core/memory/objective.js';
import { dataParallelLink } from '../../src/core/time/train-step.js';
import { estimateObjectiveTime } from '../../src/core/time/objective.js';
import { estimateTime, gpuRates, modelFacts, trainWork } from '../../src/core/time/index.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags, type RawFlags } from '../../src/schema/flags.js';
import { timeOptionsFromFlags } from '../../src/schema/time.js';

const arch = resolveModel('llama-3.1-8b');
const gpu = findGpu('rtx-4090');

function dpoStep(flags: RawFlags) {
  const f: RawFlags = {
    model: 'llama-3.1-8b',
    gpu: 'rtx-4090',
    method: 'lora',
    objective: 'dpo',
    framework: 'hf-deepspeed',
    batch: 1,
    seq: 1024,
    'grad-accum': 4,
    ...flags,
  };
  const o = optionsFromFlags(f);
  const t = timeOptionsFromFlags(f, o);
  const p = policyOptions(o);
  const dpo = estimateObjectiveTime(arch, o, gpu, t, paramCounts(arch).total);
  const sft = estimateTime(arch, p, gpu, t);
  const w = trainWork(modelFacts(arch), p, t);
  const r = gpuRates(gpu, t);
  const forward = sft.phases.find((x) => x.phase === 'forward')!.seconds;
  return { dpo, sft, w, r, forward };
}

describe('the reference forward under ZeRO-3 and parameter offload', () => {
  it('parameter offload: one more host-to-device copy of every shard per micro-batch', () => {
    const { dpo, sft, w, r, forward } = dpoStep({ zero: 3, offload: 'optimizer+params' });
    expect(w.offloadParamPassBytes).toBeGreaterThan(0);
    const pass = (w.microBatches * w.offloadParamPassBytes) / r.host;
    const ref = Math.max(forward, pass);
    expect(pass).toBeGreaterThan(forward);
    expect(dpo.objectivePhases.referenceLogprobs).toBeGreaterThanOrEqual(0.999 * ref);
    expect(dpo.stepSeconds).toBeGreaterThanOrEqual(0.999 * (sft.stepSeconds + ref));
  });

  it('ZeRO-3 across GPUs: one more all-gather of the weights per micro-batch', () => {
    const { dpo, sft, w, r, forward } = dpoStep({ zero: 3, gpus: 2 });
    expect(w.gatherPassBytes).toBeGreaterThan(0);
    const pass = (w.microBatches * w.gatherPassBytes) / dataParallelLink(w, r).link;
    const ref = Math.max(forward, pass);
    expect(pass).toBeGreaterThan(forward);
    expect(dpo.objectivePhases.referenceLogprobs).toBeGreaterThanOrEqual(0.999 * ref);
    expect(dpo.stepSeconds).toBeGreaterThanOrEqual(0.999 * (sft.stepSeconds + ref));
  });

  it('nothing sharded or offloaded: the reference costs its forward alone', () => {
    const { dpo, forward } = dpoStep({ zero: 0 });
    expect(dpo.objectivePhases.referenceLogprobs).toBeCloseTo(forward, 3);
  });

  it('a precomputed reference fetches nothing during training', () => {
    const { dpo } = dpoStep({ zero: 3, offload: 'optimizer+params', reference: 'precomputed' });
    expect(dpo.objectivePhases.referenceLogprobs).toBe(0);
  });
});
