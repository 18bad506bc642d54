/**
 * What transformers' per-expert MoE loop dispatches per expert, counted on transformers' own sparse MoE blocks
 * (scripts/measure/moe_loop_ops.py, calibration/measured/hf-moe-loop-ops-cpu.json; docs/time-model.md
 * "transformers' per-expert loop by version"): the loop's forward count the model prices is the count at the
 * versions the HF-stack MoE rows pin (4.40-4.51), and the count the loop adds in backward is at least what the
 * model's backward dispatch assumes.
 */
import { describe, expect, it } from 'vitest';
import { MOE_LOOP_OPS_PER_EXPERT } from '../../src/core/time/train-work.js';
import { readMeasured } from '../helpers/measured.js';

interface PerExpert {
  dispatched: number;
  kernels: number;
  syncs: number;
  autograd_nodes?: number;
}
interface Run {
  transformers: string;
  model: 'qwen3_moe' | 'mixtral';
  forward_per_expert: PerExpert;
  backward_per_expert: PerExpert;
}
const fixture = readMeasured('hf-moe-loop-ops-cpu.json') as { runs: Run[] };
const run = (model: Run['model'], v: string): Run => {
  const r = fixture.runs.find((x) => x.model === model && x.transformers === v);
  if (!r) throw new Error(`no run for ${model} at ${v}`);
  return r;
};

describe("transformers' per-expert MoE loop, counted per expert", () => {
  it('the forward the model prices is the 4.51.3 loop of Qwen3-MoE and Mixtral: 15 calls, one sync', () => {
    for (const model of ['qwen3_moe', 'mixtral'] as const) {
      const f = run(model, '4.51.3').forward_per_expert;
      expect(f.dispatched).toBe(MOE_LOOP_OPS_PER_EXPERT);
      expect(f.syncs).toBe(1);
    }
  });

  it("4.57's hit-expert loop indexes the ModuleList by a tensor: two more calls and a second sync", () => {
    const f = run('qwen3_moe', '4.57.6').forward_per_expert;
    expect(f.dispatched).toBe(MOE_LOOP_OPS_PER_EXPERT + 2);
    expect(f.syncs).toBe(2);
  });

  it('backward dispatches more than the twice-forward the model counts, and syncs nowhere', () => {
    const b = run('qwen3_moe', '4.51.3').backward_per_expert;
    expect(b.dispatched).toBeGreaterThan(2 * MOE_LOOP_OPS_PER_EXPERT);
    expect(b.syncs).toBe(0);
  });
});
