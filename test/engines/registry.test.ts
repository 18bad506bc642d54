// An engine is one place: the registry's profiles are the ones the estimate reads, every engine the search
// ranks has a launcher, every rule is sourced, and `estimate --framework <engine>` gives a plan's bytes.
import { describe, expect, it } from 'vitest';
import { withEngineDefaults } from '../../src/core/engines/defaults.js';
import { ENGINE_PROFILES } from '../../src/core/engines/engines.js';
import { BUILT_IN_ENGINES, engineDef, launcherOf } from '../../src/core/engines/registry.js';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { estimateMemory } from '../../src/core/memory/index.js';
import { plan } from '../../src/core/plan/index.js';
import { planInputOf } from '../../src/io/plan-scenario.js';
import { resolveModel } from '../../src/io/load-model.js';
import { engineFramework, ENGINES } from '../../src/schema/engine.js';
import { flagsFromOptions, optionsFromFlags } from '../../src/schema/flags.js';
import { scenarioSchema } from '../../src/schema/scenario.js';

describe('the engine registry', () => {
  it('lists every engine once, with the profile and memory profile the estimate reads', () => {
    expect(BUILT_IN_ENGINES.map((d) => d.id).sort()).toEqual([...ENGINES].sort());
    for (const e of ENGINES) {
      expect(engineDef(e).profile).toBe(ENGINE_PROFILES[e]);
      expect(engineDef(e).profile.id).toBe(e);
      expect(engineFramework(e)).toBe(ENGINE_PROFILES[e].framework);
      expect(FRAMEWORKS[ENGINE_PROFILES[e].framework]).toBe(engineDef(e).memory);
    }
  });

  it('every engine has a launcher (the default search ranks only those), loaded on demand', () => {
    for (const e of ENGINES) expect(launcherOf(e), e).not.toBeNull();
  });

  it('every behaviour rule names its library, versions and a source at an issue, tag or commit', () => {
    const ids = new Set<string>();
    for (const e of ENGINES)
      for (const r of ENGINE_PROFILES[e].rules) {
        expect(r.library, r.id).toMatch(/\w/);
        expect(r.versions, r.id).toMatch(/\d/);
        // An issue or pull request, a file at a tag or commit, a library's documentation page (a docs. host, or
        // Unsloth's guides under unsloth.ai/docs), or a file of a release's PyPI wheel (where the release's source
        // is not on GitHub).
        expect(r.source, r.id).toMatch(
          /^https:\/\/(\S+\/(issues|pull)\/\d+|\S+\/(blob|tree)\/(v?[\d.]+\w*|[0-9a-f]{7,40})\/|docs\.\S+|unsloth\.ai\/docs\/\S+|pypi\.org\/project\/[\w.-]+\/[\d.]+\/ \(wheel\) \S+\.py:\d)/,
        );
        expect(r.source, r.id).not.toMatch(/\/(blob|tree)\/main\//);
        expect(r.says, r.id).not.toMatch(/\.$/);
        ids.add(`${e}:${r.id}`);
      }
    expect(ids.size).toBeGreaterThan(20);
  });
});

describe('estimate --framework <engine> and the plan on that engine agree', () => {
  const arch = resolveModel('llama-3.1-8b');
  const best = (engine: string) => {
    const scenario = scenarioSchema.parse({
      name: 'agree',
      model: 'llama-3.1-8b',
      job: { kind: 'fine-tune', methods: ['full', 'lora', 'qlora'], seq: 2048, globalBatch: 16 },
      hardware: { owned: [{ gpu: 'h100-sxm', count: 8 }], counts: { min: 1, max: 8 } },
      search: { engines: [engine] },
    });
    return plan({ ...planInputOf('agree.yaml', scenario), top: 1 }).plans[0];
  };

  for (const e of ENGINES.filter(
    (x) => ENGINE_PROFILES[x].methods.includes('lora') || x === 'torchtitan',
  ))
    it(`${e}: its best plan's options, as flags with --framework ${e}, give the same options and bytes`, () => {
      const p = best(e);
      expect(p, e).toBeDefined();
      expect(p!.choices.engine).toBe(e);
      const flags = { ...flagsFromOptions(p!.options), framework: e };
      const o = withEngineDefaults(optionsFromFlags(flags), flags);
      expect(o, p!.id).toEqual(p!.options);
      expect(estimateMemory(arch, o).perGpu.deviceBytes).toBe(p!.memory.deviceBytes);
    });
});

describe('an engine that cannot run the job says why', () => {
  it('torchtitan named for a model it has no flavor for: no plan, and the reason', () => {
    const s = scenarioSchema.parse({
      name: 'idle',
      model: 'llama-2-7b',
      job: { kind: 'fine-tune', methods: ['full'], seq: 1024, globalBatch: 16 },
      hardware: { owned: [{ gpu: 'h100-sxm', count: 8 }] },
      search: { engines: ['torchtitan'] },
    });
    const r = plan({ ...planInputOf('idle.yaml', s), top: 5 });
    expect(r.plans).toHaveLength(0);
    expect(r.engines).toEqual([{ engine: 'torchtitan', idle: expect.stringMatching(/flavor/) }]);
  });
});
