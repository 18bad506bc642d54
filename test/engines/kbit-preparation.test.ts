/**
 * Stacks that still run PEFT's prepare_model_for_kbit_training on a k-bit model: axolotl 0.19.0's loader (then the
 * norms, embeddings and head cast back to bf16; fp32 experts; fp32 adapters under its SFT trainer) read from its
 * YAML, and TRL v1.9.0's experimental ORPO / CPO trainers (fp32 norms, stream, experts and adapters) by objective.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildEstimate } from '../../src/core/estimate.js';
import { engineOf, onEngine } from '../../src/core/engines/index.js';
import { mapAxolotl } from '../../src/core/engines/hf/from/axolotl.js';
import { linearWeights } from '../../src/core/model/params.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { runCli } from '../helpers/run-cli.js';
import { upstreamKeys } from '../../src/io/load-upstream-keys.js';

type Build = Parameters<typeof buildEstimate>[4];

function estimate(model: string, flags: Record<string, unknown>, build?: Build) {
  const asked = optionsFromFlags({ framework: 'hf', method: 'qlora', ...flags });
  return buildEstimate(
    resolveModel(model),
    onEngine(asked, engineOf(asked)),
    findGpu('h100-sxm'),
    undefined,
    build,
  );
}

const QLORA = {
  base_model: 'meta-llama/Llama-3.2-1B',
  adapter: 'qlora',
  load_in_4bit: true,
  lora_r: 16,
  lora_target_linear: true,
  sequence_len: 2048,
  micro_batch_size: 2,
  bf16: true,
};

describe('axolotl QLoRA: the loader prepares the k-bit model', () => {
  it('marks SFT QLoRA as cast back with fp32 adapters; DPO / KTO / GRPO adapters follow TRL (bf16)', () => {
    expect(mapAxolotl(QLORA, undefined, upstreamKeys).build).toEqual({
      kbitNormsCastBack: true,
      kbitFp32Adapters: true,
    });
    expect(mapAxolotl({ ...QLORA, rl: 'orpo' }, undefined, upstreamKeys).build).toEqual({
      kbitNormsCastBack: true,
      kbitFp32Adapters: true,
    });
    for (const rl of ['dpo', 'kto'])
      expect(mapAxolotl({ ...QLORA, rl }, undefined, upstreamKeys).build).toEqual({
        kbitNormsCastBack: true,
      });
  });

  it('no preparation for LoRA on bf16 weights, under FSDP, or with quantize_moe_experts (experts quantized)', () => {
    const { load_in_4bit: _, ...bf16 } = QLORA;
    expect(mapAxolotl({ ...bf16, adapter: 'lora' }, undefined, upstreamKeys).build).toBeUndefined();
    const fsdp = { ...QLORA, fsdp_config: { fsdp_version: 2, reshard_after_forward: true } };
    // Under FSDP without qlora_sharded_model_loading the 4-bit model loads whole (axolotl-sharded-load.test.ts).
    expect(mapAxolotl(fsdp, undefined, upstreamKeys).build).toEqual({ quantizerLoadsWhole: true });
    const moe = mapAxolotl({ ...QLORA, quantize_moe_experts: true }, undefined, upstreamKeys);
    // axolotl quantizes the fused expert parameters as they load (monkeypatch/moe_quant.py) and skips the preparation.
    expect(moe.build).toEqual({ quantizedExperts: true });
    expect(moe.warnings.join('\n')).not.toMatch(/quantize_moe_experts/);
  });

  it('estimate --from counts fp32 adapters, their gradients and Adam states; dense weights unchanged', () => {
    const dir = mkdtempSync(join(tmpdir(), 'vramplan-axolotl-kbit-'));
    try {
      const file = join(dir, 'axolotl.yaml');
      writeFileSync(
        file,
        Object.entries(QLORA)
          .map(([k, v]) => `${k}: ${v}`)
          .join('\n'),
      );
      const r = runCli(['estimate', '--from', file, '--model', 'llama-3.2-1b', '--json']);
      expect(r.status, r.stderr).toBe(0);
      const from = JSON.parse(r.stdout) as ReturnType<typeof estimate>;
      expect(from).not.toHaveProperty('build');
      const plain = estimate('llama-3.2-1b', {
        'lora-rank': 16,
        'lora-targets': 'all-linear',
        seq: 2048,
        batch: 2,
        'double-quant': true,
      });
      const a = from.perGpu.breakdown;
      const b = plain.perGpu.breakdown;
      expect(a.adapters).toBe(2 * b.adapters);
      expect(a.gradients).toBe(2 * b.gradients);
      expect(a.optimizer).toBe(2 * b.optimizer);
      // Norms, embeddings and head are cast back to bf16; the 4-bit linears' biases follow the input's dtype.
      expect(a.weights).toBe(b.weights);
      expect(a.activations).toBe(b.activations);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('plan --from judges the config as estimate --from counts it (the loader kept its experts fp32)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'vramplan-axolotl-plan-'));
    try {
      const file = join(dir, 'axolotl.yaml');
      const moe = { ...QLORA, base_model: 'Qwen/Qwen3-30B-A3B', gradient_checkpointing: true };
      writeFileSync(
        file,
        Object.entries(moe)
          .map(([k, v]) => `${k}: ${v}`)
          .join('\n'),
      );
      const args = ['--from', file, '--model', 'qwen3-30b-a3b', '--gpu', 'b200', '--json'];
      const e = runCli(['estimate', ...args]);
      const p = runCli(['plan', ...args]);
      expect(e.status, e.stderr).toBe(0);
      expect(p.status, p.stderr).toBe(0);
      const est = JSON.parse(e.stdout) as { perGpu: { deviceBytes: number } };
      const given = JSON.parse(p.stdout) as { deviceBytes: number };
      expect(given.deviceBytes).toBe(est.perGpu.deviceBytes);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keeps the unquantized MoE experts fp32, except under ZeRO-3', () => {
    const arch = resolveModel('qwen3-30b-a3b');
    let experts = 0;
    for (const g of arch.groups)
      for (const l of g.linears) if (l.copies > 1) experts += linearWeights(l) * g.count;
    expect(experts).toBeGreaterThan(0);
    const build = { kbitNormsCastBack: true };
    const prepared = estimate('qwen3-30b-a3b', {}, build).perGpu.breakdown.weights;
    const trl = estimate('qwen3-30b-a3b', {}).perGpu.breakdown.weights;
    expect(prepared - trl).toBe(experts * 2);
    const z3 = { gpus: 2, zero: 3 };
    expect(estimate('qwen3-30b-a3b', z3, build).perGpu.breakdown.weights).toBe(
      estimate('qwen3-30b-a3b', z3).perGpu.breakdown.weights,
    );
  });
});

describe("TRL's experimental ORPO / CPO prepare the k-bit model", () => {
  const flags = { seq: 2048, batch: 2, checkpointing: 'full' };

  it('ORPO and SimPO count fp32 adapters and an fp32 residual stream; DPO does not', () => {
    for (const objective of ['orpo', 'simpo']) {
      const prepared = estimate('llama-3.1-8b', { ...flags, objective });
      const asTrl = estimate('llama-3.1-8b', { ...flags, objective }, { kbitFp32Stream: true });
      expect(prepared.perGpu).toEqual(asTrl.perGpu);
      const castBack = estimate(
        'llama-3.1-8b',
        { ...flags, objective },
        { kbitNormsCastBack: true },
      );
      const a = prepared.perGpu.breakdown;
      const b = castBack.perGpu.breakdown;
      expect(a.adapters).toBe(2 * b.adapters);
      expect(a.optimizer).toBe(2 * b.optimizer);
      expect(a.activations).toBeGreaterThan(b.activations);
      expect(a.weights).toBeGreaterThan(b.weights); // fp32 norms
    }
    const dpo = estimate('llama-3.1-8b', { ...flags, objective: 'dpo' });
    const dpoAsTrl = estimate(
      'llama-3.1-8b',
      { ...flags, objective: 'dpo' },
      { kbitFp32Stream: true },
    );
    expect(dpo.perGpu.breakdown.adapters).toBe(dpoAsTrl.perGpu.breakdown.adapters / 2);
  });

  it("the ORPO step's time runs the fp32 stream (more elementwise bytes)", () => {
    const orpo = estimate('llama-3.1-8b', { ...flags, objective: 'orpo' });
    const castBack = estimate(
      'llama-3.1-8b',
      { ...flags, objective: 'orpo' },
      { kbitNormsCastBack: true },
    );
    expect(orpo.time!.stepSeconds).toBeGreaterThan(castBack.time!.stepSeconds);
  });
});
