// The 1F1B pipeline bubble (Narayanan et al. SC'21 §2.2, https://arxiv.org/abs/2104.04473): the pipeline idles for
// (p-1)·(t_f + t_b), t_f and t_b one micro-batch's forward and backward on one stage; as a share of the ideal time
// m·(t_f + t_b) that is (p-1)/m.
import { describe, expect, it } from 'vitest';
import { estimateTime, gpuRates, modelFacts, trainWork } from '../../src/core/time/index.js';
import { resolveModel } from '../../src/io/load-model.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { defaultOptions } from '../../src/schema/estimate.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

const arch = resolveModel('llama-3.1-8b');
const gpu = findGpu('h100-sxm');

// fsdp2: false isolates the formula over the passes; FSDP2's copies on the compute stream join a stage's time (below).
function inputs(pp: number, gradAccum: number, fsdp2 = false) {
  const o = {
    ...defaultOptions('full'),
    framework: 'torchtitan' as const,
    gpus: 8,
    zero: 3 as const,
    pp,
    batch: 1,
    seq: 8192,
  };
  return { o, t: { ...defaultTimeOptions(8), gradAccum, fsdp2 } };
}

function phases(pp: number, gradAccum: number, fsdp2 = false): Map<string, number> {
  const { o, t } = inputs(pp, gradAccum, fsdp2);
  return new Map(estimateTime(arch, o, gpu, t).phases.map((p) => [p.phase, p.seconds]));
}

describe('pipeline bubble', () => {
  it("is (p-1) of one micro-batch's stage time: (p-1)/m of the step's forward and backward", () => {
    for (const [pp, m] of [
      [4, 64],
      [2, 32],
      [4, 8],
    ] as const) {
      const ph = phases(pp, m);
      const passes = ph.get('forward')! + ph.get('backward')!;
      expect(ph.get('pipeline-bubble')! / passes).toBeCloseTo((pp - 1) / m, 3);
    }
  });

  it('shrinks with more micro-batches per step, as the bubble share does', () => {
    const share = (m: number) => {
      const ph = phases(4, m);
      return ph.get('pipeline-bubble')! / (ph.get('forward')! + ph.get('backward')!);
    };
    expect(share(64)).toBeLessThan(share(16));
    expect(share(16) / share(64)).toBeCloseTo(4, 2);
  });

  it("counts FSDP2's copies of one micro-batch (compute-stream work) in the stage time it idles for", () => {
    const [pp, m] = [4, 16];
    const plain = phases(pp, m, false);
    const fsdp2 = phases(pp, m, true);
    const added = (phase: string) => fsdp2.get(phase)! - plain.get(phase)!;
    // The copies from the work itself: FSDP1's gradient division passes (not compute-stream work) leave the reduce
    // phase with FSDP2, which divides inside NCCL (time/fsdp-grad-divide.ts), so phase differences no longer isolate them.
    const { o, t } = inputs(pp, m, true);
    const w = trainWork(modelFacts(arch), o, t);
    const copiesPerMicro = (w.fsdpCopyGatherBytes + w.fsdpCopyReduceBytes) / gpuRates(gpu, t).mem;
    expect(copiesPerMicro).toBeGreaterThan(0);
    // Phases print four significant digits.
    expect(added('pipeline-bubble')).toBeCloseTo((pp - 1) * copiesPerMicro, 4);
  });
});
