// LoRA on a transformers 5.x MoE model's fused 3-D experts: the HF launchers write PEFT target_parameters
// (axolotl lora_target_parameters) with lora_dropout 0 (ParamWrapper refuses dropout), --from reads them back,
// and DeepSpeed ZeRO-3 is refused (PEFT 0.20.0 ParamWrapper reads the partitioned, empty shape: huggingface/peft#3576).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { mergeFlags } from '../../src/core/from/index.js';
import { buildLaunch } from '../../src/core/launch/index.js';
import { loraTargetModules } from '../../src/core/launch/modules.js';
import { readFromConfig } from '../../src/io/from/read.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { launchInputOf } from '../helpers/launch.js';

const tmp = mkdtempSync(join(tmpdir(), 'vramplan-moe-lora-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const arch = resolveModel('qwen3-30b-a3b');
const ALL = 'q,k,v,o,gate,up,down';

function launch(flags: Record<string, unknown>) {
  const input = launchInputOf('qwen3-30b-a3b', 'h100-sxm', flags);
  return { options: input.options, bundle: buildLaunch(input) };
}

const file = (b: ReturnType<typeof launch>['bundle'], path: string) =>
  b.files.find((f) => f.path === path)?.content;

function readBack(b: ReturnType<typeof launch>['bundle'], name: string, only?: string) {
  const dir = join(tmp, name);
  for (const f of b.files.filter((x) => !only || x.path === only)) {
    mkdirSync(dirname(join(dir, f.path)), { recursive: true });
    writeFileSync(join(dir, f.path), f.content);
  }
  return optionsFromFlags(mergeFlags(readFromConfig(dir), {}));
}

describe('LoRA on Qwen3-30B-A3B experts (HF engines)', () => {
  it('hf: lora_config carries target_parameters for gate_up_proj and down_proj, dropout 0', () => {
    const { options, bundle } = launch({ method: 'lora', framework: 'hf', 'lora-targets': ALL });
    const lora = JSON.parse(file(bundle, 'hf-args.json') ?? '{}').lora_config;
    expect(lora.target_parameters).toEqual(['experts.gate_up_proj', 'experts.down_proj']);
    expect(lora.lora_dropout).toBe(0);
    const back = readBack(bundle, 'hf', 'hf-args.json');
    expect(back.loraTargets).toEqual(options.loraTargets);
  });

  it('axolotl: lora_target_parameters, read back as the same targets', () => {
    const { options, bundle } = launch({ method: 'lora', framework: 'hf', 'lora-targets': ALL });
    const y = parse(file(bundle, 'axolotl.yaml') ?? '');
    expect(y.lora_target_parameters).toEqual(['experts.gate_up_proj', 'experts.down_proj']);
    expect(y.lora_dropout).toBe(0);
    const back = readBack(bundle, 'axolotl', 'axolotl.yaml');
    expect([...back.loraTargets].sort()).toEqual([...options.loraTargets].sort());
  });

  // axolotl 0.19.0 lets ParamWrapper take a dropout only where PEFT's remap creates target_parameters itself
  // (loaders/adapter.py load_lora, _patch_peft_param_wrapper_dropout): with lora_target_parameters written the
  // patch is skipped, so the expert config keeps 0 and an attention-only one keeps its dropout.
  it('axolotl: attention-only LoRA on the MoE keeps lora_dropout 0.05 and writes no lora_target_parameters', () => {
    const { bundle } = launch({
      method: 'lora',
      framework: 'hf',
      'lora-targets': 'q,k,v,o',
      'lora-dropout': 0.05,
    });
    const y = parse(file(bundle, 'axolotl.yaml') ?? '');
    expect(y.lora_target_parameters).toBeUndefined();
    expect(y.lora_dropout).toBe(0.05);
  });

  it('attention-only LoRA and dense models write no target_parameters', () => {
    const o = optionsFromFlags({ method: 'lora', 'lora-targets': 'q,k,v,o' });
    expect(loraTargetModules(arch, o, true).targetParameters).toEqual([]);
    const dense = optionsFromFlags({ method: 'lora', 'lora-targets': ALL });
    expect(loraTargetModules(resolveModel('llama-3-8b'), dense, true).targetParameters).toEqual([]);
    // Engines outside the transformers 5.x + PEFT path (unsloth) are not asked for them.
    expect(loraTargetModules(arch, dense).targetParameters).toEqual([]);
  });

  it('all-linear reaches the experts only through target_parameters', () => {
    const o = optionsFromFlags({ method: 'lora', 'lora-targets': 'all-linear' });
    const m = loraTargetModules(arch, o, true);
    expect(m.targetModules).toBe('all-linear');
    expect(m.targetParameters).toEqual(['experts.gate_up_proj', 'experts.down_proj']);
  });

  it('DeepSpeed ZeRO-3 is refused with the reason', () => {
    const { bundle } = launch({
      method: 'lora',
      framework: 'deepspeed',
      gpus: 4,
      zero: 3,
      'lora-targets': ALL,
    });
    const refused = bundle.outputs.filter((x) => !x.ok);
    expect(refused.map((x) => (x.ok ? '' : x.reason)).join(' ')).toMatch(
      new RegExp('ZeRO-3.*huggingface/peft#3576'),
    );
  });
});
