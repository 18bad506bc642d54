/**
 * The LoRA path beside each adapted linear (engines/<engine>/lora-path.ts), parameter offload by pass and
 * direction (time/offload-work.ts offloadWork), and the Unsloth rollout on its shared 4-bit weights
 * (time/objective.ts): hand-computed bytes for Llama-2-7B (hidden 4096, FFN 11008, 32 layers) and what each
 * mechanism changes in a step.
 */
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildEstimate } from '../../src/core/estimate.js';
import { modelFacts, trainWork, weightBytes } from '../../src/core/time/index.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

const arch = resolveModel('llama-2-7b');
const m = modelFacts(arch);
const t = defaultTimeOptions(1);
const lora = (flags: Record<string, string | number | boolean>) =>
  optionsFromFlags({ method: 'lora', 'lora-targets': 'q,v', batch: 1, seq: 2048, ...flags });

describe('LoRA path beside each adapted linear', () => {
  it('PEFT (hf): x cast to the fp32 adapters and back, six output passes forward', () => {
    const w = trainWork(m, lora({ framework: 'hf' }), t);
    // Per adapted linear per token, in 16-bit elements: forward (1 + 6 cast) x 4096 in + 6 x 4096 out; backward
    // (5 + 6 cast) x 4096 in + 4 x 4096 out. Two linears (q, v), 32 layers, 2,048 tokens, 2 bytes.
    const scale = 2 * 32 * 2048 * 2;
    expect(w.adapterFwdBytes).toBe((7 * 4096 + 6 * 4096) * scale);
    expect(w.adapterBwdBytes).toBe((11 * 4096 + 4 * 4096) * scale);
    // Kernels: 4 + 2 casts forward, 6 + 2 backward, per linear per layer.
    expect(w.adapterFwdOps).toBe(2 * 32 * 6);
    expect(w.adapterBwdOps).toBe(2 * 32 * 8);
  });

  it("Unsloth's matmul_lora adds into the frozen GEMM's output in place: 2 output passes, 2 kernels", () => {
    // apply_lora_qkv needs q, k and v all adapted (FastLlamaModel.patch_peft_model).
    const w = trainWork(m, lora({ framework: 'unsloth', 'lora-targets': 'q,k,v' }), t);
    const scale = 3 * 32 * 2048 * 2;
    expect(w.adapterFwdBytes).toBe((1 * 4096 + 2 * 4096) * scale);
    expect(w.adapterBwdBytes).toBe((4 * 4096 + 3 * 4096) * scale);
    expect(w.adapterFwdOps).toBe(3 * 32 * 2);
  });

  it('Unsloth leaves an incomplete group (q, v without k) on PEFT lora.Linear.forward', () => {
    const un = trainWork(m, lora({ framework: 'unsloth' }), t);
    const hf = trainWork(m, lora({ framework: 'hf' }), t);
    expect(un.adapterFwdBytes).toBe(hf.adapterFwdBytes);
    expect(un.adapterBwdOps).toBe(hf.adapterBwdOps);
    // o alone is its own group: fused; gate and up without down are not.
    const o = trainWork(m, lora({ framework: 'unsloth', 'lora-targets': 'o' }), t);
    expect(o.adapterFwdOps).toBe(32 * 2);
    const gu = trainWork(m, lora({ framework: 'unsloth', 'lora-targets': 'gate,up' }), t);
    expect(gu.adapterFwdOps).toBe(2 * 32 * 6);
  });

  it('QLoRA on PEFT clones the 4-bit layer output (no input cast under the 4-bit path)', () => {
    const w = trainWork(m, lora({ method: 'qlora', weights: 'nf4', framework: 'hf' }), t);
    expect(w.adapterFwdBytes).toBe((1 * 4096 + 8 * 4096) * 2 * 32 * 2048 * 2);
  });

  it('torchtune keeps its adapters in the model dtype: no cast, the same eager chain', () => {
    const w = trainWork(m, lora({ framework: 'torchtune' }), t);
    expect(w.adapterFwdBytes).toBe((1 * 4096 + 6 * 4096) * 2 * 32 * 2048 * 2);
    // Under torch.compile the scaling fuses into the add: two output passes and one kernel fewer.
    const c = trainWork(m, lora({ framework: 'torchtune', compile: true }), t);
    expect(c.adapterFwdBytes).toBe((1 * 4096 + 4 * 4096) * 2 * 32 * 2048 * 2);
    expect(c.adapterFwdOps).toBe(2 * 32 * 3);
  });

  it('full fine-tunes pay nothing beside the GEMMs', () => {
    expect(trainWork(m, optionsFromFlags({ method: 'full' }), t).adapterFwdBytes).toBe(0);
    expect(
      trainWork(m, optionsFromFlags({ method: 'full', framework: 'torchtitan' }), t)
        .adapterFwdBytes,
    ).toBe(0);
  });

  it("torchtitan's LoRALinear (and prime-rl's MultiLoRALinear): the unfused chain, the scaling fused under compile", () => {
    // components/lora.py at pytorch/torchtitan@b5bcd76c6: base_out + scaling * lora_b(lora_a(x)), no dropout, no cast.
    const eager = trainWork(m, lora({ framework: 'torchtitan' }), t);
    expect(eager.adapterFwdBytes).toBe((1 * 4096 + 6 * 4096) * 2 * 32 * 2048 * 2);
    expect(eager.adapterBwdBytes).toBe((5 * 4096 + 4 * 4096) * 2 * 32 * 2048 * 2);
    expect(eager.adapterFwdOps).toBe(2 * 32 * 4);
    const c = trainWork(m, lora({ framework: 'torchtitan', compile: true }), t);
    expect(c.adapterFwdBytes).toBe((1 * 4096 + 4 * 4096) * 2 * 32 * 2048 * 2);
    expect(c.adapterFwdOps).toBe(2 * 32 * 3);
  });

  it("torchtitan's path: linear in the micro-batch's tokens, the same passes as torchtune's chain", () => {
    const roles = ['q', 'k', 'v', 'o', 'gate', 'up', 'down'] as const;
    fc.assert(
      fc.property(
        fc.subarray([...roles], { minLength: 1 }),
        fc.integer({ min: 1, max: 64 }),
        fc.boolean(),
        (targets, blocks, compile) => {
          const o = (framework: string, seq: number) =>
            lora({ framework, seq, compile, 'lora-targets': targets.join(',') });
          const seq = 256 * blocks;
          const w = trainWork(m, o('torchtitan', seq), t);
          const twice = trainWork(m, o('torchtitan', 2 * seq), t);
          expect(w.adapterFwdBytes).toBeGreaterThan(0);
          expect(twice.adapterFwdBytes).toBe(2 * w.adapterFwdBytes);
          expect(twice.adapterBwdBytes).toBe(2 * w.adapterBwdBytes);
          const tt = trainWork(m, o('torchtune', seq), t);
          expect(w.adapterFwdBytes).toBe(tt.adapterFwdBytes);
          expect(w.adapterBwdBytes).toBe(tt.adapterBwdBytes);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('the same LoRA step is slower through PEFT than through Unsloth on an A100', () => {
    const a100 = findGpu('a100-40gb-sxm');
    const o = { 'lora-rank': 8, batch: 4, seq: 1024, checkpointing: 'full' };
    const step = (framework: string, targets: string) =>
      buildEstimate(arch, lora({ ...o, framework, 'lora-targets': targets }), a100).time!
        .stepSeconds;
    // q and v alone: both run PEFT's adapters; Unsloth's norm, rotary and loss kernels still win.
    expect(step('hf', 'q,v')).toBeGreaterThan(step('unsloth', 'q,v'));
    // Every linear adapted: Unsloth's fused LoRA kernels widen the gap.
    expect(step('hf', 'all-linear') - step('unsloth', 'all-linear')).toBeGreaterThan(
      step('hf', 'q,v') - step('unsloth', 'q,v'),
    );
  });
});

describe('parameter offload by pass and direction', () => {
  const off = (flags: Record<string, string | number | boolean>) =>
    optionsFromFlags({ zero: 3, offload: 'optimizer+params', batch: 1, seq: 2048, ...flags });

  it('an fp32 master copy crosses PCIe as fp32, once per pass (3 with a reentrant full recompute)', () => {
    const w = trainWork(m, off({ method: 'full', weights: 'fp32', checkpointing: 'full' }), {
      ...t,
      reentrantCheckpoint: true,
    });
    expect(w.offloadPasses).toBe(3);
    expect(w.offloadParamPassBytes).toBe(m.total * 4);
    // Gradients back in the shard's dtype (fp32), once per backward.
    expect(w.offloadGradBytes).toBe(m.total * 4);
  });

  it('QLoRA: packed 4-bit linears, the rest at the dtype the engine keeps it in', () => {
    const hf = trainWork(m, off({ method: 'qlora', weights: 'nf4', framework: 'hf' }), t);
    const rest = m.total - m.linearTotal;
    // fp32 where the engine runs PEFT's prepare_model_for_kbit_training; TRL 1.9.0 (hf) keeps them 16-bit.
    const restBytes = FRAMEWORKS.hf.kbitUpcastsToFp32 ? 4 : 2;
    expect(hf.offloadParamPassBytes).toBeCloseTo(
      m.linearTotal * weightBytes('nf4') + rest * restBytes,
      -3,
    );
    const tt = trainWork(m, off({ method: 'qlora', weights: 'nf4', framework: 'torchtune' }), t);
    expect(tt.offloadParamPassBytes).toBeCloseTo(m.linearTotal * weightBytes('nf4') + rest * 2, -3);
    expect(hf.offloadPasses).toBe(2);
  });

  it('the first unit of every pass waits for its copy: slower than resident weights even when hidden', () => {
    const l40s = findGpu('l40s');
    const o = { method: 'qlora', weights: 'nf4', batch: 8, seq: 2048, zero: 3 };
    const a = buildEstimate(
      arch,
      optionsFromFlags({ ...o, offload: 'optimizer+params' }),
      l40s,
    ).time!;
    const b = buildEstimate(arch, optionsFromFlags({ ...o, offload: 'optimizer' }), l40s).time!;
    const exposed = a.phases.find((p) => p.phase === 'offload')!.seconds;
    // Compute hides all but the first unit's copy of the forward and of the backward: 2 x (the 4-bit shard plus
    // norms, embeddings and head at the engine's width) / 32 layers over PCIe 4.0 x16 at 0.8 of 32 GB/s.
    const w = trainWork(m, optionsFromFlags({ ...o, offload: 'optimizer+params' }), t);
    expect(exposed).toBeCloseTo((2 * w.offloadParamPassBytes) / (25.6e9 * 32), 4);
    expect(a.stepSeconds).toBeGreaterThan(b.stepSeconds);
  });
});

describe('GRPO rollout on the weights Unsloth shares with vLLM', () => {
  it('a 4-bit policy decodes through the bitsandbytes path, slower than a separate 16-bit vLLM copy', () => {
    const t4 = findGpu('rtx-4090');
    const o = {
      method: 'qlora',
      weights: 'nf4',
      objective: 'grpo',
      generations: 6,
      batch: 6,
      'completion-tokens': 200,
      rollout: 'vllm-colocate',
    };
    const rollout = (framework: string) =>
      buildEstimate(arch, optionsFromFlags({ ...o, framework }), t4).time!.phases.find(
        (p) => p.phase === 'rollout',
      )!.seconds;
    expect(rollout('unsloth')).toBeGreaterThan(rollout('hf'));
  });
});
