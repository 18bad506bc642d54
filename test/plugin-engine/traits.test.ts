// A newly registered engine gets the flag checks' traits from its profile alone: the test engine of
// test/plugin-engine/toytrain (no file of src/ names it) loads a tiled MLP and is named by `launch --sharding
// fsdp`, and `--tiled-mlp` and `--sharding` accept it once it is registered; `check` reads its log lines.
import { describe, expect, it } from 'vitest';
import { parseTrainLog } from '../../src/core/check/logs.js';
import { registerEngine } from '../../src/core/engines/registry.js';
import { shardingFrameworks, shardingKinds } from '../../src/core/engines/sharding-flag.js';
import { launchInputFromFlags, type LaunchFlags } from '../../src/commands/launch-run.js';
import { enginesWith, frameworksWith } from '../../src/schema/engine.js';
import { flagsFromOptions, optionsFromFlags } from '../../src/schema/flags.js';
import { TOYTRAIN } from './toytrain/index.js';

// The built-in engines' traits, then the same tables with the test engine registered.
const toyLog = 'toy step 1: 2.5 s\ntoy step 2: 2.0 s\n';
const before = {
  log: parseTrainLog(toyLog).format,
  tiled: frameworksWith('tiledMlp'),
  kinds: shardingKinds(),
  frameworks: shardingFrameworks(),
};
registerEngine(TOYTRAIN);

const lora = { method: 'lora', 'tiled-mlp': true };
const zero3 = { method: 'full', zero: 3, gpus: 2, gpu: 'h100-sxm' };
const launchOn = (framework: string, sharding: string) =>
  launchInputFromFlags('llama-3.1-8b', { ...zero3, framework }, {
    sharding,
    out: 'unused',
    force: false,
  } as LaunchFlags).options.framework;

describe('a plug-in engine declares flag traits in its profile', () => {
  it('the trait tables list it after the built-in engines', () => {
    expect(before.tiled).toEqual(['unsloth']);
    expect(enginesWith('tiledMlp')).toEqual(['unsloth', 'toytrain']);
    expect(frameworksWith('tiledMlp')).toEqual(['unsloth', 'toytrain']);
    expect(before.frameworks).toEqual(['hf', 'deepspeed']);
    expect(shardingFrameworks()).toEqual(['hf', 'deepspeed', 'toytrain']);
    expect(shardingKinds()).toEqual(before.kinds);
  });

  it('--tiled-mlp is accepted on it, and the refusal elsewhere names it', () => {
    expect(optionsFromFlags({ ...lora, framework: 'toytrain' }).tiledMlp).toBe(true);
    expect(() => optionsFromFlags({ ...lora, framework: 'torchtune' })).toThrow(
      /loader\.py: --framework unsloth or toytrain\)$/,
    );
  });

  it('launch --sharding keeps its plan on it, and the refusal elsewhere names it', () => {
    expect(launchOn('toytrain', 'fsdp')).toBe('toytrain');
    // The built-in choices are unchanged: the kind picks the engine whatever the Trainer family name given.
    expect(launchOn('hf', 'fsdp')).toBe('hf');
    expect(launchOn('hf', 'deepspeed')).toBe('deepspeed');
    expect(launchOn('deepspeed', 'fsdp')).toBe('hf');
    expect(() => launchOn('vllm', 'fsdp')).toThrow(
      /no value with --framework vllm \(it chooses between the hf, deepspeed and toytrain engines\)/,
    );
    expect(() => launchOn('toytrain', 'zz')).toThrow(/expected deepspeed or fsdp$/);
  });

  it('its id as --framework writes the engine-dependent defaults back into an estimate command', () => {
    const o = optionsFromFlags({ method: 'lora', framework: 'toytrain' });
    expect(flagsFromOptions(o)).toMatchObject({ framework: 'toytrain', checkpointing: 'none' });
  });

  it("check reads its training log lines with its registration's reader", () => {
    expect(before.log).toBeNull();
    expect(parseTrainLog(toyLog)).toMatchObject({ format: 'toytrain', stepSeconds: 2, steps: 2 });
  });
});
