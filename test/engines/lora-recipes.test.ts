// LoRA targets where none is given: each engine's own recipes (profile `loraTargets`), in the planner, in
// `estimate --framework <engine>`, and in the launch files written from either.
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { buildEstimate } from '../../src/core/estimate.js';
import { ENGINE_PROFILES, withEngineDefaults } from '../../src/core/engines/index.js';
import { loraTargetsNote } from '../../src/core/engines/engines-runs.js';
import { buildLaunch, launchBlocker } from '../../src/core/launch/index.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { planYaml } from '../helpers/plan.js';
import { ENGINES, type Engine } from '../../src/schema/engine.js';
import type { EstimateOptions } from '../../src/schema/estimate.js';
import { flagsFromOptions, optionsFromFlags } from '../../src/schema/flags.js';

const ALL = ['q', 'k', 'v', 'o', 'gate', 'up', 'down'];
/** Each training engine's recipe: all-linear, or the list its recipes name. */
const RECIPES: Partial<Record<Engine, string>> = {
  'hf-trainer': 'all-linear',
  'hf-fsdp': 'all-linear',
  'hf-deepspeed': 'all-linear',
  unsloth: 'all-linear',
  torchtune: 'q,v,o,gate,up,down',
  litgpt: 'q,v',
  torchtitan: 'q,k,v,o,gate,up,down,lm_head',
};
const targets = (o: EstimateOptions) => (o.loraAllLinear ? 'all-linear' : o.loraTargets.join(','));

function planOn(engine: Engine, method: string, loraTargets = '') {
  return planYaml(
    'lora-recipes.yaml',
    `name: lora-recipes
model: llama-3.1-8b
job: { kind: fine-tune, methods: [${method}], seq: 2048, globalBatch: 8, datasetTokens: 1000000, epochs: 1${loraTargets} }
hardware: { owned: [{ gpu: h100-sxm, count: 1 }], counts: { min: 1, max: 1 } }
search: { engines: [${engine}] }
rank: cost
`,
    1,
  );
}

describe("each training engine's recipe targets", () => {
  it('every engine that trains LoRA names its recipe, with the file read', () => {
    for (const e of ENGINES) {
      const p = ENGINE_PROFILES[e];
      if (!p.methods.includes('lora') && e !== 'torchtitan') continue;
      expect(p.loraTargets, e).toBeDefined();
      expect(p.loraTargets!.source, e).toMatch(/\S/);
      const r = p.loraTargets!;
      expect(r.allLinear ? 'all-linear' : r.targets.join(','), e).toBe(RECIPES[e]);
      if (r.allLinear) expect([...r.targets]).toEqual(ALL);
    }
  });

  for (const e of ['hf-trainer', 'unsloth', 'torchtune', 'litgpt'] as const)
    it(`a scenario without loraTargets plans ${e} at its recipe's; the scenario's own win`, () => {
      for (const method of ['lora', 'qlora']) {
        const best = planOn(e, method).plans[0]!;
        expect(best.id).toContain(`/${e}`);
        expect(targets(best.options), `${e} ${method}`).toBe(RECIPES[e]);
        const own = planOn(e, method, ', loraTargets: [q, k]').plans[0]!;
        expect(targets(own.options)).toBe('q,k');
      }
    });

  it('a full fine-tune carries the contract q,v whatever the engine (the plan JSON as before)', () => {
    const best = planOn('unsloth', 'full').plans[0]!;
    expect(targets(best.options)).toBe('q,v');
  });
});

describe('estimate --framework <engine> without --lora-targets', () => {
  const on = (flags: Record<string, unknown>) => withEngineDefaults(optionsFromFlags(flags), flags);

  it("applies the engine's recipe and says so; no --framework or a family name stays q,v", () => {
    for (const [e, want] of Object.entries(RECIPES)) {
      if (e === 'torchtitan') continue; // runs LoRA in 32-bit weights only: its own tests
      const flags = { method: 'lora', framework: e };
      const o = on(flags);
      expect(targets(o), e).toBe(want);
      expect(loraTargetsNote(e as Engine, undefined, o)).toContain(`LoRA targets ${want} on ${e}`);
      expect(loraTargetsNote(e as Engine, 'q,v', o)).toBeNull();
      // The plan's flags give the same targets back on that engine.
      const back = on({ ...flagsFromOptions(o), framework: e });
      expect(targets(back)).toBe(want);
    }
    expect(targets(on({ method: 'lora' }))).toBe('q,v');
    expect(targets(on({ method: 'lora', framework: 'hf' }))).toBe('q,v');
    expect(targets(on({ method: 'lora', framework: 'unsloth', 'lora-targets': 'q,v' }))).toBe(
      'q,v',
    );
  });

  it('a plan whose scenario named q,v keeps them on an engine whose recipe differs', () => {
    const o = on({ method: 'lora', framework: 'torchtune', 'lora-targets': 'q,v' });
    const back = on({ ...flagsFromOptions(o), framework: 'torchtune' });
    expect(targets(back)).toBe('q,v');
  });
});

describe('launch writes the targets the plan carries', () => {
  const arch = resolveModel('llama-3.1-8b');
  const gpu = findGpu('h100-sxm');
  const filesOf = (e: Engine) => {
    const options = planOn(e, 'lora').plans[0]!.options;
    const x = {
      arch,
      options,
      gpu,
      gradAccum: 8,
      powerLimitW: null,
      estimate: buildEstimate(arch, options, gpu),
      modelRef: arch.hfId ?? arch.id,
    };
    return Object.fromEntries(buildLaunch(x).files.map((f) => [f.path, f.content]));
  };

  it('hf-trainer: PEFT all-linear', () => {
    const args = JSON.parse(filesOf('hf-trainer')['hf-args.json']!) as {
      lora_config: { target_modules: unknown };
    };
    expect(args.lora_config.target_modules).toBe('all-linear');
  });

  it('unsloth: the seven projections by name', () => {
    const args = JSON.parse(filesOf('unsloth')['unsloth-args.json']!) as {
      get_peft_model: { target_modules: string[] };
    };
    expect([...args.get_peft_model.target_modules].sort()).toEqual(
      ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'].sort(),
    );
  });

  it('torchtune: q, v and output_proj, with the MLP', () => {
    const c = parse(filesOf('torchtune')['torchtune.yaml']!) as { model: Record<string, unknown> };
    expect(c.model.lora_attn_modules).toEqual(['q_proj', 'v_proj', 'output_proj']);
    expect(c.model.apply_lora_to_mlp).toBe(true);
    expect(c.model.apply_lora_to_output).toBe(false);
  });

  it('litgpt: query and value only', () => {
    const f = filesOf('litgpt');
    const c = parse(Object.entries(f).find(([k]) => k.endsWith('.yaml'))![1]) as Record<
      string,
      unknown
    >;
    expect([c.lora_query, c.lora_key, c.lora_value, c.lora_projection, c.lora_mlp]).toEqual([
      true,
      false,
      true,
      false,
      false,
    ]);
  });

  it('hf-deepspeed: LoRA on fused experts under ZeRO-3 is refused before ranking, as the args file refuses it', () => {
    const mixtral = resolveModel('mixtral-8x7b');
    const flags = { method: 'qlora', framework: 'hf-deepspeed', zero: '3', gpus: '8' };
    const o = withEngineDefaults(optionsFromFlags(flags), flags);
    expect(o.loraAllLinear).toBe(true);
    expect(launchBlocker({ arch: mixtral, options: o })).toMatch(/fused expert weights/);
    const qv = { ...flags, 'lora-targets': 'q,v' };
    expect(
      launchBlocker({ arch: mixtral, options: withEngineDefaults(optionsFromFlags(qv), qv) }),
    ).toBeNull();
  });
});
