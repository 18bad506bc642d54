// Training engines on AMD GPUs through the torch their launch folders pin: PyTorch compiled gfx950 (MI350X/MI355X)
// into its ROCm 7.0+ wheels only, so torchtune (torch 2.6.0, rocm6.2.4) and LitGPT (torch 2.8.0, rocm6.4) are
// refused on MI355X naming the engines that run there; gfx942 (MI300X, MI325X) is in every variant's build.
import { describe, expect, it } from 'vitest';
import { ENGINE_PROFILES } from '../../src/core/engines/engines.js';
import { TORCHTUNE_PINS } from '../../src/core/engines/torchtune/launch.js';
import { LITGPT_PINS } from '../../src/core/engines/litgpt/rules.js';
import { TORCHTITAN_PINS } from '../../src/core/engines/torchtitan/launch.js';
import { HF_PINS } from '../../src/core/engines/hf/trainer.js';
import { UNSLOTH_PINS } from '../../src/core/engines/unsloth/launch.js';
import {
  enginesWithTorchOn,
  torchRunsOn,
  torchTargetRefusal,
} from '../../src/core/engines/torch-targets.js';
import { torchRocmRefusal } from '../../src/core/launch/rocm-torch.js';
import { launchBlocker } from '../../src/core/launch/index.js';
import { launchInputOf } from '../helpers/launch.js';
import { planYaml } from '../helpers/plan.js';
import { runCli } from '../helpers/run-cli.js';

describe('the torch an engine pins, on AMD gfx targets', () => {
  it('profiles carry the torch their launch folders pin', () => {
    expect(TORCHTUNE_PINS).toContain(`torch==${ENGINE_PROFILES.torchtune.torch}`);
    expect(LITGPT_PINS).toContain(`torch==${ENGINE_PROFILES.litgpt.torch}`);
    expect(TORCHTITAN_PINS.torch).toBe(ENGINE_PROFILES.torchtitan.torch);
    for (const e of ['hf-trainer', 'hf-fsdp', 'hf-deepspeed'] as const)
      expect(HF_PINS.torch).toBe(ENGINE_PROFILES[e].torch);
    expect(UNSLOTH_PINS.torch).toBe(ENGINE_PROFILES.unsloth.torch);
  });

  it('gfx950 needs a torch installed from a ROCm 7.0+ variant; gfx942 and gfx90a run on every one', () => {
    expect(torchRocmRefusal('2.6.0', 'gfx950')).toMatch(/rocm6\.2\.4.*ROCm 7\.0/);
    expect(torchRocmRefusal('2.8.0', 'gfx950')).toMatch(/rocm6\.4/);
    for (const v of ['2.10.0', '2.12.1', '2.15.0'])
      expect(torchRocmRefusal(v, 'gfx950')).toBeNull();
    for (const v of ['2.6.0', '2.8.0']) {
      expect(torchRocmRefusal(v, 'gfx942')).toBeNull();
      expect(torchRocmRefusal(v, 'gfx90a')).toBeNull();
    }
  });

  it('refuses torchtune and LitGPT on MI355X, naming the engines that run there', () => {
    expect(torchRunsOn('torchtune', 'gfx950')).toBe(false);
    expect(torchRunsOn('litgpt', 'gfx950')).toBe(false);
    expect(torchRunsOn('torchtune', 'gfx942')).toBe(true);
    expect(enginesWithTorchOn('gfx950')).toEqual(
      expect.arrayContaining(['hf-trainer', 'torchtitan', 'unsloth']),
    );
    expect(enginesWithTorchOn('gfx950')).not.toContain('torchtune');
    expect(torchTargetRefusal('torchtune', 'gfx950')).toMatch(
      /torchtune's pinned torch has no gfx950 kernels: torch 2\.6\.0.*pytorch\/pytorch#167299.*hf-trainer/,
    );
    expect(torchTargetRefusal('torchtune', '9.0')).toBeNull();
    expect(torchTargetRefusal('vllm', 'gfx950')).toBeNull();
    const mi355 = (framework: string, gpu: string) =>
      runCli([
        'estimate',
        '--model',
        'llama-3.1-8b',
        '--method',
        'lora',
        '--framework',
        framework,
        '--gpu',
        gpu,
      ]);
    const tune = mi355('torchtune', 'mi355x');
    expect(tune.status).toBe(1);
    expect(tune.stderr.trim().split('\n')).toHaveLength(1);
    expect(tune.stderr).toMatch(/--gpu: got 'mi355x'.*torchtune's pinned torch has no gfx950/);
    expect(mi355('litgpt', 'mi355x').status).toBe(1);
    for (const gpu of ['mi300x', 'mi325x']) expect(mi355('torchtune', gpu).status).toBe(0);
    expect(mi355('torchtitan', 'mi355x').status).toBe(0);
  });

  it('the planner does not rank torchtune on MI355X, and does on MI300X', () => {
    const yaml = (gpu: string) => `name: tune-${gpu}
model: llama-3.1-8b
job: { kind: fine-tune, methods: [lora], seq: 2048, globalBatch: 16, datasetTokens: 1000000 }
search: { engines: [torchtune, hf-trainer] }
hardware: { owned: [{ gpu: ${gpu}, count: 1 }], counts: { min: 1, max: 1 } }
rank: time
`;
    const engines = (gpu: string) =>
      new Set(planYaml(`tune-${gpu}.yaml`, yaml(gpu), 20).plans.map((p) => p.choices.engine));
    expect(engines('mi355x').has('torchtune')).toBe(false);
    expect(engines('mi355x').has('hf-trainer')).toBe(true);
    expect(engines('mi300x').has('torchtune')).toBe(true);
  });
});

describe('launch on MI355X', () => {
  it('writes no torchtune folder there, and does on MI300X', () => {
    const input = (gpu: string) =>
      launchInputOf('llama-3.1-8b', gpu, { method: 'lora', framework: 'torchtune' });
    expect(launchBlocker(input('mi355x'), 'torchtune')).toMatch(/pinned torch has no gfx950/);
    expect(launchBlocker(input('mi300x'), 'torchtune')).toBeNull();
  });
});
