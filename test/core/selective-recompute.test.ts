// What `--checkpointing selective` re-runs in backward: the engine profile's shares (FrameworkProfile.selectiveRecompute).
import { describe, expect, it } from 'vitest';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { defaultTimeOptions, estimateTime } from '../../src/core/time/index.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';

const gpu = findGpu('a100-80gb-sxm');
const arch = resolveModel('llama-3.1-8b');
const t = defaultTimeOptions(1);
const flags = { framework: 'torchtitan', weights: 'fp32', zero: 3, batch: 1, seq: 8192 };
const phase = (checkpointing: string, name: string): number => {
  const o = optionsFromFlags({ ...flags, checkpointing });
  return estimateTime(arch, o, gpu, t).phases.find((p) => p.phase === name)?.seconds ?? 0;
};

describe("torchtitan's SelectiveAC op policy", () => {
  it('profile: every other mm and the elementwise ops re-run, attention saved', () => {
    expect(FRAMEWORKS.torchtitan.selectiveRecompute).toEqual({
      attention: 0,
      gemm: 0.5,
      elementwise: 1,
    });
  });

  // The attention core alone (Korthikanti's selective) is 15% of this forward on an A100 at 8,192 tokens; half the GEMMs
  // and every elementwise pass are 48% of it.
  it('re-runs about half the forward, not its attention alone', () => {
    const full = phase('full', 'recompute');
    const selective = phase('selective', 'recompute');
    // Full checkpointing re-runs the decoder layers, not the output layer's GEMM nor the loss (docs/time-model.md "The
    // recompute leaves out the output layer and the loss"): Llama-3.1-8B's 128,256 x 4,096 head and its loss are 7% of
    // this forward.
    const forward = phase('full', 'forward');
    expect(full).toBeLessThan(forward);
    expect(full).toBeGreaterThan(0.9 * forward);
    expect(selective).toBeGreaterThan(0.35 * full);
    expect(selective).toBeLessThan(0.75 * full);
    expect(phase('none', 'recompute')).toBe(0);
  });
});
