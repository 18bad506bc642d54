// torchtitan's gradient-norm clip: the launched recipe writes training.max_norm, and torchtitan's trainer calls
// dist_utils.clip_grad_norm_ every step (pytorch/torchtitan@b5bcd76c torchtitan/trainer.py L919-L925): a _foreach_norm
// read of each local gradient shard, the DTensor norm's all-reduce over each sharded mesh dimension (one more over PP),
// and a _foreach_mul_ of every gradient (torchtitan/distributed/utils.py clip_grad_norm_). The time model prices the
// bytes in the optimizer phase (time/optimizer-step.ts gradClipBytes) and the all-reduces' latency
// (gradClipAllReduces).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import '../../src/core/engines/registry.js';
import { buildEstimate } from '../../src/core/estimate.js';
import { TORCHTITAN_FILE, emitTorchtitan } from '../../src/core/engines/torchtitan/launch.js';
import { parseTorchtitanRecipe } from '../../src/core/engines/torchtitan/from.js';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import {
  gradClipAllReduces,
  gradClipBytes,
  optimizerStepBytes,
} from '../../src/core/time/optimizer-step.js';
import { ALLREDUCE_LATENCY_NVLINK } from '../../src/core/time/nccl-ring.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { defaultTimeOptions } from '../../src/schema/time.js';
import { launchInputOf } from '../helpers/launch.js';

const BASE = { framework: 'torchtitan', method: 'full', weights: 'fp32', zero: 3 };
const optimizerSeconds = (phases: { phase: string; seconds: number }[]): number =>
  phases.find((p) => p.phase === 'optimizer')!.seconds;

describe("torchtitan's gradient-norm clip", () => {
  const x = launchInputOf('llama-3.1-8b', 'h100-sxm', { ...BASE, gpus: 8 });

  it('the launched recipe sets max_norm, and the profile clips as torch clip_grad_norm_ does', () => {
    const out = emitTorchtitan(x);
    if (!out.ok) throw new Error(out.reason);
    const doc = parseTorchtitanRecipe(out.files.find((f) => f.path === TORCHTITAN_FILE)!.content);
    const config = (doc.torchtitan_recipe as { config: Record<string, Record<string, unknown>> })
      .config;
    expect(config.training!.max_norm).toBeGreaterThan(0);
    const clip = FRAMEWORKS.torchtitan.gradClip!;
    expect(clip).toMatchObject({ normRead: 'stepped', normCopyBytes: 0, scalePasses: 2 });
    expect(clip.normAllReduce).toBe(true);
  });

  it('the fp32 gradient shard: read for the norm, read and written to scale (12 B a parameter)', () => {
    const t = defaultTimeOptions(8);
    expect(gradClipBytes(x.options, t)).toBe(3 * 4);
    expect(gradClipBytes(x.options, { ...t, noGradClip: true })).toBe(0);
  });

  it('one norm all-reduce per sharded mesh dimension, one more over PP, none on one GPU', () => {
    const t = defaultTimeOptions(8);
    const o = x.options;
    expect(gradClipAllReduces(o, t, { zeroRanks: 8, tp: 1, pp: 1 })).toBe(1);
    expect(gradClipAllReduces(o, t, { zeroRanks: 4, tp: 2, pp: 1 })).toBe(2);
    expect(gradClipAllReduces(o, t, { zeroRanks: 2, tp: 2, pp: 2 })).toBe(3);
    expect(gradClipAllReduces(o, t, { zeroRanks: 1, tp: 1, pp: 1 })).toBe(0);
    expect(gradClipAllReduces(o, { ...t, noGradClip: true }, { zeroRanks: 8, tp: 1, pp: 1 })).toBe(
      0,
    );
    // The HF Trainer's clip is priced by its bytes alone (no normAllReduce on its profile).
    expect(gradClipAllReduces({ ...o, framework: 'hf' }, t, { zeroRanks: 8, tp: 1, pp: 1 })).toBe(
      0,
    );
  });

  it("the step's optimizer phase carries the clip's bytes and its norm all-reduce", () => {
    const o = x.options;
    const t = defaultTimeOptions(o.gpus);
    const step = optimizerStepBytes(o, t);
    const clip = gradClipBytes(o, t);
    const arch = resolveModel('llama-3.1-8b');
    const gpu = findGpu('h100-sxm')!;
    const clipped = buildEstimate(arch, o, gpu, t).time!;
    const unclipped = buildEstimate(arch, o, gpu, { ...t, noGradClip: true }).time!;
    expect(clipped.stepSeconds).toBeGreaterThan(unclipped.stepSeconds);
    const bytesOnly = (optimizerSeconds(unclipped.phases) * (step + clip)) / step;
    // The optimizer phase: the clip's bytes at the step's own rate, plus one NVLink all-reduce's latency.
    expect(optimizerSeconds(clipped.phases) - bytesOnly).toBeGreaterThan(
      ALLREDUCE_LATENCY_NVLINK * 0.5,
    );
    expect(optimizerSeconds(clipped.phases) - bytesOnly).toBeLessThan(ALLREDUCE_LATENCY_NVLINK * 2);
  });

  it('never shortens a step: a run that clipped nothing times no slower, at any batch, length and GPU count', () => {
    const arch = resolveModel('llama-3.2-3b');
    const gpu = findGpu('h100-sxm')!;
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 256, max: 8192 }),
        fc.constantFrom(1, 2, 8),
        (batch, seq, gpus) => {
          const o = {
            ...launchInputOf('llama-3.2-3b', 'h100-sxm', { ...BASE, gpus }).options,
            batch,
            seq,
          };
          const t = defaultTimeOptions(gpus);
          const clipped = buildEstimate(arch, o, gpu, t).time!.stepSeconds;
          const unclipped = buildEstimate(arch, o, gpu, { ...t, noGradClip: true }).time!
            .stepSeconds;
          expect(unclipped).toBeLessThan(clipped);
        },
      ),
      { numRuns: 12 },
    );
  });
});
