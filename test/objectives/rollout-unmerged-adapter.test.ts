/**
 * The trainer's own generate (`--rollout hf`) of a LoRA policy runs the adapters unmerged, eagerly: every adapted
 * linear issues its adapter's ops beside the base matmul (PEFT's lora.Linear.forward, or the engine's replacement:
 * FrameworkProfile.loraForwardOps). Where the eager decode step is bound by its dispatch, more adapted projections
 * never shorten the rollout; a full fine-tune and a vLLM rollout carry no such ops.
 */
import { describe, expect, it } from 'vitest';
import '../../src/core/engines/index.js';
import { paramCounts } from '../../src/core/model/params.js';
import { estimateObjectiveTime } from '../../src/core/time/objective.js';
import { LORA_OPS_PER_LINEAR, OPS_PER_LAYER_EAGER } from '../../src/core/time/train-work.js';
import { PEFT_GENERATE_LINEAR } from '../../src/core/engines/hf/lora-path.js';
import { UNSLOTH_GENERATE_LINEAR } from '../../src/core/engines/unsloth/lora-path.js';
import { FRAMEWORKS } from '../../src/core/engines/store.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags, type RawFlags } from '../../src/schema/flags.js';
import { timeOptionsFromFlags } from '../../src/schema/time.js';

// Gemma 3: Unsloth runs it with transformers' generate under its PEFT rewrite (FastModel); its Llama, Mistral and Qwen2
// rollouts decode through its own layer instead (unsloth-generate-decode.test.ts).
const arch = resolveModel('google/gemma-3-1b-it');
const h100 = findGpu('h100-sxm');
// PEFT's Python beyond its ops at a decode step, in eager ops (scripts/peft-decode-host.py).
const peftPython = PEFT_GENERATE_LINEAR.layers * OPS_PER_LAYER_EAGER - PEFT_GENERATE_LINEAR.kernels;

// A small model on a fast card: the eager step is host-bound, so the adapter's ops show.
const base: RawFlags = {
  model: 'google/gemma-3-1b-it',
  gpu: 'h100-sxm',
  compute: 'bf16',
  objective: 'grpo',
  generations: 4,
  batch: 4,
  'prompt-tokens': 128,
  'completion-tokens': 256,
  rollout: 'hf',
  method: 'lora',
  'lora-rank': 16,
};

function rollout(flags: RawFlags, loraForwardOps?: number, loraDropout?: boolean): number {
  const f = { ...base, ...flags };
  const o = optionsFromFlags(f);
  const t = { ...timeOptionsFromFlags(f, o), loraForwardOps, loraDropout };
  return estimateObjectiveTime(arch, o, h100, t, paramCounts(arch).total).objectivePhases.rollout;
}

describe('GRPO rollout by the trainer’s generate with the adapter unmerged', () => {
  it('more adapted projections never shorten it, and all seven cost more than q,v', () => {
    for (const framework of ['hf', 'unsloth']) {
      const qv = rollout({ framework, 'lora-targets': 'q,v' });
      const qkvo = rollout({ framework, 'lora-targets': 'q,k,v,o' });
      const all = rollout({ framework, 'lora-targets': 'all-linear' });
      expect(qkvo).toBeGreaterThanOrEqual(qv);
      expect(all).toBeGreaterThanOrEqual(qkvo);
      expect(all).toBeGreaterThan(qv);
    }
  });

  it('a full fine-tune decodes no adapter, so it is faster than any LoRA policy', () => {
    const full = rollout({ framework: 'hf', method: 'full', 'lora-targets': 'q,v' });
    expect(rollout({ framework: 'hf', 'lora-targets': 'q,v' })).toBeGreaterThan(full);
  });

  it("a measured build's own count (TimeOptions.loraForwardOps) replaces the engine's: none decodes as a full fine-tune", () => {
    const full = rollout({ framework: 'unsloth', method: 'full', 'lora-targets': 'q,v' });
    expect(rollout({ framework: 'unsloth', 'lora-targets': 'all-linear' }, 0)).toBe(full);
    const two = rollout({ framework: 'unsloth', 'lora-targets': 'all-linear' }, 2);
    expect(two).toBeGreaterThan(full);
    expect(two).toBeLessThan(rollout({ framework: 'unsloth', 'lora-targets': 'all-linear' }));
  });

  it("TRL generates in training mode: a run's LoRA dropout adds one kernel on each adapted linear's input", () => {
    const t = { 'lora-targets': 'all-linear' };
    const plain = rollout({ ...t, framework: 'hf' });
    const dropped = rollout({ ...t, framework: 'hf' }, undefined, true);
    expect(dropped).toBeGreaterThan(plain);
    // PEFT's forward and its Python plus nn.Dropout's native_dropout, the same as a build counted one op more.
    expect(dropped).toBeCloseTo(rollout({ ...t, framework: 'hf' }, LORA_OPS_PER_LINEAR + 1), 9);
    // A vLLM rollout decodes no PEFT module; a full fine-tune has no adapter; Unsloth's profile counts none.
    const vllm = { ...t, framework: 'hf', rollout: 'vllm-colocate' };
    expect(rollout(vllm, undefined, true)).toBe(rollout(vllm));
    const full = { ...t, framework: 'hf', method: 'full' };
    expect(rollout(full, undefined, true)).toBe(rollout(full));
    const unsloth = { ...t, framework: 'unsloth' };
    expect(rollout(unsloth, undefined, true)).toBe(rollout(unsloth));
  });

  it("Unsloth's replaced LoRA forward issues fewer ops than PEFT's: a shorter rollout at the same targets", () => {
    const t = { 'lora-targets': 'all-linear' };
    expect(rollout({ ...t, framework: 'unsloth' })).toBeLessThan(
      rollout({ ...t, framework: 'hf' }),
    );
  });

  it("PEFT's own forward costs its measured host time, more than its ops alone; a build's own count replaces its ops", () => {
    const t = { 'lora-targets': 'all-linear', framework: 'hf' };
    // 0.2 of a decoder layer's host time an adapted linear, whose kernels are 5 of the layer's 45: 4 ops of Python.
    expect(peftPython).toBeCloseTo(4, 9);
    const peft = rollout(t);
    expect(peft).toBe(rollout(t, LORA_OPS_PER_LINEAR));
    expect(peft).toBeGreaterThan(rollout(t, 1));
    // Unsloth replaces PEFT's forward (its loraForwardOps), and its own Python replaces PEFT's.
    const unsloth = { ...t, framework: 'unsloth' };
    expect(rollout(unsloth)).toBe(rollout(unsloth, 4));
  });
});

describe("Unsloth's rewrite of PEFT's forward at the trainer's generate", () => {
  // Unsloth's Python beyond its ops at a decode step, in eager ops (scripts/measure/unsloth_lora_forward_host.py).
  const unslothPython =
    UNSLOTH_GENERATE_LINEAR.layers * OPS_PER_LAYER_EAGER - UNSLOTH_GENERATE_LINEAR.kernels;
  const t = { 'lora-targets': 'all-linear', framework: 'unsloth' };

  it('the profile carries its measured host time', () => {
    expect(FRAMEWORKS.unsloth?.loraForwardHost).toEqual(UNSLOTH_GENERATE_LINEAR);
    expect(unslothPython).toBeGreaterThan(0);
  });

  it("adds its Python to each adapted linear beside its ops, a build's own count included; none runs no adapter", () => {
    // Host-bound eager decode: the rollout is nearly affine in an adapted linear's ops; the Python shows as its offset.
    const full = rollout({ ...t, method: 'full', 'lora-targets': 'q,v' });
    expect(rollout(t, 0)).toBe(full);
    const two = rollout(t, 2);
    const perOp = rollout(t, 3) - two;
    expect(perOp).toBeGreaterThan(0);
    expect((two - full) / perOp - 2).toBeCloseTo(unslothPython, 1);
    expect((rollout(t) - full) / perOp - 4).toBeCloseTo(unslothPython, 1);
  });
});
