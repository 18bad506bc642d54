// Unsloth's gradient-norm clip: the launcher's SFTConfig writes max_grad_norm, and Unsloth trains through TRL's
// trainers over transformers' Trainer, whose inner loop (re-executed by Unsloth with its banner: unsloth 015bdef0
// models/llama.py) calls accelerator.clip_grad_norm_ when max_grad_norm > 0. The time model prices that clip in the
// optimizer phase (FrameworkProfile.gradClip, time/optimizer-step.ts gradClipBytes) as it does for the HF Trainer.
import { describe, expect, it } from 'vitest';
import '../../src/core/engines/registry.js';
import { buildEstimate } from '../../src/core/estimate.js';
import { emitUnsloth } from '../../src/core/engines/unsloth/launch.js';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { gradClipBytes, optimizerStepBytes } from '../../src/core/time/optimizer-step.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { defaultTimeOptions } from '../../src/schema/time.js';
import { launchInputOf } from '../helpers/launch.js';

const optimizerSeconds = (phases: { phase: string; seconds: number }[]): number =>
  phases.find((p) => p.phase === 'optimizer')!.seconds;

describe("Unsloth's gradient-norm clip", () => {
  const x = launchInputOf('llama-3.1-8b', 'a100-80gb', { framework: 'unsloth', method: 'qlora' });

  it('the launched SFTConfig clips (max_grad_norm > 0), and the profile prices the clip as the HF Trainer does', () => {
    const out = emitUnsloth(x);
    if (!out.ok) throw new Error(out.reason);
    const args = JSON.parse(out.files.find((f) => f.path === 'unsloth-args.json')!.content) as {
      sft_config: { max_grad_norm: number };
    };
    expect(args.sft_config.max_grad_norm).toBeGreaterThan(0);
    expect(FRAMEWORKS.unsloth.gradClip).toEqual(FRAMEWORKS.hf.gradClip);
  });

  it("the step's optimizer phase carries the clip: a norm read, and a read and a write to scale", () => {
    const o = x.options;
    const t = defaultTimeOptions(o.gpus);
    const step = optimizerStepBytes(o, t);
    const clip = gradClipBytes(o, t);
    expect(clip).toBeGreaterThan(0);
    const arch = resolveModel('llama-3.1-8b');
    const gpu = findGpu('a100-80gb')!;
    const clipped = buildEstimate(arch, o, gpu);
    const unclipped = buildEstimate(arch, o, gpu, { ...t, noGradClip: true });
    expect(clipped.time!.stepSeconds).toBeGreaterThan(unclipped.time!.stepSeconds);
    // The optimizer phase moves the step's bytes and the clip's (phases carry four significant digits).
    expect(
      optimizerSeconds(clipped.time!.phases) / optimizerSeconds(unclipped.time!.phases),
    ).toBeCloseTo((step + clip) / step, 2);
  });
});
