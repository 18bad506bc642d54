// hf-deepspeed --cp N: DeepSpeed Ulysses sequence parallelism (deepspeed 0.19.8 runtime/sequence_parallel/ulysses_sp.py):
// its head-split rules, the all-to-alls it times, and per-GPU activations that never grow with more SP ranks.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildEstimate } from '../../src/core/estimate.js';
import { engineRefusal, withEngineDefaults } from '../../src/core/engines/defaults.js';
import { onEngine } from '../../src/core/engines/index.js';
import { notWritten } from '../../src/core/engines/engines-runs.js';
import { estimateTime } from '../../src/core/time/index.js';
import { ulyssesElemsPerToken } from '../../src/core/time/train-sequence-parallel.js';
import { modelFacts } from '../../src/core/time/model-facts.js';
import { defaultTimeOptions } from '../../src/schema/time.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';

const llama = resolveModel('llama-3.1-8b'); // 32 query heads, 8 k/v heads, head dim 128
const qwen = resolveModel('qwen2.5-7b'); // 28 query heads, 4 k/v heads
const H100 = findGpu('h100-sxm');
const BASE = { framework: 'hf-deepspeed', method: 'full', zero: 3, attention: 'flash', seq: 65536 };

const refusal = (arch: typeof llama, extra: Record<string, unknown>) => {
  const flags = { ...BASE, gpus: 8, ...extra };
  return engineRefusal(arch, withEngineDefaults(optionsFromFlags(flags), flags), flags);
};
const time = (cp: number, extra: Record<string, unknown> = {}) =>
  estimateTime(
    llama,
    onEngine(
      optionsFromFlags({ ...BASE, gpus: 8, cp, checkpointing: 'full', ...extra }),
      'hf-deepspeed',
    ),
    H100,
    defaultTimeOptions(8),
  );
const phase = (r: ReturnType<typeof time>, p: string) =>
  r.phases.find((x) => x.phase === p)?.seconds ?? 0;

describe('DeepSpeed Ulysses rules (UlyssesSPAttentionHF.__init__, register_with_transformers)', () => {
  it('runs --cp that divides the query heads, with k/v heads dividing it or it them', () => {
    expect(refusal(llama, { cp: 8 })).toBeNull();
    // 8 k/v heads over 16 ranks: repeated to one a rank (kv_replication_factor 2).
    expect(refusal(llama, { cp: 16, gpus: 16 })).toBeNull();
  });
  it('refuses 28 query heads over 8 ranks, naming the heads and the source line', () => {
    expect(refusal(qwen, { cp: 8 })).toMatch(
      /qwen2 has 28 query heads and 4 k\/v heads: --cp 8 .*rule deepspeed-ulysses-heads, deepspeed ==0\.19\.8, .*ulysses_sp\.py#L147-L152/,
    );
    expect(refusal(qwen, { cp: 4 })).toBeNull();
  });
  it('refuses eager attention and --tp beside --cp', () => {
    expect(refusal(llama, { cp: 2, attention: 'eager' })).toMatch(
      /rule deepspeed-ulysses-no-eager/,
    );
    expect(refusal(llama, { cp: 2, tp: 2 })).toMatch(/rule deepspeed-ulysses-layout/);
  });
});

describe('Ulysses all-to-alls (ulysses_sp.py _combine_local_sequences, _partition_global_sequence)', () => {
  it('sends q, k, v and the output; k and v repeated to --cp heads past the k/v heads', () => {
    const m = modelFacts(llama);
    // 4096 (q) + 4096 (output) + 2 x 8 heads x 128 (k, v).
    expect(ulyssesElemsPerToken(m, 8)).toBe(2 * 4096 + 2 * 8 * 128);
    expect(ulyssesElemsPerToken(m, 16)).toBe(2 * 4096 + 2 * 16 * 128);
  });
  it('times them as a sequence-parallel phase: none at --cp 1, on the wire at --cp 8', () => {
    expect(phase(time(1), 'sequence-parallel')).toBe(0);
    const sp = phase(time(8), 'sequence-parallel');
    // 3 passes x 32 layers x 8192 tokens x 10,240 elements x 2 B x 7/8 over NVLink, plus 384 calls' latency.
    const bytes = 3 * 32 * 8192 * 10240 * 2 * (7 / 8);
    expect(sp).toBeGreaterThan(bytes / 900e9);
    expect(sp).toBeLessThan(bytes / 100e9);
    // A recompute runs the forward's again: 2 passes without it.
    const none = phase(time(8, { checkpointing: 'none', seq: 16384 }), 'sequence-parallel');
    const full = phase(time(8, { seq: 16384 }), 'sequence-parallel');
    expect(none).toBeLessThan(full);
  });
});

describe('per-GPU activations under Ulysses', () => {
  it('never grow with more SP ranks (property)', () => {
    const act = (cp: number, seq: number, batch: number) =>
      buildEstimate(
        llama,
        onEngine(optionsFromFlags({ ...BASE, gpus: 16, cp, seq, batch }), 'hf-deepspeed'),
        H100,
      ).perGpu.breakdown;
    fc.assert(
      fc.property(
        fc.constantFrom(1, 2, 4, 8),
        fc.constantFrom(4096, 16384, 65536),
        fc.integer({ min: 1, max: 2 }),
        (cp, seq, batch) => {
          const [more, fewer] = [act(cp * 2, seq, batch), act(cp, seq, batch)];
          return more.activations + more.logits <= fewer.activations + fewer.logits;
        },
      ),
      { numRuns: 20 },
    );
  });
});

describe('launch under Ulysses', () => {
  it('writes no files and says how the Trainer is told (ParallelismConfig sp_backend "deepspeed")', () => {
    const flags = { ...BASE, gpus: 8, cp: 4 };
    const o = onEngine(optionsFromFlags(flags), 'hf-deepspeed');
    expect(notWritten('hf-deepspeed', o, 2, 1)).toMatch(
      /no context parallelism.*ParallelismConfig\(sp_backend="deepspeed", sp_size=4\).*vramplan writes no Ulysses launch/,
    );
  });
});
