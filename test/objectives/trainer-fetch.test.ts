/**
 * What TRL's GRPO rollout and weight sync fetch of a sharded or offloaded policy, and the server sync's requests
 * (time/trainer-fetch.ts): under DeepSpeed ZeRO-3 the trainer's generate gathers every parameter once per generate
 * call (trl/models/utils.py GatheredParameters); under FSDP FULL_SHARD every forward of the generate gathers each unit
 * again (only the root is summoned); the sync to vLLM gathers the whole policy once; trl vllm-serve takes one request
 * per named parameter tensor (huggingface/trl#5249 for its cost) where TRL before v0.16 loaded its in-process vLLM in
 * one call.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { paramCounts } from '../../src/core/model/params.js';
import { policyOptions } from '../../src/core/memory/objective.js';
import {
  objectiveStep,
  objectiveWork,
  type ObjectivePhases,
} from '../../src/core/time/objective.js';
import { gpuRates, modelFacts, trainWork } from '../../src/core/time/index.js';
import { namedTensors, passFetchSeconds, trainerFetch } from '../../src/core/time/trainer-fetch.js';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { longestCompletion } from '../../src/core/time/completion-length.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags, type RawFlags } from '../../src/schema/flags.js';
import { timeOptionsFromFlags, type TimeOptions } from '../../src/schema/time.js';

const RUNS = Number(process.env.VRAMPLAN_FC_RUNS ?? 100);
const SEED = Number(process.env.VRAMPLAN_FC_SEED ?? 20261207);

// huggingface/trl#5249: Qwen2-0.5B's server-mode sync, 0.6 s per request per tensor, 0.15 s batched.
const TRL5249_REQUEST_SECONDS = (0.6 - 0.15) / 290;

function grpoStep(model: string, flags: RawFlags, time: Partial<TimeOptions> = {}) {
  const f: RawFlags = {
    model,
    gpu: 'rtx-4090',
    method: 'lora',
    objective: 'grpo',
    framework: 'hf-deepspeed',
    rollout: 'hf',
    batch: 4,
    generations: 4,
    'grad-accum': 2,
    'prompt-tokens': 128,
    'completion-tokens': 256,
    ...flags,
  };
  const arch = resolveModel(model);
  const gpu = findGpu(String(f.gpu));
  const o = optionsFromFlags(f);
  const t = { ...timeOptionsFromFlags(f, o), ...time };
  const m = modelFacts(arch);
  const r = gpuRates(gpu, t);
  // The step's phases unrounded (estimateObjectiveTime keeps 4 digits).
  const phases: ObjectivePhases = {
    rollout: 0,
    referenceLogprobs: 0,
    policyTraining: 0,
    weightSync: 0,
  };
  objectiveStep(m, objectiveWork(m, o, t, paramCounts(arch).total), t, r, phases);
  const w = trainWork(m, policyOptions(o), t);
  const share = trainerFetch(FRAMEWORKS[o.framework], m, t, true, 0).rootShare;
  return { phases, fetch: passFetchSeconds(w, r), o, share };
}

const rollout = (x: ReturnType<typeof grpoStep>) => x.phases.rollout;
const sync = (x: ReturnType<typeof grpoStep>) => x.phases.weightSync;

describe("the trainer's generate on a sharded policy", () => {
  it('named tensors as named_parameters lists them: Qwen2-0.5B 290 (the source of the request cost), Qwen3-4B 398', () => {
    expect(namedTensors(resolveModel('qwen2-0.5b'))).toBe(290);
    // 36 x (7 linears, 2 norms, q and k norms) + embed_tokens + norm; tied head.
    expect(namedTensors(resolveModel('qwen3-4b'))).toBe(36 * 11 + 2);
  });

  it('ZeRO-3 gathers the policy once per generate call, whatever the completion length', () => {
    const z3 = (c: number) =>
      grpoStep('qwen2.5-0.5b', { zero: 3, gpus: 2, 'completion-tokens': c });
    const z2 = (c: number) =>
      grpoStep('qwen2.5-0.5b', { zero: 2, gpus: 2, 'completion-tokens': c });
    const short = rollout(z3(64)) - rollout(z2(64));
    const long = rollout(z3(1024)) - rollout(z2(1024));
    const f = z3(64).fetch;
    expect(f).toBeGreaterThan(0);
    // One generation batch a step (steps_per_generation = grad-accum): one gather .
    expect(Math.abs(short - f) / f).toBeLessThan(1e-9);
    expect(Math.abs(long - f) / f).toBeLessThan(1e-9);
  });

  it('FSDP FULL_SHARD gathers every unit at each forward of the generate: the wait grows with the decode steps', () => {
    const run = (zero: number, c: number) =>
      grpoStep('qwen2.5-0.5b', {
        framework: 'hf-fsdp',
        zero,
        gpus: 2,
        'completion-tokens': c,
        'max-completion-tokens': c,
      });
    const extra = (c: number) => rollout(run(3, c)) - rollout(run(2, c));
    expect(extra(512)).toBeGreaterThan(4 * extra(64));
    // No forward ends before its parameters arrive: the root unit (embeddings; summoned once a generate call), then
    // the decoder layers' units at the prefill and at each decode step.
    const x = run(3, 512);
    expect(x.share).toBeGreaterThan(0);
    expect(x.share).toBeLessThan(0.5);
    const steps = longestCompletion(512, 512, x.o.batch * 2);
    const units = x.fetch * (1 - x.share);
    expect(rollout(x)).toBeGreaterThanOrEqual(0.999 * (x.fetch * x.share + (steps + 1) * units));
  });

  it('an unsharded, resident policy fetches nothing', () => {
    const x = grpoStep('qwen2.5-0.5b', { framework: 'hf', zero: 0, gpus: 1 });
    expect(x.fetch).toBe(0);
  });
});

describe('the weight sync to vLLM', () => {
  it('trl vllm-serve: one request per named tensor; TRL before v0.16 loads its own vLLM in one call', () => {
    const flags: RawFlags = {
      framework: 'hf',
      rollout: 'vllm-server',
      gpus: 2,
      'rollout-gpus': 1,
      zero: 0,
    };
    const perTensor = grpoStep('qwen3-4b', flags);
    const oneCall = grpoStep('qwen3-4b', flags, { vllmSyncOneCall: true });
    expect(sync(perTensor) - sync(oneCall)).toBeCloseTo(398 * TRL5249_REQUEST_SECONDS, 3);
  });

  it('a colocated vLLM takes no requests', () => {
    const a = grpoStep('qwen3-4b', { framework: 'hf', rollout: 'vllm-colocate', zero: 0 });
    const b = grpoStep(
      'qwen3-4b',
      { framework: 'hf', rollout: 'vllm-colocate', zero: 0 },
      { vllmSyncOneCall: true },
    );
    expect(sync(a)).toBe(sync(b));
  });

  it('property: under ZeRO-3 the sync gathers the policy once, on top of what it sends', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('qwen2.5-0.5b', 'qwen3-4b'),
        fc.constantFrom(2, 4, 8),
        fc.constantFrom<'vllm-colocate' | 'vllm-server'>('vllm-colocate', 'vllm-server'),
        fc.integer({ min: 16, max: 2048 }),
        (model, gpus, r, c) => {
          // Server mode: the trainer's ranks beside one vLLM GPU.
          const base: RawFlags = {
            rollout: r,
            gpus: r === 'vllm-server' ? gpus + 1 : gpus,
            ...(r === 'vllm-server' ? { 'rollout-gpus': 1 } : {}),
            'completion-tokens': c,
            method: 'full',
          };
          const z3 = grpoStep(model, { ...base, zero: 3 });
          const z2 = grpoStep(model, { ...base, zero: 2 });
          expect(z3.fetch).toBeGreaterThan(0);
          expect(Math.abs(sync(z3) - sync(z2) - z3.fetch) / z3.fetch).toBeLessThan(1e-9);
        },
      ),
      { numRuns: Math.min(RUNS, 40), seed: SEED },
    );
  });
});
