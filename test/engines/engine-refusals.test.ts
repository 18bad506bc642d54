// Refusals checked against the engines' own sources (scripts/refusal-sweep.ts finds them): what the engine
// runs is estimated with finite figures, what it refuses names the engine's file at its pinned version.
import { describe, expect, it } from 'vitest';
import { estimateChecks } from '../../src/commands/estimate-run.js';
import { buildEstimate } from '../../src/core/estimate.js';
import { withEngineDefaults } from '../../src/core/engines/defaults.js';
import { ENGINE_PROFILES } from '../../src/core/engines/engines.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags, type RawFlags } from '../../src/schema/flags.js';

/** The estimate path of `vramplan estimate`: flags, the engine's defaults and checks, then the estimate. */
function estimate(model: string, flags: RawFlags) {
  const arch = resolveModel(model);
  const gpu = typeof flags.gpu === 'string' ? findGpu(flags.gpu) : findGpu('h100-sxm');
  const options = withEngineDefaults(optionsFromFlags(flags), flags);
  const notes = estimateChecks(arch, options, flags, gpu);
  return { options, notes, result: buildEstimate(arch, options, gpu) };
}

/** The one-line refusal `vramplan estimate` prints for `flags`, or null when it estimates. */
function refusal(model: string, flags: RawFlags): string | null {
  try {
    estimate(model, flags);
    return null;
  } catch (e) {
    return (e as Error).message;
  }
}

function expectFinite(r: ReturnType<typeof estimate>['result']): void {
  const p = r.perGpu;
  for (const v of [p.allocatedBytes, p.reservedBytes, p.deviceBytes, ...Object.values(p.breakdown)])
    expect(Number.isFinite(v) && v >= 0).toBe(true);
  expect(p.deviceBytes).toBeGreaterThan(0);
  const t = r.time!;
  expect(Number.isFinite(t.stepSeconds) && t.stepSeconds > 0).toBe(true);
}

const serve = (framework: string, more: RawFlags = {}): RawFlags => ({
  framework,
  method: 'inference',
  seq: 8192,
  batch: 4,
  ...more,
});

describe('estimated now: the engine runs it', () => {
  it('llama.cpp --tp N is --split-mode row: weights split, the cache whole on the main GPU; noted, not written', () => {
    const flags = serve('llama.cpp', { weights: 'q4_k_m', gpu: 'rtx-3090' });
    const one = estimate('llama-3.1-70b', flags);
    const row = estimate('llama-3.1-70b', { ...flags, tp: 2, gpus: 2 });
    expectFinite(row.result);
    expect(row.result.perGpu.breakdown.weights).toBeLessThan(one.result.perGpu.breakdown.weights);
    expect(row.notes.join('\n')).toMatch(/--split-mode row.*include\/llama\.h/);
    // The KV cache and intermediate results stay whole on the main GPU (-mg), the worst rank.
    expect(row.result.perGpu.breakdown.kvCache).toBe(one.result.perGpu.breakdown.kvCache);
    // --gpus N alone is llama-server's default layer split, not N replicas.
    const layer = estimate('llama-3.1-70b', { ...flags, gpus: 2 });
    expect(layer.options.pp).toBe(2);
    expect(layer.result.perGpu.breakdown.kvCache).toBeLessThan(one.result.perGpu.breakdown.kvCache);
    expect(layer.notes.join('\n')).toMatch(/--split-mode layer/);
    // What vramplan writes for llama.cpp is layer split (--pp): the planner never ranks row split.
    expect(ENGINE_PROFILES['llama.cpp'].tp).toBe(false);
    // The heads do not bound the row split: 3 GPUs under a 32-head model.
    expectFinite(estimate('llama-3.1-8b', { ...flags, tp: 3, gpus: 3 }).result);
    expect(refusal('llama-3.1-8b', serve('vllm', { tp: 3, gpus: 3 }))).toMatch(/--tp: got 3/);
  });

  it('hf-generate over several GPUs: tp_plan="auto" (--tp) and device_map="auto" (--pp)', () => {
    const one = estimate('llama-3.1-70b', serve('hf-generate'));
    for (const par of [{ tp: 2 }, { pp: 2 }]) {
      const r = estimate('llama-3.1-70b', serve('hf-generate', { ...par, gpus: 2 }));
      expectFinite(r.result);
      expect(r.result.perGpu.breakdown.weights).toBeLessThan(one.result.perGpu.breakdown.weights);
      expect(r.notes.join('\n')).toMatch(par.tp ? /tp_plan="auto"/ : /device_map="auto"/);
    }
  });

  it("hf-generate loads gpt-oss's MXFP4 checkpoint (quantizer_mxfp4.py), smaller than bf16", () => {
    const mx = estimate('gpt-oss-20b', serve('hf-generate', { weights: 'mxfp4' }));
    const bf = estimate('gpt-oss-20b', serve('hf-generate', { weights: 'bf16' }));
    expectFinite(mx.result);
    expect(mx.result.perGpu.breakdown.weights).toBeLessThan(bf.result.perGpu.breakdown.weights / 2);
    // Below compute capability 7.5 the quantizer dequantizes to bf16: refused, naming quantizer_mxfp4.py.
    expect(
      refusal('gpt-oss-20b', serve('hf-generate', { weights: 'mxfp4', gpu: 'v100-32gb' })),
    ).toMatch(
      /hf-generate has no mxfp4 kernel for compute capability 7\.0 .*--weights bf16.*quantizer_mxfp4\.py/,
    );
  });

  it('SGLang shards GGUF weights over --tp-size (linear.py at 0.5.23)', () => {
    const flags = serve('sglang', { weights: 'q4_k_m', tp: 2, gpus: 2 });
    expectFinite(estimate('llama-3.1-8b', flags).result);
  });

  it('hf-trainer: LoRA over a GPTQ or AWQ int4 checkpoint (trainable quantizers), not over sharded weights', () => {
    const flags = { framework: 'hf-trainer', method: 'qlora', weights: 'int4', gpu: 'rtx-4090' };
    for (const q of ['gptq', 'awq']) {
      const r = estimate('llama-3.1-8b', { ...flags, 'quant-format': q });
      expectFinite(r.result);
      expect(r.result.perGpu.breakdown.adapters).toBeGreaterThan(0);
    }
    // What vramplan writes for hf-trainer has no int4: the planner never ranks it.
    expect(ENGINE_PROFILES['hf-trainer'].baseWeights).not.toContain('int4');
    // Under FSDP the packed QuantLinear buffers are not sharded: still refused, citing transformers.
    expect(refusal('llama-3.1-8b', { ...flags, framework: 'hf-fsdp', gpus: 2, zero: 3 })).toMatch(
      /hf-fsdp no int4 weights .*huggingface\/transformers\/blob\/[0-9a-f]{40}/,
    );
  });

  it('LitGPT --optimizer takes a class path: torch.optim.Adafactor and bitsandbytes Lion run', () => {
    const flags = { framework: 'litgpt', method: 'full', gpu: 'h100-sxm' };
    const adamw = estimate('llama-3.2-1b', flags).result.perGpu.breakdown.optimizer;
    const ada = estimate('llama-3.2-1b', { ...flags, optimizer: 'adafactor' });
    const lion = estimate('llama-3.2-1b', { ...flags, optimizer: 'lion' });
    expectFinite(ada.result);
    expectFinite(lion.result);
    // Factored second moments < one moment < AdamW's two.
    expect(ada.result.perGpu.breakdown.optimizer).toBeLessThan(
      lion.result.perGpu.breakdown.optimizer,
    );
    expect(lion.result.perGpu.breakdown.optimizer).toBeLessThan(adamw);
    // Adam-mini's class takes named parameters, which LitGPT never passes: refused, citing utils.py.
    expect(refusal('llama-3.2-1b', { ...flags, optimizer: 'adam-mini' })).toMatch(
      /litgpt no adam-mini optimizer .*litgpt\/utils\.py/,
    );
  });

  it('SGLang runs AWQ int4 on MI300X through its Triton dequantize; int8 W8A8 stays refused there', () => {
    const mi = serve('sglang', { gpu: 'mi300x' });
    expectFinite(estimate('qwen2.5-7b', { ...mi, weights: 'int4', 'quant-format': 'awq' }).result);
    expect(refusal('qwen2.5-7b', { ...mi, weights: 'int8' })).toMatch(
      /sglang has no int8 kernel for gfx942[ :].*sglang\/tree\/v\d+\.\d+\.\d+\//,
    );
  });

  it('torchtune PPO (ppo_full_finetune_single_device) and GRPO (dev/grpo_full_finetune_distributed)', () => {
    const ppo = estimate('llama-3.2-1b', {
      framework: 'torchtune',
      method: 'full',
      objective: 'ppo',
    });
    expectFinite(ppo.result);
    expect(ppo.result.perGpu.breakdown.valueModel).toBeGreaterThan(0);
    const grpo = estimate('llama-3.2-1b', {
      framework: 'torchtune',
      method: 'full',
      objective: 'grpo',
      gpus: 8,
    });
    expectFinite(grpo.result);
    // The recipe always builds a reference model, sharded as the policy is (ZeRO-3).
    expect(grpo.options.reference).toBe('model');
    expect(grpo.options.zero).toBe(3);
    expect(grpo.result.perGpu.breakdown.referenceModel).toBeGreaterThan(0);
    // vramplan writes neither: the planner keeps to SFT and DPO on torchtune.
    expect(ENGINE_PROFILES.torchtune.objectives).not.toContain('grpo');
  });
});

describe('torchtitan 0.3.0 GRPO (experiments/rl)', () => {
  const grpo = { framework: 'torchtitan', method: 'full', objective: 'grpo', gpu: 'h100-sxm' };
  it('a full fine-tune beside a vLLM generator on a GPU of its own, no reference model', () => {
    const r = estimate('llama-3.1-8b', { ...grpo, gpus: 9 });
    expectFinite(r.result);
    expect(r.options.rollout).toBe('vllm-server');
    expect(r.options.rolloutGpus).toBe(1);
    expect(r.options.reference).toBe('none');
    expect(r.result.perGpu.breakdown.referenceModel ?? 0).toBe(0);
    expect(ENGINE_PROFILES.torchtitan.objectives).not.toContain('grpo');
  });
  it('refuses what experiments/rl does not run, citing actors/generator.py', () => {
    const cite = /rule torchtitan-grpo-vllm-server: .*experiments\/rl\/actors\/generator\.py/;
    expect(refusal('llama-3.1-8b', { ...grpo, gpus: 8, rollout: 'hf' })).toMatch(cite);
    expect(refusal('llama-3.1-8b', { ...grpo, method: 'lora', gpus: 9 })).toMatch(cite);
    expect(refusal('llama-3.1-8b', { ...grpo, gpus: 9, reference: 'model' })).toMatch(cite);
    expect(refusal('llama-3.1-8b', { ...grpo, gpus: 1 })).toMatch(cite);
  });
});

describe('torchtune full_finetune_distributed: tensor parallelism and selective checkpointing', () => {
  const full = { framework: 'torchtune', method: 'full', gpus: 8, gpu: 'h100-sxm' };
  it('--tp over FSDP2 (tensor_parallel_dim, base_llama_tp_plan): weights split over tp x dp', () => {
    const fsdp = estimate('llama-3.1-70b', full);
    const tp = estimate('llama-3.1-70b', { ...full, tp: 8 });
    expectFinite(tp.result);
    // The plan gathers the output colwise: no sequence or loss parallel.
    expect(tp.options.sequenceParallel).toBe(false);
    expect(tp.options.lossParallel).toBe(false);
    // 70B over 8 GPUs either way (TP keeps the norms whole on every rank: within 0.1%).
    const ratio = tp.result.perGpu.breakdown.weights / fsdp.result.perGpu.breakdown.weights;
    expect(Math.abs(ratio - 1)).toBeLessThan(0.001);
    expect(ENGINE_PROFILES.torchtune.tp).toBe(false);
    expect(refusal('llama-3.1-70b', { ...full, method: 'lora', tp: 2 })).toMatch(
      /rule torchtune-tp-full-distributed: .*full_finetune_distributed\.py/,
    );
  });
  it('any optimizer _component_: bitsandbytes Lion on one GPU, refused over FSDP2 as the 8-bit classes are', () => {
    const lion = { ...full, gpus: 1, optimizer: 'lion' };
    expectFinite(estimate('llama-3.2-1b', lion).result);
    expect(refusal('llama-3.2-1b', { ...lion, gpus: 8 })).toMatch(/torchtune-bnb-optimizer-fsdp2/);
  });
  it('ac_mode "selective" saves more than full checkpointing and less than none', () => {
    const act = (checkpointing: string) =>
      estimate('llama-3.1-8b', { ...full, checkpointing }).result.perGpu.breakdown.activations;
    expect(act('selective')).toBeGreaterThan(act('full'));
    expect(act('selective')).toBeLessThan(act('none'));
    expect(
      refusal('llama-3.1-8b', { ...full, method: 'lora', checkpointing: 'selective' }),
    ).toMatch(/rule torchtune-selective-ac-full-distributed: .*full_finetune_distributed\.py/);
  });
});

describe('still refused: the message cites the engine source', () => {
  it('a context past the model positions: vLLM and SGLang raise, llama-server and generate cap it', () => {
    const seq = { seq: 32768 };
    expect(refusal('gemma-2-9b', serve('vllm', seq))).toMatch(
      /vllm: .*VLLM_ALLOW_LONG_MAX_MODEL_LEN.*vllm\/blob\/[0-9a-f]{40}\/vllm\/config\/model\.py/,
    );
    expect(refusal('gemma-2-9b', serve('sglang', seq))).toMatch(
      /sglang: .*SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN.*sglang\/0\.5\.23\/ \(wheel\) sglang\/srt\/configs\/model_config\.py/,
    );
    expect(refusal('gemma-2-9b', serve('llama.cpp', { ...seq, weights: 'q4_k_m' }))).toMatch(
      /llama\.cpp: llama-server caps .*tools\/server\/server\.cpp/,
    );
    expect(refusal('gemma-2-9b', serve('hf-generate', seq))).toMatch(
      /hf-generate: .*generation\/utils\.py _prepare_generated_length/,
    );
  });

  it('llama.cpp --tp (row split) on a MoE model: estimated as the layer split, which places its experts and cache so', () => {
    const flags = serve('llama.cpp', { weights: 'q4_k_m', gpu: 'rtx-3090', tp: 2, gpus: 2 });
    const row = estimate('qwen3-30b-a3b', flags);
    expectFinite(row.result);
    expect(row.options.tp).toBe(1);
    expect(row.options.pp).toBe(2);
    const why = row.notes.join('\n');
    expect(why).toMatch(/experts \(ffn_\*_exps, GGML_OP_MUL_MAT_ID.*ggml-cuda\.cu @f6d77a1b/);
    expect(why).toMatch(/blob\/[0-9a-f]{40}\/src\/llama-model\.cpp load_tensors/);
    // The same bytes and time as the layer split (--gpus N) itself.
    const layers = estimate('qwen3-30b-a3b', { ...flags, tp: undefined });
    expect(row.result.perGpu).toEqual(layers.result.perGpu);
    expect(row.result.time).toEqual(layers.result.time);
    // A dense model stays under --tp (row split).
    const dense = estimate('qwen2.5-7b', flags);
    expectFinite(dense.result);
    expect(dense.options.tp).toBe(2);
  });

  it('a --tp that does not split the attention heads', () => {
    const tp = { tp: 8, gpus: 8 };
    expect(refusal('qwen2.5-7b', serve('vllm', tp))).toMatch(/vllm: .*config\/model\.py/);
    expect(refusal('qwen2.5-7b', serve('sglang', tp))).toMatch(/sglang: .*models\/llama\.py:183/);
    expect(refusal('qwen2.5-7b', serve('hf-generate', tp))).toMatch(
      /hf-generate: .*integrations\/tensor_parallel\.py/,
    );
  });

  it('torchtune PPO and GRPO outside their recipes', () => {
    const rl = { framework: 'torchtune', method: 'lora' };
    expect(refusal('llama-3.2-1b', { ...rl, objective: 'ppo' })).toMatch(
      /rule torchtune-ppo-full-single-device: .*ppo_full_finetune_single_device\.py/,
    );
    expect(
      refusal('llama-3.2-1b', { ...rl, method: 'full', objective: 'ppo', gpus: 2, zero: 3 }),
    ).toMatch(/torchtune-ppo-full-single-device/);
    expect(refusal('llama-3.2-1b', { ...rl, objective: 'grpo', gpus: 8 })).toMatch(
      /rule torchtune-grpo-full: .*dev\/grpo_full_finetune_distributed\.py/,
    );
    expect(
      refusal('llama-3.2-1b', {
        ...rl,
        method: 'full',
        objective: 'grpo',
        gpus: 8,
        rollout: 'vllm-colocate',
      }),
    ).toMatch(/torchtune-grpo-full/);
  });

  it('a GGUF type on the Hugging Face engines: transformers dequantizes it as it loads', () => {
    // Served: estimated as the float32 model (test/engines/hf-generate-gguf.test.ts); trained: refused.
    expect(refusal('llama-3.1-8b', serve('hf-generate', { weights: 'q4_k_m' }))).toBeNull();
    expect(
      refusal('llama-3.1-8b', { framework: 'hf-trainer', method: 'lora', weights: 'q4_k_m' }),
    ).toMatch(/--weights: got 'q4_k_m'.*modeling_gguf_pytorch_utils\.py.*--weights fp32/);
  });
});
