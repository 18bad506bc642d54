// PPO (--objective ppo, TRL v1.9.0 trl/experimental/ppo): the value and reward models in memory, the step's
// phases in time, and what TRL's PPOTrainer refuses.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildEstimate } from '../../src/core/estimate.js';
import { engineOf, onEngine } from '../../src/core/engines/index.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { runCli } from '../helpers/run-cli.js';

const MODEL = 'llama-3.2-1b';

function estimate(flags: Record<string, unknown>) {
  const arch = resolveModel(MODEL);
  const asked = optionsFromFlags({ framework: 'hf', ...flags });
  const options = onEngine(asked, engineOf(asked));
  return buildEstimate(arch, options, findGpu('h100-sxm'));
}

describe('PPO memory', () => {
  it('holds a trained value model and a frozen reward model beside the policy and its reference', () => {
    const ppo = estimate({ method: 'full', objective: 'ppo' });
    const b = ppo.perGpu.breakdown;
    const sft = estimate({ method: 'full', batch: 8, seq: 565 });
    const s = sft.perGpu.breakdown;
    // The reward model and the reference: frozen copies in the compute dtype, the policy's size.
    expect(b.rewardModel).toBe(s.weights);
    expect(b.referenceModel).toBe(s.weights);
    // The value model trains fully: its weights, gradients, optimizer states and activations (no vocabulary logits).
    expect(b.valueModel).toBeCloseTo(s.weights + s.gradients + s.optimizer + s.activations, -6);
    expect(ppo.perGpu.deviceBytes).toBeGreaterThan(sft.perGpu.deviceBytes + b.valueModel!);
  });

  it('with LoRA the reference is the policy with adapters off, but the value model still trains fully', () => {
    const lora = estimate({ method: 'lora', objective: 'ppo' });
    const full = estimate({ method: 'full', objective: 'ppo' });
    expect(lora.perGpu.breakdown.referenceModel).toBe(0);
    expect(lora.perGpu.breakdown.valueModel).toBeCloseTo(full.perGpu.breakdown.valueModel!, -6);
  });

  it('torchtune: log-probs from full-sequence fp32 logits sliced to the completion (6 bytes a logit at bf16)', () => {
    const logits = (framework: string) => {
      const e = estimate({ framework, method: 'full', objective: 'ppo' });
      const at = (phase: string) => e.phases!.find((p) => p.phase === phase)!.parts.logits;
      return { e, fwd: at('forward'), bwd: at('backward') };
    };
    const tt = logits('torchtune');
    const vocab = (resolveModel(MODEL) as { vocab: number }).vocab;
    const sixBytes = tt.e.options.batch * tt.e.options.seq * vocab * 6;
    // forward: bf16 logits + their fp32 upcast; backward: the slice's fp32 gradient + the upcast's bf16 one.
    expect(tt.fwd).toBeCloseTo(sixBytes, -3);
    expect(tt.bwd).toBeCloseTo(sixBytes, -3);
    // TRL's PPO keeps the cross-entropy-style upcast path (10 and 12 bytes a logit).
    const hf = logits('hf');
    expect(hf.bwd).toBeGreaterThan(1.9 * tt.bwd);
  });

  it('keeps the other objectives free of the PPO keys', () => {
    const grpo = estimate({ method: 'full', objective: 'grpo' });
    expect('valueModel' in grpo.perGpu.breakdown).toBe(false);
    expect(grpo.time!.phases.some((p) => p.phase === 'critic-scoring')).toBe(false);
  });
});

describe('PPO time', () => {
  it('times the rollout, the reference, value and reward forwards, and four epochs of policy + value training', () => {
    const ppo = estimate({ method: 'lora', objective: 'ppo' });
    const t = ppo.time as NonNullable<typeof ppo.time> & {
      objectivePhases: Record<string, number>;
    };
    const ph = t.objectivePhases;
    expect(ph.rollout).toBeGreaterThan(0);
    expect(ph.referenceLogprobs).toBeGreaterThan(0);
    expect(ph.criticScoring).toBeGreaterThan(ph.referenceLogprobs!);
    // num_ppo_epochs 4 passes, each training the LoRA policy and the fully trained value model.
    const sft = estimate({ method: 'lora', batch: 8, seq: 565 });
    expect(ph.policyTraining).toBeGreaterThan(4 * sft.time!.stepSeconds);
    const sum =
      ph.rollout! + ph.referenceLogprobs! + ph.policyTraining! + ph.weightSync! + ph.criticScoring!;
    expect(t.stepSeconds).toBeCloseTo(sum, 2);
  });

  it('times --ppo-epochs passes of policy + value training (torchtune ppo_epochs), 4 when not given', () => {
    const ph = (flags: Record<string, unknown>) =>
      (
        estimate({ method: 'full', objective: 'ppo', ...flags }).time as unknown as {
          objectivePhases: Record<string, number>;
        }
      ).objectivePhases;
    const four = ph({});
    const one = ph({ 'ppo-epochs': 1 });
    // The phases are printed to four significant digits, so four epochs read 4x one within that rounding.
    expect(
      Math.abs(one.policyTraining! * 4 - four.policyTraining!) / four.policyTraining!,
    ).toBeLessThan(1e-3);
    expect(one.rollout).toBe(four.rollout);
    expect(ph({ 'ppo-epochs': 4 }).policyTraining).toBe(four.policyTraining);
    // --rollout-chunk: 128 trajectories decoded at once instead of two rounds of TRL's 64.
    const two = ph({ batch: 128 });
    const once = ph({ batch: 128, 'rollout-chunk': 128 });
    expect(once.rollout).toBeLessThan(two.rollout!);
    expect(once.policyTraining).toBe(two.policyTraining);
    expect(() => estimate({ method: 'full', objective: 'grpo', 'rollout-chunk': 8 })).toThrow(
      /--rollout-chunk.*only with --objective ppo/,
    );
    expect(() => estimate({ method: 'full', objective: 'grpo', 'ppo-epochs': 1 })).toThrow(
      /--ppo-epochs.*only with --objective ppo/,
    );
  });

  it('a longer response never shortens the step', () => {
    let last = 0;
    for (const completion of [16, 53, 128, 512]) {
      const s = estimate({ method: 'lora', objective: 'ppo', 'completion-tokens': completion })
        .time!.stepSeconds;
      expect(s).toBeGreaterThanOrEqual(last);
      last = s;
    }
  });
});

describe('PPO refusals (one line each)', () => {
  const base = ['estimate', '--model', MODEL, '--objective', 'ppo'];
  it.each([
    [['--generations', '4'], /--generations: got '?4'?; expected 1 with --objective ppo/],
    [
      ['--rollout', 'vllm-colocate'],
      /--rollout: got 'vllm-colocate'; expected hf with --objective ppo \(TRL's PPOTrainer generates with transformers generate only/,
    ],
    [['--reference', 'none'], /--reference: got 'none'; expected model with --objective ppo/],
    [['--framework', 'litgpt'], /litgpt runs objectives sft only/],
    // torchtune 0.6.1 runs PPO as ppo_full_finetune_single_device only: a LoRA policy is refused, citing it.
    [
      ['--framework', 'torchtune', '--method', 'lora'],
      /rule torchtune-ppo-full-single-device: .*recipes\/ppo_full_finetune_single_device\.py/,
    ],
  ])('%j', (extra, message) => {
    const r = runCli([...base, ...extra]);
    expect(r.status).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(message);
  });

  it('is estimated on the TRL engines but never planned', () => {
    const ok = runCli([...base, '--framework', 'hf-trainer', '--json']);
    expect(ok.status, ok.stderr).toBe(0);
    const j = JSON.parse(ok.stdout) as {
      options: { objective: string; generations: number; completionTokens: number };
    };
    expect(j.options.objective).toBe('ppo');
    expect(j.options.generations).toBe(1);
    // TRL v1.9.0 PPOConfig response_length = 53.
    expect(j.options.completionTokens).toBe(53);
  });
});

describe('PPO read back from a TRL PPOConfig', () => {
  it('reads the objective, the response length, its epochs and rollout chunk, and refuses mini-batches the model does not run', () => {
    const dir = mkdtempSync(join(tmpdir(), 'vramplan-ppo-'));
    try {
      const file = join(dir, 'ppo_config.yaml');
      const config = [
        'model_name_or_path: meta-llama/Llama-3.2-1B',
        'per_device_train_batch_size: 8',
        'bf16: true',
        'response_length: 100',
        'num_ppo_epochs: 4',
        'vf_coef: 0.1',
        'reward_model_path: meta-llama/Llama-3.2-1B',
      ];
      writeFileSync(file, config.join('\n'));
      const r = runCli(['estimate', '--from', file, '--model', MODEL, '--json']);
      expect(r.status, r.stderr).toBe(0);
      const j = JSON.parse(r.stdout) as {
        options: { objective: string; completionTokens: number };
      };
      expect(j.options.objective).toBe('ppo');
      expect(j.options.completionTokens).toBe(100);
      // TRL's num_ppo_epochs and local_rollout_forward_batch_size become --ppo-epochs and --rollout-chunk.
      writeFileSync(
        file,
        [
          ...config.filter((l) => !l.startsWith('num_ppo_epochs')),
          'num_ppo_epochs: 2',
          'local_rollout_forward_batch_size: 16',
        ].join('\n'),
      );
      const read = runCli(['estimate', '--from', file, '--model', MODEL, '--json']);
      expect(read.status, read.stderr).toBe(0);
      const o = (
        JSON.parse(read.stdout) as { options: { ppoEpochs?: number; rolloutChunk?: number } }
      ).options;
      expect([o.ppoEpochs, o.rolloutChunk]).toEqual([2, 16]);
      writeFileSync(file, [...config, 'num_mini_batches: 2'].join('\n'));
      const bad = runCli(['estimate', '--from', file, '--model', MODEL]);
      expect(bad.status).toBe(1);
      expect(bad.stderr).toMatch(/num_mini_batches.*got 2.*expected 1/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
