// The search counts a training row's trainable parameters (memory/setup.ts trainableParams: a spot run saves their
// state) once per configuration and engine variant (plan/loop.ts trainableOf): a row's options are its
// configuration's with the layout's fields and the engine's (variantOptions), so that holds only while
// trainableParams reads no layout field (GPUs, TP, PP, ZeRO stage, offload, expert group). Here the first
// configurations of two shipped scenarios, on every engine variant, count alike on every layout and GPU count.
import { describe, expect, it } from 'vitest';
import '../../src/core/engines/registry.js';
import { ENGINE_PROFILES, FRAMEWORKS } from '../../src/core/engines/store.js';
import { trainableParams } from '../../src/core/memory/setup.js';
import { paramCounts } from '../../src/core/model/index.js';
import { baseConfigs, variantsOf } from '../../src/core/plan/configs.js';
import { withExpertGroup } from '../../src/core/plan/expert-parallel.js';
import { variantOptions } from '../../src/core/plan/rows.js';
import type { Sharding } from '../../src/core/plan/shape-table.js';
import { resolveModel } from '../../src/io/load-model.js';
import { loadScenario } from '../../src/io/load-scenario.js';

// (tp, pp, ZeRO and offload, GPUs)
const LAYOUTS: [number, number, Sharding, number][] = [
  [1, 1, { zero: 0, offload: 'none' }, 1],
  [1, 1, { zero: 2, offload: 'none' }, 8],
  [2, 1, { zero: 3, offload: 'optimizer' }, 16],
  [1, 2, { zero: 1, offload: 'none' }, 4],
  [4, 2, { zero: 3, offload: 'optimizer+params' }, 64],
];

describe('trainable parameters by configuration and engine variant', () => {
  for (const file of ['scenarios/bench-everything.yaml', 'scenarios/grpo-qwen2.5-7b.yaml'])
    it(`one count per configuration and variant on every layout (${file})`, () => {
      const s = loadScenario(file);
      const arch = resolveModel(s.model);
      const total = paramCounts(arch).total;
      const all = baseConfigs(s, arch);
      // Every method of the scenario: configurations spread over the list.
      const bases = all.filter((_, i) => i % Math.ceil(all.length / 300) === 0);
      const variants = variantsOf(s, arch);
      const counts = new Set<number>();
      for (const b of bases)
        for (const v of variants) {
          const fw = FRAMEWORKS[ENGINE_PROFILES[v.engine].framework];
          const seen = LAYOUTS.map(([tp, pp, sh, gpus]) => {
            const o = { ...variantOptions(b.options, tp, pp, sh, v), gpus };
            return trainableParams(arch, withExpertGroup(o), fw, total);
          });
          expect(new Set(seen).size).toBe(1);
          counts.add(seen[0]!);
        }
      // Full fine-tunes and adapters of several targets: the check tells configurations apart.
      expect(counts.size).toBeGreaterThan(2);
    });
});
