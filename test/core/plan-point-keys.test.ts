// GRPO's memory points are shared between surfaces of one pointClass (memory/surface.ts): options alike but for
// the vLLM server's GPU count and, without a GPU capacity, its colocated share. The planner keys a surface's
// class by its configuration's pointClass, the layout and the engine variant (plan/rows.ts pointKeyOf) instead
// of the surface's whole options; that holds only while variantOptions derives no field from those two keys.
// Here the first 1,400 configurations of the shipped GRPO scenario, on every engine variant and a few layouts, maps each
// such key to one pointClass of the options the surface is made from.
import { describe, expect, it } from 'vitest';
import { baseConfigs, variantsOf } from '../../src/core/plan/configs.js';
import { variantOptions } from '../../src/core/plan/rows.js';
import { pointClass } from '../../src/core/memory/surface.js';
import { resolveModel } from '../../src/io/load-model.js';
import { loadScenario } from '../../src/io/load-scenario.js';
import type { Sharding } from '../../src/core/plan/shape-table.js';

const s = loadScenario('scenarios/grpo-qwen2.5-7b.yaml');
const arch = resolveModel(s.model);
const bases = baseConfigs(s, arch).slice(0, 1400); // every rollout variant of 40 policy configurations
const variants = variantsOf(s, arch);
// (tp, pp, ZeRO, offload): one GPU, tensor parallel under ZeRO-3 with offload, a pipeline.
const LAYOUTS: [number, number, Sharding][] = [
  [1, 1, { zero: 0, offload: 'none' }],
  [2, 1, { zero: 3, offload: 'optimizer' }],
  [1, 2, { zero: 1, offload: 'none' }],
];

describe('GRPO point classes by configuration, layout and variant', () => {
  it('one key names one pointClass of the surface options', () => {
    const classOf = new Map<string, string>();
    const configKeys = new Set<string>();
    for (const b of bases) {
      const own = pointClass(b.options, {});
      configKeys.add(own);
      variants.forEach((v, vi) => {
        for (const [tp, pp, sh] of LAYOUTS) {
          const key = `${own}|${tp}|${pp}|${sh.zero}|${sh.offload}|${vi}`;
          const cls = pointClass(variantOptions(b.options, tp, pp, sh, v), {});
          const seen = classOf.get(key);
          if (seen === undefined) classOf.set(key, cls);
          else expect(cls).toBe(seen);
        }
      });
    }
    // The server's GPU counts and the colocated shares do share classes.
    const rollouts = new Set(
      bases.map((b) => `${b.options.rolloutGpus}/${b.options.rolloutMemory}`),
    );
    expect(rollouts.size).toBeGreaterThan(2);
    expect(configKeys.size).toBeLessThan(bases.length);
  });
});
