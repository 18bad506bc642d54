// DeepSpeed ZeRO-3 prefetches along its recorded trace of module order; the time model hides the gathers behind
// compute on that ground. scripts/measure/zero3-trace.py counted, on DeepSpeed's own code, whether the trace stays
// COMPLETE and which gathers prefetch issued.
import { describe, expect, it } from 'vitest';
import { modelFacts, trainStep, trainWork, gpuRates } from '../../src/core/time/index.js';
import { resolveModel } from '../../src/io/load-model.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { defaultOptions, type EstimateOptions } from '../../src/schema/estimate.js';
import { defaultTimeOptions, type TimeOptions } from '../../src/schema/time.js';
import { readMeasured } from '../helpers/measured.js';

interface Summary {
  counted_steps: number;
  steps_complete_at_start: number;
  steps_complete_at_end: number;
  invalidations: number;
  demand_gathers: number;
  prefetch_gathers: number;
  demand_element_share: number | null;
  lead_0_element_share: number | null;
}
interface Fixture {
  versions: { deepspeed: string };
  results: Record<
    string,
    {
      lora: boolean;
      ckpt: boolean;
      offload: boolean;
      world: number;
      max_live: number;
      layer_numel: number;
      summary: Summary;
    }
  >;
}
const read = (name: string): Fixture => readMeasured(name) as Fixture;
const fixtures = [read('zero3-trace-cpu.json'), read('zero3-trace-cpu-deepspeed-0.16.5.json')];
// The live budget (stage3_max_live_parameters) at 1.1 of the toy's layers, as 1e9 elements are of Qwen2-72B's.
const budget = read('zero3-trace-cpu-live-1.1-layers.json');
const label = (f: Fixture) =>
  `${f.versions.deepspeed}, ${Object.values(f.results)[0]!.max_live} live`;
const all = [...fixtures, budget].map((f) => [label(f), f] as const);
const CONTROL = 'control_order_changes';
const runs = (f: Fixture) => Object.entries(f.results).filter(([k]) => k !== CONTROL);

describe('DeepSpeed ZeRO-3 trace and prefetch (measured on a CPU)', () => {
  it.each(fixtures.map((f) => [f.versions.deepspeed, f] as const))(
    'DeepSpeed %s: a changed module order is seen (the counters can tell on-demand gathers)',
    (_v, f) => {
      const c = f.results[CONTROL]!.summary;
      expect(c.invalidations).toBeGreaterThan(0);
      expect(c.demand_element_share!).toBeGreaterThan(0.5);
      expect(c.lead_0_element_share!).toBeGreaterThan(0.5);
    },
  );

  it.each(fixtures.map((f) => [f.versions.deepspeed, f] as const))(
    'DeepSpeed %s: both checkpointing settings, both methods, offload_param on two ranks and on one',
    (_v, f) => {
      expect(new Set(runs(f).map(([, r]) => r.ckpt)).size).toBe(2);
      expect(new Set(runs(f).map(([, r]) => r.lora)).size).toBe(2);
      expect(runs(f).some(([, r]) => r.offload && r.world === 1)).toBe(true);
    },
  );

  it('the budget run binds: its live elements are about 1.1 layers of the toy', () => {
    for (const r of Object.values(budget.results))
      expect(r.max_live / r.layer_numel).toBeCloseTo(1.1, 2);
  });

  it.each(all)(
    'DeepSpeed %s: the trace stays COMPLETE, every gather is a prefetch, almost none waited on with nothing run since',
    (_v, f) => {
      for (const [, r] of runs(f)) {
        const s = r.summary;
        expect(s.counted_steps).toBeGreaterThan(1);
        expect(s.steps_complete_at_start).toBe(s.counted_steps);
        expect(s.steps_complete_at_end).toBe(s.counted_steps);
        expect(s.invalidations).toBe(0);
        expect(s.demand_gathers).toBe(0);
        expect(s.prefetch_gathers).toBeGreaterThan(0);
        expect(s.lead_0_element_share!).toBeLessThan(0.1);
      }
    },
  );

  it('the time model keeps prefetched gathers behind compute: a compute-bound step pays far less than their wire time', () => {
    const o: EstimateOptions = {
      ...defaultOptions('full'),
      framework: 'deepspeed',
      weights: 'bf16',
      compute: 'bf16',
      batch: 1,
      seq: 8192,
      checkpointing: 'full',
      attention: 'flash',
      zero: 3,
      gpus: 8,
    };
    const time: TimeOptions = { ...defaultTimeOptions(2), gpusPerNode: 8 };
    const w = trainWork(modelFacts(resolveModel('qwen2.5-14b')), o, time);
    const r = gpuRates(findGpu('a100-80gb-sxm'), time);
    expect(w.gatherBytes).toBeGreaterThan(0);
    // Gathered on demand, each micro-batch would wait for all its gathered bytes on the data-parallel link.
    const onDemand = (w.microBatches * w.gatherBytes) / r.intraMany;
    const paid = trainStep(w, r) - trainStep({ ...w, gatherBytes: 0 }, r);
    expect(paid).toBeGreaterThan(0);
    expect(paid).toBeLessThan(onDemand / 2);
  });
});
