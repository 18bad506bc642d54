// Every engine says, as data, which model_types it runs (engines/architectures.ts): each reader-supported
// model_type has an explicit verdict per engine, the planner leaves an engine idle with the refusal as its
// reason, and `launch` refuses a plan whose model the engine has no class for.
import { describe, expect, it } from 'vitest';
import { architectureTables, architecturesOf as tableOf } from '../../src/core/engines/registry.js';
import { ENGINE_PROFILES } from '../../src/core/engines/engines.js';
import { engineRefusal } from '../../src/core/engines/defaults.js';
import { archOf, catalogConfig } from '../helpers/model-configs.js';
import { buildLaunch, launchBlocker } from '../../src/core/launch/index.js';
import { HF_ENGINE } from '../../src/core/engines/hf/trainer.js';
import { launchInputOf } from '../helpers/launch.js';
import { SUPPORTED_ARCHITECTURES } from '../../src/core/model/hf-config.js';
import { plan } from '../../src/core/plan/index.js';
import { planInputOf } from '../../src/io/plan-scenario.js';
import { resolveModel } from '../../src/io/load-model.js';
import { ENGINES, type BuiltInEngine, type Engine } from '../../src/schema/engine.js';
import { scenarioSchema } from '../../src/schema/scenario.js';

describe('architecture tables', () => {
  const known = SUPPORTED_ARCHITECTURES.map((a) => a.modelType);

  it('give every reader-supported model_type exactly one verdict on every engine', () => {
    for (const e of ENGINES) {
      const t = tableOf(e)!;
      expect(t, e).toBeDefined();
      for (const m of known) {
        const runs = t.runs.includes(m);
        const refuses = Object.hasOwn(t.refuses, m);
        expect(runs !== refuses, `${e} × ${m}: runs ${runs}, refuses ${refuses}`).toBe(true);
      }
    }
  });

  it('name no model_type the readers do not know (a typo would silently allow it)', () => {
    for (const t of architectureTables())
      for (const m of [...t.runs, ...Object.keys(t.refuses)])
        expect(known, `${t.name}: ${m}`).toContain(m);
  });

  it('are carried by every engine profile as a forbid rule at a source commit or tag', () => {
    for (const e of ENGINES) {
      const r = ENGINE_PROFILES[e].rules.find((x) => x.id.endsWith('-architecture'));
      expect(r, e).toBeDefined();
      expect(r!.effect).toBe('forbid');
      expect(r!.source).toBe(tableOf(e)!.source);
    }
  });
});

/** Per engine: a catalog model whose model_type it refuses (and the type). */
const REFUSED: Record<BuiltInEngine, [string, string]> = {
  'hf-trainer': ['t0-3b', 't5'],
  'hf-fsdp': ['t0-3b', 't5'],
  'hf-deepspeed': ['t0-3b', 't5'],
  'hf-generate': ['qwen2-vl-7b-instruct', 'qwen2_vl'],
  unsloth: ['qwen3.5-27b', 'qwen3_5'],
  torchtune: ['qwen3-8b', 'qwen3'],
  torchtitan: ['mistral-7b-v0.1', 'mistral'],
  litgpt: ['opt-1.3b', 'opt'],
  vllm: ['llama-3.2-11b-vision', 'mllama'],
  sglang: ['bloom-7b1', 'bloom'],
  'llama.cpp': ['opt-1.3b', 'opt'],
};

const scenarioFor = (engine: Engine, model: string) => {
  const serving = ENGINE_PROFILES[engine].methods.includes('inference');
  return scenarioSchema.parse({
    name: 'arch',
    model,
    job: serving
      ? { kind: 'inference', context: 2048, concurrency: 4, outputTokens: 1_000_000 }
      : { kind: 'fine-tune', methods: ['full', 'lora', 'qlora'], seq: 2048, globalBatch: 16 },
    hardware: { owned: [{ gpu: 'h100-sxm', count: 8 }], counts: { min: 1, max: 8 } },
    search: { engines: [engine] },
  });
};

const best = (engine: Engine, model: string) =>
  plan({ ...planInputOf('arch.yaml', scenarioFor(engine, model)), top: 1 });

describe.each(ENGINES)('%s and model_types', (engine) => {
  const [refusedModel, type] = REFUSED[engine];

  it(`plans llama-3.1-8b (model_type llama runs), and not ${type}: idle with the refusal`, () => {
    expect(tableOf(engine)!.runs).toContain('llama');
    const ok = best(engine, 'llama-3.1-8b');
    expect(ok.plans.length, `${engine} ranks llama`).toBeGreaterThan(0);
    expect(resolveModel(refusedModel).modelType).toBe(type);
    const no = best(engine, refusedModel);
    expect(no.plans).toHaveLength(0);
    const idle = no.engines.find((x) => x.engine === engine)?.idle;
    expect(idle).toMatch(new RegExp(`does not run model_type '${type}'`));
    expect(idle).toContain(tableOf(engine)!.source);

    // launch: the llama plan's options on the refused model are refused, naming engine, type and source.
    const options = ok.plans[0]!.options;
    const why = launchBlocker({ arch: resolveModel(refusedModel), options });
    expect(why).toMatch(new RegExp(`^\\S.* does not run model_type '${type}': `));
    expect(why).toContain(tableOf(engine)!.name);
    expect(why).toContain(tableOf(engine)!.source);
    expect(launchBlocker({ arch: resolveModel('llama-3.1-8b'), options })).toBeNull();
  });
});

// The multimodal wrappers transformers maps only to AutoModelForImageTextToText: train.py loads a config with a
// vision_config through that class, so the training engines rank and launch them; generate.py loads
// AutoModelForCausalLM, so hf-generate still refuses them.
describe('the multimodal wrappers on the HF engines', () => {
  const lora = (engine: Engine) =>
    plan({
      ...planInputOf(
        'vl.yaml',
        scenarioSchema.parse({
          name: 'vl',
          model: 'qwen2-vl-7b-instruct',
          job: { kind: 'fine-tune', methods: ['lora'], seq: 2048, globalBatch: 16 },
          hardware: { owned: [{ gpu: 'h100-sxm', count: 8 }], counts: { min: 1, max: 8 } },
          search: { engines: [engine] },
        }),
      ),
      top: 1,
    });

  it.each(['hf-trainer', 'hf-fsdp', 'hf-deepspeed', 'unsloth'] as const)(
    'ranks a Qwen2-VL-7B LoRA plan on %s',
    (engine) => {
      const r = lora(engine);
      expect(r.plans.length, engine).toBeGreaterThan(0);
      expect(r.plans[0]!.options.method).toBe('lora');
      expect(
        launchBlocker({ arch: resolveModel('qwen2-vl-7b-instruct'), options: r.plans[0]!.options }),
      ).toBeNull();
    },
  );

  it('launches the hf-trainer plan with train.py loading AutoModelForImageTextToText', () => {
    const options = lora('hf-trainer').plans[0]!.options;
    const x = launchInputOf('qwen2-vl-7b-instruct', 'h100-sxm', {
      method: 'lora',
      framework: 'hf-trainer',
      gpus: '1',
    });
    const b = buildLaunch({ ...x, options: { ...x.options, ...options, gpus: 1, tp: 1, pp: 1 } });
    const hf = b.outputs.find((e) => e.engine === HF_ENGINE);
    expect(hf?.ok, hf && !hf.ok ? hf.reason : '').toBe(true);
    const train = b.files.find((f) => f.path === 'train.py')?.content ?? '';
    expect(train).toContain(
      'auto = AutoModelForImageTextToText if hasattr(config, "vision_config") else AutoModelForCausalLM',
    );
    expect(JSON.parse(b.files.find((f) => f.path === 'hf-args.json')!.content)).toMatchObject({
      model_name_or_path: 'Qwen/Qwen2-VL-7B-Instruct',
      lora_config: { r: options.loraRank },
    });
  });

  it('leaves hf-generate idle on qwen2_vl, naming generate.py and the registry', () => {
    const r = best('hf-generate', 'qwen2-vl-7b-instruct');
    expect(r.plans).toHaveLength(0);
    const idle = r.engines.find((x) => x.engine === 'hf-generate')?.idle ?? '';
    expect(idle).toMatch(
      /does not run model_type 'qwen2_vl': generate\.py loads AutoModelForCausalLM/,
    );
    expect(idle).toContain(tableOf('hf-generate')!.source);
    expect(tableOf('hf-generate')).not.toBe(tableOf('hf-trainer'));
    expect(tableOf('hf-trainer')!.runs).toContain('qwen2_vl');
  });

  it("keeps unsloth's own refusal of the MoE wrappers (its expert targets are not modelled), not generate.py's", () => {
    const why = tableOf('unsloth')!.refuses.qwen3_vl_moe ?? '';
    expect(why).toMatch(/FastVisionModel, but what its get_peft_model adapts .* routed experts/);
    expect(why).not.toContain('generate.py');
    expect(tableOf('unsloth')!.runs).toContain('qwen2_vl');
  });

  it('launches a multimodal checkpoint on unsloth with FastVisionModel, the tower written out of text SFT', () => {
    const x = launchInputOf('gemma-3-4b-it', 'h100-sxm', {
      method: 'lora',
      framework: 'unsloth',
      gpus: '1',
    });
    const b = buildLaunch(x);
    const py = b.files.find((f) => f.path === 'train_unsloth.py')?.content ?? '';
    expect(py).toContain('from unsloth import FastVisionModel');
    expect(py).toContain('model, tokenizer = FastVisionModel.from_pretrained(**load)');
    expect(py).toContain('FastVisionModel.get_peft_model(model, ');
    expect(py).not.toContain('FastLanguageModel');
    const args = JSON.parse(b.files.find((f) => f.path === 'unsloth-args.json')!.content);
    // FastVisionModel.get_peft_model defaults finetune_vision_layers=True: written false for text SFT.
    expect(args.get_peft_model.finetune_vision_layers).toBe(false);
    // with images trained, the tower is adapted
    const img = buildLaunch({ ...x, options: { ...x.options, images: 1 } });
    const imgArgs = JSON.parse(img.files.find((f) => f.path === 'unsloth-args.json')!.content);
    expect(imgArgs.get_peft_model.finetune_vision_layers).toBe(true);
    // under torchrun each rank still loads onto its own GPU before FastVisionModel.from_pretrained
    const two = buildLaunch({ ...x, options: { ...x.options, gpus: 2 } });
    const multi = two.files.find((f) => f.path === 'train_unsloth.py')?.content ?? '';
    expect(multi.indexOf('load["device_map"]')).toBeGreaterThan(-1);
    expect(multi.indexOf('load["device_map"]')).toBeLessThan(
      multi.indexOf('FastVisionModel.from_pretrained'),
    );
    // a text-only checkpoint keeps FastLanguageModel
    const llama = buildLaunch(
      launchInputOf('llama-3.1-8b', 'h100-sxm', {
        method: 'lora',
        framework: 'unsloth',
        gpus: '1',
      }),
    );
    expect(llama.files.find((f) => f.path === 'train_unsloth.py')?.content).toContain(
      'model, tokenizer = FastLanguageModel.from_pretrained(**load)',
    );
  });
});

// estimate models what the library runs: a refusal that is only about what the launcher writes (generate.py loads
// AutoModelForCausalLM; transformers runs the VLM wrappers through AutoModelForImageTextToText) binds the
// planner and launch, not estimate; a family name (`hf`, or none) is held to its resolved engine's table.
describe('estimate and the model_type tables', () => {
  const options = (framework?: string) => {
    const engine = framework === 'unsloth' ? 'unsloth' : 'hf-trainer';
    const o = { ...best(engine, 'llama-3.1-8b').plans[0]!.options };
    return { o, flags: framework === undefined ? {} : { framework } };
  };

  it('models qwen2_vl under hf-trainer (runs it) and unsloth (refused only for what vramplan writes)', () => {
    const arch = resolveModel('qwen2-vl-7b-instruct');
    for (const fw of ['hf-trainer', 'unsloth'] as const) {
      const { o, flags } = options(fw);
      expect(engineRefusal(arch, o, flags), fw).toBeNull();
    }
  });

  it('refuses kimi_k2 under the family name hf and with no --framework, naming transformers', () => {
    const kimi = archOf({
      ...catalogConfig('deepseek-v3'),
      model_type: 'kimi_k2',
      architectures: ['DeepseekV3ForCausalLM'],
    });
    for (const fw of ['hf', undefined]) {
      const { o, flags } = options(fw);
      const why = engineRefusal(kimi, o, flags);
      expect(why, String(fw)).toMatch(/transformers 5\.14\.1 .* does not run model_type 'kimi_k2'/);
    }
    // the model it is read as runs under the same options
    expect(
      engineRefusal(resolveModel('deepseek-v3'), options('hf').o, { framework: 'hf' }),
    ).toBeNull();
  });
});
