/**
 * Preference and RL objectives: memory and time by mechanism, one-line errors, and --from of TRL,
 * axolotl and LLaMA-Factory preference / GRPO configs.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildEstimate } from '../../src/core/estimate.js';
import { assertStructure } from '../../src/core/model/index.js';
import { mergeFlags } from '../../src/core/from/index.js';
import { launchBlocker } from '../../src/core/launch/index.js';
import { defaultOptions } from '../../src/schema/estimate.js';
import { readFromConfig } from '../../src/io/from/read.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags, type RawFlags } from '../../src/schema/flags.js';

/** The error `f` throws (FlagError from the flags, UserError from the structure check). */
function errorOf(f: () => unknown): Error {
  try {
    f();
  } catch (e) {
    return e as Error;
  }
  throw new Error('no error thrown');
}

const llama = resolveModel('llama-3-8b');
const qwen = resolveModel('qwen2.5-7b');
const h100 = findGpu('h100-sxm');
const est = (flags: RawFlags, arch = llama) => buildEstimate(arch, optionsFromFlags(flags), h100);
const GiB = 2 ** 30;

describe('preference objectives: memory by mechanism', () => {
  it('full DPO exceeds SFT by the reference copy plus the doubled sequences', () => {
    for (const seq of [512, 2048])
      for (const batch of [1, 2]) {
        const base = { method: 'full', seq, batch };
        const sft = est(base);
        const dpo = est({ ...base, objective: 'dpo' });
        const doubled = est({ ...base, batch: 2 * batch });
        const ref = dpo.perGpu.breakdown.referenceModel!;
        // A frozen copy of every parameter in the compute dtype (bf16).
        expect(ref).toBe(Math.round(dpo.params.total * 2));
        expect(dpo.perGpu.breakdown.activations).toBe(doubled.perGpu.breakdown.activations);
        expect(dpo.perGpu.allocatedBytes).toBeGreaterThanOrEqual(
          doubled.perGpu.allocatedBytes + ref,
        );
        expect(dpo.perGpu.deviceBytes - sft.perGpu.deviceBytes).toBeGreaterThan(ref);
      }
  });

  it('LoRA DPO carries no second weight copy (adapters disabled serve as the reference)', () => {
    const lora = est({ method: 'lora', objective: 'dpo' });
    expect(lora.options.reference).toBe('model');
    expect(lora.perGpu.breakdown.referenceModel).toBe(0);
    expect(lora.perGpu.breakdown.weights).toBe(est({ method: 'lora' }).perGpu.breakdown.weights);
  });

  it('precomputed reference log-probs and reference-free losses hold no reference', () => {
    for (const flags of [
      { objective: 'dpo', reference: 'precomputed' },
      { objective: 'orpo' },
      { objective: 'simpo' },
    ]) {
      const r = est({ method: 'full', ...flags });
      expect(r.perGpu.breakdown.referenceModel).toBe(0);
      expect(r.time!.phases.find((p) => p.phase === 'reference-logprobs')!.seconds).toBe(0);
    }
  });

  it('ORPO and SimPO under Liger keep their whole logits: the trainers read outputs.logits, passing no labels', () => {
    // TRL v1.9.0 experimental ORPOTrainer / CPOTrainer call model(...) without labels, and Liger's patched forward
    // fuses the loss only when labels are passed: the logits are those of the run without Liger.
    for (const objective of ['orpo', 'simpo']) {
      const base = { method: 'lora', objective, seq: 2048, framework: 'hf-trainer' };
      const liger = est({ ...base, liger: true });
      const plain = est(base);
      expect(liger.perGpu.breakdown.logits).toBe(plain.perGpu.breakdown.logits);
      expect(liger.perGpu.breakdown.logits).toBeGreaterThan(GiB);
      expect(est({ ...base, 'chunked-loss': true }).perGpu.breakdown.logits).toBe(
        plain.perGpu.breakdown.logits,
      );
      // Liger's norm and SwiGLU kernels still run: fewer saved activations than without them.
      expect(liger.perGpu.breakdown.activations).toBeLessThan(plain.perGpu.breakdown.activations);
      // The step times the unfused loss, so it pays no chunked output layer (Liger's fused loss runs the head in
      // short GEMMs, kernels/liger.ts): Liger's norm and SwiGLU kernels only shorten it.
      expect(liger.time!.stepSeconds).toBeLessThan(plain.time!.stepSeconds);
    }
    // DPO's trainer runs Liger's fused DPO loss (dpo_trainer.py use_liger_kernel): no whole logits.
    const dpo = { method: 'lora', objective: 'dpo', seq: 2048, framework: 'hf-trainer' };
    expect(est({ ...dpo, liger: true }).perGpu.breakdown.logits).toBeLessThan(
      est(dpo).perGpu.breakdown.logits / 4,
    );
  });

  it('SFT options and bytes are unchanged without --objective', () => {
    const a = est({ method: 'lora' });
    const b = est({ method: 'lora', objective: 'sft' });
    expect(b).toEqual(a);
    expect('objective' in a.options).toBe(false);
    expect('referenceModel' in a.perGpu.breakdown).toBe(false);
  });
});

describe('GRPO: the rollout engine', () => {
  it('vLLM colocated takes its share of the card: its weights and KV pool', () => {
    const r = est({ method: 'lora', objective: 'grpo', rollout: 'vllm-colocate' }, qwen);
    const b = r.perGpu.breakdown;
    expect(b.rolloutWeights).toBeGreaterThan(14 * GiB);
    expect(b.rolloutWeights! + b.rolloutKvCache!).toBeCloseTo(0.3 * r.gpu!.capacityBytes, -3);
    const half = est(
      { method: 'lora', objective: 'grpo', rollout: 'vllm-colocate', 'rollout-memory': 0.5 },
      qwen,
    );
    expect(half.perGpu.deviceBytes).toBeGreaterThan(r.perGpu.deviceBytes);
  });

  it('Unsloth shares the weights between training and vLLM', () => {
    const r = est(
      { method: 'lora', objective: 'grpo', rollout: 'vllm-colocate', framework: 'unsloth' },
      qwen,
    );
    expect(r.perGpu.breakdown.rolloutWeights).toBe(0);
    expect(r.perGpu.breakdown.rolloutKvCache).toBeGreaterThan(0);
  });

  it('server mode holds no rollout memory on the trainer GPUs and trains on the rest', () => {
    const r = est(
      { method: 'lora', objective: 'grpo', rollout: 'vllm-server', gpus: 4, 'rollout-gpus': 1 },
      qwen,
    );
    expect(r.perGpu.breakdown.rolloutWeights).toBe(0);
    expect(r.perGpu.breakdown.rolloutKvCache).toBe(0);
    expect(r.parallel.dp).toBe(3);
  });

  it('names the rollout, reference, training and sync times, summing to the step', () => {
    for (const rollout of ['hf', 'vllm-colocate', 'vllm-server']) {
      const r = est(
        { method: 'lora', objective: 'grpo', rollout, gpus: 2, reference: 'model', batch: 8 },
        qwen,
      );
      const ph = Object.fromEntries(r.time!.phases.map((p) => [p.phase, p.seconds]));
      expect(ph.rollout).toBeGreaterThan(0);
      expect(ph['reference-logprobs']).toBeGreaterThan(0);
      const sum =
        ph.rollout! + ph['reference-logprobs']! + ph['policy-training']! + ph['weight-sync']!;
      // Each phase and the step are rounded to 4 significant digits (time/objective.ts): within that of the sum.
      expect(Math.abs(r.time!.stepSeconds - sum)).toBeLessThanOrEqual(1.5e-3 * sum);
    }
  });

  it('transformers generate is slower than vLLM for the same completions', () => {
    const t = (rollout: string) =>
      est({ method: 'lora', objective: 'grpo', rollout, batch: 8 }, qwen).time!.phases.find(
        (p) => p.phase === 'rollout',
      )!.seconds;
    expect(t('hf')).toBeGreaterThan(t('vllm-colocate'));
  });

  it('GRPO defaults are TRL v1.9.0: 8 generations, 256 completion tokens, no reference (beta 0), hf rollout', () => {
    const o = optionsFromFlags({ objective: 'grpo' });
    expect(o).toMatchObject({
      generations: 8,
      completionTokens: 256,
      promptTokens: 512,
      seq: 768,
      reference: 'none',
      rollout: 'hf',
    });
  });
});

describe('bad input: one line naming the flag', () => {
  const cases: [RawFlags, string][] = [
    [{ objective: 'grpo', generations: 0 }, '--generations'],
    [{ objective: 'grpo', rollout: 'vllm-server' }, '--rollout'],
    [{ objective: 'grpo', rollout: 'vllm-server', gpus: 4, 'rollout-gpus': 4 }, '--rollout-gpus'],
    [{ objective: 'grpo', reference: 'precomputed' }, '--reference'],
    [{ objective: 'dpo', reference: 'none', method: 'full' }, '--reference'],
    [{ objective: 'grpo', 'rollout-memory': 1.5, rollout: 'vllm-colocate' }, '--rollout-memory'],
    [{ generations: 4 }, '--generations'],
  ];
  for (const [flags, flag] of cases)
    it(`${JSON.stringify(flags)} → ${flag}`, () => {
      const e = errorOf(() => optionsFromFlags(flags));
      expect(e.message.startsWith(flag)).toBe(true);
      expect(e.message).not.toContain('\n');
    });

  it('a completion longer than the model positions names --completion-tokens', () => {
    const o = optionsFromFlags({ objective: 'grpo', 'completion-tokens': 200_000 });
    const e = errorOf(() => assertStructure(qwen, o));
    expect(e.message).toContain('--completion-tokens');
  });
});

describe('--from preference and GRPO configs', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vramplan-rl-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const read = (name: string, text: string) => {
    writeFileSync(join(dir, name), text);
    const c = readFromConfig(join(dir, name));
    return optionsFromFlags(mergeFlags(c, {}));
  };

  it('TRL GRPOConfig YAML: generations, completion, vLLM mode and share, beta', () => {
    const o = read(
      'grpo.yaml',
      'model_name_or_path: Qwen/Qwen2.5-7B\nper_device_train_batch_size: 8\nnum_generations: 8\nmax_completion_length: 512\nuse_vllm: true\nvllm_mode: colocate\nvllm_gpu_memory_utilization: 0.4\nbeta: 0.04\n',
    );
    expect(o).toMatchObject({
      objective: 'grpo',
      generations: 8,
      // max_completion_length is the longest completion: the mean is floor(512 / 1.47) = 348.
      completionTokens: 348,
      rollout: 'vllm-colocate',
      rolloutMemory: 0.4,
      reference: 'model',
    });
  });

  it('TRL GRPOConfig vllm_enable_sleep_mode reads as --rollout-sleep', () => {
    const base =
      'model_name_or_path: Qwen/Qwen2.5-7B\nnum_generations: 8\nuse_vllm: true\nvllm_enable_sleep_mode: true\n';
    expect(read('sleep.yaml', `${base}vllm_mode: colocate\n`).rolloutSleep).toBe(true);
    expect(
      read('awake.yaml', base.replace('true\n', 'false\n') + 'vllm_mode: colocate\n').rolloutSleep,
    ).toBeUndefined();
  });

  it('TRL DPOConfig JSON', () => {
    const o = read(
      'dpo.json',
      JSON.stringify({
        model_name_or_path: 'x',
        per_device_train_batch_size: 2,
        max_length: 1024,
        beta: 0.1,
        precompute_ref_log_probs: true,
      }),
    );
    expect(o).toMatchObject({ objective: 'dpo', reference: 'precomputed', seq: 1024 });
  });

  it('axolotl rl: and LLaMA-Factory stage: map to the objective', () => {
    expect(
      read('ax.yaml', 'base_model: x\nrl: orpo\nadapter: lora\nsequence_len: 1024\n').objective,
    ).toBe('orpo');
    expect(
      read(
        'ax2.yaml',
        'base_model: x\nrl: grpo\ntrl:\n  num_generations: 4\n  use_vllm: true\n  vllm_mode: colocate\n',
      ).generations,
    ).toBe(4);
    expect(
      read(
        'lf.yaml',
        'model_name_or_path: x\nstage: dpo\nfinetuning_type: lora\ncutoff_len: 1024\n',
      ).objective,
    ).toBe('dpo');
    expect(
      read('lf2.yaml', 'model_name_or_path: x\nstage: kto\nfinetuning_type: lora\n').objective,
    ).toBe('kto');
  });
});

describe('launch: preference and RL objectives are written where a launcher writes them', () => {
  it('launchBlocker passes DPO on the HF engines (TRL) and torchtune, KTO on Unsloth with two completions a micro-batch', () => {
    const arch = resolveModel('llama-3-8b');
    const sft = { ...defaultOptions('lora') };
    expect(launchBlocker({ arch, options: sft })).toBeNull();
    expect(
      launchBlocker({ arch, options: { ...sft, objective: 'dpo', reference: 'model' } }),
    ).toBeNull();
    const tune = { ...sft, framework: 'torchtune' as const, objective: 'dpo' as const };
    expect(launchBlocker({ arch, options: { ...tune, reference: 'model' } })).toBeNull();
    const kto = { ...sft, framework: 'unsloth' as const, objective: 'kto' as const };
    expect(launchBlocker({ arch, options: { ...kto, reference: 'model', batch: 1 } })).toMatch(
      /KTOTrainer needs a micro-batch of at least 2/,
    );
    expect(launchBlocker({ arch, options: { ...kto, reference: 'model', batch: 2 } })).toBeNull();
  });
});

describe('GRPO vLLM server sizes the search tries', () => {
  it('every count within a node, then doubling node counts up to half the GPUs', async () => {
    const { serverGpuCounts } = await import('../../src/core/plan/objective.js');
    expect(serverGpuCounts(4)).toEqual([1, 2, 3, 4]);
    expect(serverGpuCounts(12)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    const big = serverGpuCounts(4000);
    expect(big.slice(0, 8)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(big.slice(8)).toEqual([16, 32, 64, 128, 256, 512, 1024, 2048]);
  });
});
