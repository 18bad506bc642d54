// Refusals that cite the refusing engine's own source: the FP8 capability check of each engine that trains in FP8
// (torchtitan 0.3.0's converters, Accelerate 1.15.0's fp8 check and Transformer Engine autowrap, Unsloth
// 2026.10.9's float8_training); Liger where an engine has none; sequence and loss parallelism under the Trainer's TP
// plans (transformers 5.14.1).
import { describe, expect, it } from 'vitest';
import '../../src/core/engines/registry.js';
import { engineRefusal, withEngineDefaults } from '../../src/core/engines/defaults.js';
import { ENGINE_RUNS, float8CheckSource } from '../../src/core/engines/engines-runs.js';
import { ENGINE_PROFILES } from '../../src/core/engines/engines.js';
import { runsProfile } from '../../src/core/engines/runs.js';
import { resolveModel } from '../../src/io/load-model.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { estimateChecks } from '../../src/commands/estimate-run.js';

const small = resolveModel('llama-3.2-1b');
const FLOAT8_COMPUTES = ['fp8', 'mxfp8'] as const;
const ACCELERATE_WHEEL = 'https://pypi.org/project/accelerate/1.15.0/ (wheel) accelerate';
const TITAN_QUANT =
  'https://pypi.org/project/torchtitan/0.3.0/ (wheel) torchtitan/components/quantization';
const UNSLOTH_FLOAT8 =
  'https://pypi.org/project/unsloth/2026.10.9/ (wheel) unsloth/models/float8_training.py';

const run = (flags: Record<string, unknown>, gpu: string) => {
  const o = withEngineDefaults(optionsFromFlags(flags), flags);
  return () => estimateChecks(small, o, flags as never, findGpu(gpu));
};

describe('the FP8 GPU-capability refusal cites the engine that refuses', () => {
  const full = { method: 'full', gpus: 1 };
  it.each([
    ['torchtitan', 'fp8', 'a100-80gb-sxm', `${TITAN_QUANT}/float8.py:85-96`],
    ['torchtitan', 'mxfp8', 'h100-sxm', `${TITAN_QUANT}/mx.py:70-71`],
    ['hf', 'fp8', 'a100-80gb-sxm', `${ACCELERATE_WHEEL}/state.py:931-942`],
    ['hf', 'mxfp8', 'h100-sxm', `${ACCELERATE_WHEEL}/utils/transformer_engine.py:157-168`],
    ['deepspeed', 'fp8', 'a100-80gb-sxm', `${ACCELERATE_WHEEL}/state.py:931-942`],
    ['unsloth', 'fp8', 'a100-80gb-sxm', `${UNSLOTH_FLOAT8}:199-205`],
  ])('%s --compute %s on %s', (framework, compute, gpu, source) => {
    const flags = {
      ...full,
      framework,
      compute,
      ...(framework === 'deepspeed' ? { zero: 2 } : {}),
    };
    const f = run(flags, gpu);
    expect(f).toThrow(`--compute: got '${compute}'`);
    expect(f).toThrow(source);
    // Another engine's file is not cited.
    if (framework !== 'torchtitan') expect(f).not.toThrow(/torchtitan/);
  });
  it('passes the GPUs whose FP8 kernels exist, on every engine', () => {
    for (const framework of ['torchtitan', 'hf', 'unsloth'])
      expect(run({ ...full, framework, compute: 'fp8' }, 'h100-sxm'), framework).not.toThrow();
  });
  it('every engine that trains a recipe names its own check for it', () => {
    for (const [engine, runs] of Object.entries(ENGINE_RUNS)) {
      const p = runsProfile(ENGINE_PROFILES[engine as keyof typeof ENGINE_PROFILES], runs);
      for (const compute of FLOAT8_COMPUTES) {
        const trains = (p.float8 ?? []).includes(compute);
        expect(runs.float8Check?.[compute] !== undefined, `${engine} ${compute}`).toBe(trains);
        if (trains) expect(float8CheckSource(engine as never, compute)).toMatch(/^https:\/\//);
      }
    }
  });
});

describe('--liger on an engine without Liger cites that engine', () => {
  it.each([
    [
      'torchtune',
      /torchtune 0\.6\.1 has no Liger integration: .*pytorch\/torchtune\/blob\/v0\.6\.1\/recipes\//,
    ],
    [
      'torchtitan',
      /torchtitan 0\.3\.0 has no Liger integration: .*torchtitan\/config\/configs\.py/,
    ],
    ['litgpt', /LitGPT 0\.5\.13 has no Liger integration: .*litgpt\/finetune\/full\.py/],
    ['unsloth', /unsloth\/2026\.10\.9\/ \(wheel\) unsloth\/models\/dpo\.py:604/],
  ])('%s', (framework, source) => {
    const f = () => optionsFromFlags({ method: 'lora', framework, liger: true });
    expect(f).toThrow(/^--liger: got true; expected off with --framework /);
    expect(f).toThrow(source);
    expect(f).toThrow(/Liger kernels run on the hf engines hf-trainer, hf-fsdp, hf-deepspeed/);
  });
  it('every registered engine either loads Liger or says why not', () => {
    for (const [engine, runs] of Object.entries(ENGINE_RUNS)) {
      const p = ENGINE_PROFILES[engine as keyof typeof ENGINE_PROFILES];
      if (!p.methods.some((m) => m !== 'inference')) continue;
      expect(p.liger === true || runs.noLiger !== undefined, engine).toBe(true);
      expect(p.liger === true && runs.noLiger !== undefined, engine).toBe(false);
    }
  });
  it('the Trainer engines still take it', () => {
    for (const framework of ['hf', 'deepspeed'])
      expect(optionsFromFlags({ method: 'lora', framework, liger: true }).liger).toBe(true);
  });
});

describe("--sequence-parallel and --loss-parallel over the Trainer's TP plans (hf-fsdp)", () => {
  const llama = resolveModel('llama-3.1-8b');
  const tp = { framework: 'hf-fsdp', method: 'full', gpus: 4, tp: 2, zero: 3 };
  const refusal = (flags: Record<string, unknown>) =>
    engineRefusal(llama, withEngineDefaults(optionsFromFlags(flags), flags), flags);
  it.each([[{ 'sequence-parallel': true }], [{ 'loss-parallel': true }]])('refuses %o', (extra) => {
    expect(refusal({ ...tp, ...extra })).toMatch(
      /rule hf-tp-no-sequence-parallel: transformers ==5\.14\.1, .*distributed\/configuration_utils\.py#L37-L38/,
    );
  });
  it('estimates the same TP layout without them', () => {
    expect(refusal(tp)).toBeNull();
    expect(refusal({ ...tp, gpus: 8, tp: 4 })).toBeNull();
  });
});
