/**
 * Parameter all-gathers against the rank count under DeepSpeed ZeRO-3 and torch FSDP FULL_SHARD, full fine-tune and LoRA alike. Each rank holds 1/n of every
 * partitioned weight and receives the other (n - 1)/n in each gathering pass (ZeRO §7, arXiv:1910.02054; DeepSpeed
 * v0.14.4 `partition_parameters.py` `_all_gather_dtype` / `_dist_allgather_fn`), so more ranks never lower what a rank
 * gathers. Under LoRA the frozen base weights are still partitioned and gathered in every pass that runs them (PEFT's
 * `lora.Linear.forward` calls its base layer, huggingface/peft v0.11.1 `tuners/lora/layer.py`).
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { modelFacts, trainWork } from '../../src/core/time/index.js';
import { resolveModel } from '../../src/io/load-model.js';
import { defaultOptions, type EstimateOptions } from '../../src/schema/estimate.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

const qwen7b = modelFacts(resolveModel('Qwen/Qwen2.5-7B'));
const llama7b = modelFacts(resolveModel('meta-llama/Llama-2-7b-hf'));

const run = (
  method: 'full' | 'lora',
  gpus: number,
  checkpointing: 'full' | 'none',
  framework: 'deepspeed' | 'hf',
): EstimateOptions => ({
  ...defaultOptions(method),
  framework,
  weights: 'bf16',
  compute: 'bf16',
  batch: 1,
  seq: 512,
  checkpointing,
  attention: 'flash',
  zero: 3,
  gpus,
  ...(method === 'lora'
    ? { loraRank: 64, loraTargets: ['q', 'k', 'v', 'o', 'gate', 'up', 'down'] as const }
    : {}),
});

describe("ZeRO-3's gathered bytes a rank against the rank count", () => {
  it('more ranks never lower a rank’s gather bytes (full and LoRA, with and without recompute)', () => {
    const t = defaultTimeOptions(2);
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 64 }),
        fc.integer({ min: 1, max: 64 }),
        fc.constantFrom('full' as const, 'lora' as const),
        fc.constantFrom('full' as const, 'none' as const),
        fc.constantFrom('deepspeed' as const, 'hf' as const),
        fc.constantFrom(qwen7b, llama7b),
        (n, more, method, ckpt, framework, m) => {
          const a = trainWork(m, run(method, n, ckpt, framework), t);
          const b = trainWork(m, run(method, n + more, ckpt, framework), t);
          expect(a.gatherBytes).toBeGreaterThan(0);
          expect(b.gatherBytes).toBeGreaterThanOrEqual(a.gatherBytes * (1 - 1e-12));
          expect(b.gatherPassBytes).toBeGreaterThanOrEqual(a.gatherPassBytes * (1 - 1e-12));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('a LoRA run gathers the frozen base weights as a full fine-tune does: (n - 1)/n of them a pass', () => {
    const t = defaultTimeOptions(2);
    for (const n of [2, 4, 8, 32]) {
      const full = trainWork(qwen7b, run('full', n, 'full', 'deepspeed'), t);
      const lora = trainWork(qwen7b, run('lora', n, 'full', 'deepspeed'), t);
      // bf16 base weights: 2 bytes an element of the model, (n - 1)/n of them received a pass.
      expect(lora.gatherPassBytes / (qwen7b.total * 2 * ((n - 1) / n)), String(n)).toBeCloseTo(
        1,
        2,
      );
      expect(lora.gatherPassBytes, String(n)).toBeGreaterThanOrEqual(
        full.gatherPassBytes * (1 - 1e-12),
      );
    }
  });

  it('one rank gathers nothing', () => {
    const w = trainWork(qwen7b, run('lora', 1, 'full', 'deepspeed'), defaultTimeOptions(2));
    expect(w.gatherBytes).toBe(0);
  });
});
