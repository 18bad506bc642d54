// A plan is what runs: its options encode its engine, and `vramplan estimate` with them gives its bytes.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { findGpu } from '../../src/io/load-catalog.js';
import { describe, expect, it } from 'vitest';
import { buildEstimate } from '../../src/core/estimate.js';
import { engineOf } from '../../src/core/engines/index.js';
import {
  ENGINE_PROFILES,
  engineRejects,
  REJECTED,
  rejectsLayout,
} from '../../src/core/engines/index.js';
import { plan } from '../../src/core/plan/index.js';
import { resolveModel } from '../../src/io/load-model.js';
import { loadScenario, resolveHardware } from '../../src/io/load-scenario.js';
import { defaultOptions, OBJECTIVES } from '../../src/schema/estimate.js';
import { flagsFromOptions, optionsFromFlags } from '../../src/schema/flags.js';
import { optionsArb } from '../helpers/arbitraries.js';

const DIR = join(import.meta.dirname, '..', '..', 'scenarios');
const files = readdirSync(DIR).filter((f) => f.endsWith('.yaml') && !f.startsWith('bench-'));

describe('plans reproduce through vramplan estimate', () => {
  for (const f of files) {
    it(`${f}: every top-10 plan's options re-estimate to its bytes on its engine`, () => {
      const s = loadScenario(join(DIR, f));
      const hw = resolveHardware(s);
      const arch = resolveModel(s.model);
      const r = plan({ scenario: s, arch, hardware: hw.options, circuits: hw.circuits, top: 10 });
      for (const p of r.plans) {
        expect(engineOf(p.options)).toBe(p.choices.engine);
        const dp = p.options.gpus / (p.options.tp * p.options.pp * p.options.cp);
        expect(engineRejects(p.choices.engine, p.options, dp, p.choices.gradAccum)).toBeNull();
        // The same options come back from the command-line flags, and estimate to the same bytes.
        const o = optionsFromFlags(flagsFromOptions(p.options));
        expect(o).toEqual(p.options);
        // GRPO with vLLM colocated: its pool fills its share of the plan's GPU (estimate with --gpu).
        const gpu = o.rollout === 'vllm-colocate' ? findGpu(p.hardware.gpuId) : undefined;
        let e = buildEstimate(arch, o, gpu);
        // A serving plan whose sequences do not all fit at once, on an engine that admits what its KV pool holds
        // and queues the rest: the engine's footprint at the sequences the pool runs on the plan's GPU.
        const usable = p.memory.capacityBytes * (1 - s.limits.memoryMargin);
        if (p.serving !== undefined && e.perGpu.deviceBytes > usable) {
          const c = Math.floor(p.serving.sequencesAtMeanContext);
          expect(c).toBeLessThan(o.batch);
          e = buildEstimate(arch, { ...o, batch: c }, findGpu(p.hardware.gpuId));
        }
        expect(e.perGpu.deviceBytes).toBe(p.memory.deviceBytes);
        expect(e.hostBytesPerGpu).toBe(p.memory.hostBytesPerGpu);
      }
    });
  }
});

describe('engine profiles', () => {
  const full = { ...defaultOptions('full'), gpus: 8 };
  it('every profile cites its docs', () => {
    for (const p of Object.values(ENGINE_PROFILES)) {
      expect(p.docs.length).toBeGreaterThan(0);
      for (const d of p.docs) expect(d).toMatch(/^https:\/\//);
    }
  });
  it('DeepSpeed keeps an fp32 master copy; FSDP mixed precision keeps fp32 shards', () => {
    const arch = resolveModel('llama-2-7b');
    const ds = buildEstimate(arch, {
      ...full,
      zero: 3,
      framework: 'deepspeed',
      masterWeights: true,
    });
    expect(ds.perGpu.breakdown.masterWeights).toBeGreaterThan(0);
    const fsdp = buildEstimate(arch, { ...full, zero: 3, weights: 'fp32' });
    expect(fsdp.perGpu.breakdown.masterWeights).toBe(0);
    // fp32 shards: 4 B/param over 8 ranks on the device.
    expect(fsdp.perGpu.breakdown.weights).toBeGreaterThan((arch.measuredParams ?? 6.7e9) * 0.45);
  });
  it('rules: no TP under the HF engines, torchtitan pairs FSDP with TP, no int8 under ZeRO-3', () => {
    expect(engineRejects('hf-deepspeed', { ...full, tp: 2, zero: 3 }, 4, 1)).toMatch(/tensor/);
    expect(
      engineRejects('torchtitan', { ...full, weights: 'fp32', tp: 2, zero: 3 }, 4, 1),
    ).toBeNull();
    const q = { ...defaultOptions('lora'), weights: 'int8' as const, gpus: 4, zero: 3 as const };
    expect(engineRejects('hf-deepspeed', q, 4, 1)).toMatch(/int8/);
    expect(engineRejects('hf-fsdp', { ...q, weights: 'nf4' }, 4, 1)).toBeNull();
    expect(engineRejects('hf-deepspeed', { ...full, weights: 'fp32', zero: 3 }, 8, 1)).toMatch(
      /full/,
    );
    // Optimizer in backward: torchtune only, one micro-batch per step.
    const oib = { ...full, gpus: 1, optimizerInBackward: true };
    expect(engineRejects('torchtune', { ...oib, framework: 'torchtune' }, 1, 1)).toBeNull();
    expect(engineRejects('torchtune', { ...oib, framework: 'torchtune' }, 1, 4)).toMatch(
      /backward/,
    );
    expect(engineRejects('hf-trainer', oib, 1, 1)).toMatch(/backward/);
  });
});

describe('engineRejects without its sentence (the planner asks that way)', () => {
  it('rejects exactly what the explaining call rejects, for every engine', () => {
    fc.assert(
      fc.property(
        optionsArb(),
        fc.constantFrom(...(Object.keys(ENGINE_PROFILES) as (keyof typeof ENGINE_PROFILES)[])),
        fc.integer({ min: 1, max: 16 }),
        fc.integer({ min: 1, max: 8 }),
        (o, engine, dp, accum) => {
          const why = engineRejects(engine, o, dp, accum);
          const quiet = engineRejects(engine, o, dp, accum, false);
          expect(quiet === null).toBe(why === null);
          if (quiet !== null) expect(quiet === REJECTED || quiet === why).toBe(true);
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe('rejectsLayout (the planner asks it once per layout shape)', () => {
  it('never refuses what engineRejects runs, and refuses a layout some engine cannot run', () => {
    let refused = 0;
    fc.assert(
      fc.property(
        optionsArb(),
        fc.constantFrom(undefined, ...OBJECTIVES),
        fc.constantFrom(...(Object.keys(ENGINE_PROFILES) as (keyof typeof ENGINE_PROFILES)[])),
        fc.integer({ min: 1, max: 16 }),
        fc.integer({ min: 1, max: 8 }),
        (base, objective, engine, dp, accum) => {
          const o = { ...base, objective };
          const { method, tp, pp, zero, offload } = o;
          if (!rejectsLayout(engine, method, objective, dp, tp, pp, zero, offload)) return;
          refused++;
          expect(engineRejects(engine, o, dp, accum, false)).not.toBeNull();
        },
      ),
      { numRuns: 2000 },
    );
    expect(refused).toBeGreaterThan(0);
  });
});
