// One-GPU ZeRO without offload partitions nothing: the planner leaves it to each engine's ZeRO-0, except where an
// engine runs no ZeRO-0 and trains one GPU at a stage of its own (EngineProfile.oneRankZero: DeepSpeed's ZeRO-2).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENGINE_PROFILES, searchSkipsOneRank } from '../../src/core/engines/engines.js';
import { plan } from '../../src/core/plan/index.js';
import { resolveModel } from '../../src/io/load-model.js';
import { loadScenario, resolveHardware } from '../../src/io/load-scenario.js';
import type { Engine } from '../../src/schema/engine.js';

const engines = Object.keys(ENGINE_PROFILES) as Engine[];

describe('one-rank sharding in the search', () => {
  it('skips a one-GPU stage without offload unless the engine trains one GPU at it', () => {
    for (const e of engines)
      for (const zero of [1, 2, 3] as const) {
        const own = ENGINE_PROFILES[e].oneRankZero === zero;
        expect(searchSkipsOneRank(e, 1, zero, 'none')).toBe(!own);
        // Offload, several ranks and ZeRO-0 are never skipped.
        expect(searchSkipsOneRank(e, 1, zero, 'optimizer')).toBe(false);
        expect(searchSkipsOneRank(e, 2, zero, 'none')).toBe(false);
      }
    expect(engines.every((e) => !searchSkipsOneRank(e, 1, 0, 'none'))).toBe(true);
  });

  it('offers one-GPU DeepSpeed ZeRO-2 LoRA, and no other engine a one-GPU stage without offload', () => {
    const s = loadScenario(
      join(import.meta.dirname, '..', '..', 'scenarios', 'dpo-llama-3.1-8b.yaml'),
    );
    const hw = resolveHardware(s);
    const arch = resolveModel(s.model);
    const r = plan({ scenario: s, arch, hardware: hw.options, circuits: hw.circuits, top: 1000 });
    const oneRankSharded = r.plans.filter(
      (p) => p.options.gpus === 1 && p.options.zero > 0 && p.options.offload === 'none',
    );
    expect(oneRankSharded.length).toBeGreaterThan(0);
    for (const p of oneRankSharded) {
      expect(p.options.zero).toBe(ENGINE_PROFILES[p.choices.engine].oneRankZero);
      expect(p.options.method).toBe('lora');
    }
    expect(oneRankSharded.map((p) => p.choices.engine)).toContain('hf-deepspeed');
  });
});
