/**
 * Invariants of the memory model as fast-check properties (STYLE.md example 12), over generated
 * HF-style configs (llama, mistral, qwen2, gpt_neox, falcon, mixtral; toy to 405B-class) and every
 * catalog model, with random valid configurations (checkCombination holds).
 */
import fc from 'fast-check';
import { FRAMEWORKS } from '../src/core/memory/frameworks.js';
import { describe, expect, it } from 'vitest';
import type { Arch } from '../src/core/model/index.js';
import { buildEstimate } from '../src/core/estimate.js';
import { estimateMemory, type MemoryEstimate } from '../src/core/memory/index.js';
import { paramCounts } from '../src/core/model/index.js';
import { gpuRates, matmulRate } from '../src/core/time/hardware.js';
import { modelFacts, servedArch } from '../src/core/time/model-facts.js';
import { trainWork } from '../src/core/time/train-work.js';
import { loadGpus } from '../src/io/load-catalog.js';
import { defaultTimeOptions } from '../src/schema/time.js';
import { listModels, resolveModel } from '../src/io/load-model.js';
import type { EstimateOptions } from '../src/schema/estimate.js';
import { checkCombination } from '../src/schema/flags.js';
import {
  generatedArchArb,
  isValid,
  labelled,
  numbersIn,
  optionsArb,
  type ConfigLimits,
  type OptionLimits,
} from './helpers/arbitraries.js';

const catalogArchs: Arch[] = listModels().map((m) =>
  labelled(resolveModel(m.id), `catalog:${m.id}`),
);
const gpus = loadGpus();

/** A generated or catalog model (1 in 3 from the catalog). */
const archArb = (limits: ConfigLimits = {}): fc.Arbitrary<Arch> =>
  fc.oneof(
    { weight: 2, arbitrary: generatedArchArb(limits) },
    { weight: 1, arbitrary: fc.constantFrom(...catalogArchs) },
  );

const caseArb = (archLimits: ConfigLimits = {}, optLimits: OptionLimits = {}) =>
  fc.record({ arch: archArb(archLimits), o: optionsArb(optLimits) });

type Bytes = MemoryEstimate['perGpu'];
const mem = (arch: Arch, o: EstimateOptions): Bytes => estimateMemory(arch, o).perGpu;

/** allocated, reserved and device bytes of `b` are each at most those of `a`. */
function notMore(smaller: Bytes, larger: Bytes): boolean {
  return (
    smaller.allocatedBytes <= larger.allocatedBytes + ROUNDING &&
    smaller.reservedBytes <= larger.reservedBytes + ROUNDING &&
    smaller.deviceBytes <= larger.deviceBytes + ROUNDING
  );
}

/** Asserts the variants are valid and ordered by memory (later never more than earlier). */
function monotone(arch: Arch, variants: EstimateOptions[]): void {
  // pp = 1 throughout: with pp > 1 the reported rank is the max-allocated stage, not max-reserved ([PP]).
  const results = variants.map((v) => {
    const one = { ...v, gpus: v.gpus / v.pp, pp: 1 };
    checkCombination(one);
    return mem(arch, one);
  });
  for (let i = 1; i < results.length; i++) {
    if (!notMore(results[i]!, results[i - 1]!)) {
      throw new Error(
        `memory rose from variant ${i - 1} to ${i}: ${JSON.stringify(results[i - 1])} -> ${JSON.stringify(results[i])}`,
      );
    }
  }
}

const RUNS = Number(process.env.VRAMPLAN_FC_RUNS ?? 150);
// Reproducible in CI (VRAMPLAN_FC_SEED explores others); a shrink never runs away with the suite.
fc.configureGlobal({
  seed: Number(process.env.VRAMPLAN_FC_SEED ?? 20261121),
  interruptAfterTimeLimit: 30_000,
  markInterruptAsFailure: false,
  endOnFailure: true,
});
/** Bytes of slack in comparisons: allocated, reserved and device are rounded separately. */
const ROUNDING = 2;

describe('structure of every estimate', () => {
  it('allocated <= reserved <= device; breakdown is non-negative integers summing to device', () => {
    fc.assert(
      fc.property(caseArb(), ({ arch, o }) => {
        const m = estimateMemory(arch, o).perGpu;
        expect(m.allocatedBytes).toBeLessThanOrEqual(m.reservedBytes);
        expect(m.reservedBytes).toBeLessThanOrEqual(m.deviceBytes);
        const values = Object.values(m.breakdown);
        for (const v of values) {
          expect(Number.isInteger(v)).toBe(true);
          expect(v).toBeGreaterThanOrEqual(0);
        }
        expect(values.reduce((a, b) => a + b, 0)).toBe(m.deviceBytes);
        for (const key of [
          'weights',
          'gradients',
          'optimizer',
          'activations',
          'kvCache',
          'overhead',
        ])
          expect(m.breakdown).toHaveProperty(key);
      }),
      { numRuns: RUNS * 2 },
    );
  });

  it('no NaN, Infinity or negative bytes anywhere in the result, which survives a JSON round trip', () => {
    fc.assert(
      fc.property(
        caseArb(),
        fc.option(fc.constantFrom(...gpus), { nil: undefined }),
        ({ arch, o }, gpu) => {
          const r = buildEstimate(arch, o, gpu);
          expect(JSON.parse(JSON.stringify(r))).toEqual(r);
          for (const [path, n] of numbersIn(r)) {
            expect(Number.isFinite(n), path).toBe(true);
            // headroom is capacity - device: negative when it does not fit.
            if (!path.endsWith('.headroomBytes')) expect(n, path).toBeGreaterThanOrEqual(0);
          }
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('same input gives byte-identical JSON (determinism)', () => {
    fc.assert(
      fc.property(caseArb(), ({ arch, o }) => {
        const copy = structuredClone(o);
        expect(JSON.stringify(buildEstimate(arch, o))).toBe(
          JSON.stringify(buildEstimate(structuredClone(arch), copy)),
        );
      }),
      { numRuns: Math.ceil(RUNS / 3) },
    );
  });
});

describe('extreme scale: 405B on 1,024 GPUs at 1M-token contexts', () => {
  const big = catalogArchs.find((a) => a.id === 'llama-3.1-405b');
  const deepseek = catalogArchs.find((a) => a.id === 'deepseek-v3');
  it('the catalog holds the 405B and 671B models', () => {
    expect(big).toBeDefined();
    expect(deepseek).toBeDefined();
  });

  it('every byte count is a finite, non-negative safe integer', () => {
    const layouts = fc.constantFrom(
      { gpus: 1024, tp: 8, pp: 16 },
      { gpus: 1024, tp: 8, pp: 1 },
      { gpus: 1024, tp: 1, pp: 1 },
      { gpus: 1024, tp: 4, pp: 4 },
    );
    fc.assert(
      fc.property(
        fc.constantFrom(big!, deepseek!),
        optionsArb({ maxBatch: 8 }),
        layouts,
        fc.constantFrom(1_048_576, 1_000_000, 131_072),
        (arch, base, layout, seq) => {
          // [S] eager attention saves s² fp32 scores: 405B qlora --attention eager --compute fp32 --gpus 1024
          // --tp 8 --pp 16 --seq 1048576 needs 9.06e15 B > 2^53, so its byte count cannot be exact.
          const o = {
            ...base,
            ...layout,
            seq,
            attention: base.attention === 'eager' ? ('sdpa' as const) : base.attention,
          };
          fc.pre(isValid(o));
          const r = buildEstimate(
            arch,
            o,
            gpus.find((g) => g.id === 'h100-sxm'),
          );
          expect(JSON.parse(JSON.stringify(r))).toEqual(r);
          for (const [path, n] of numbersIn({
            perGpu: r.perGpu,
            phases: r.phases,
            host: r.hostBytesPerGpu,
            uncertainty: r.uncertainty,
          })) {
            expect(Number.isSafeInteger(n), `${path} = ${n}`).toBe(true);
            expect(n, path).toBeGreaterThanOrEqual(0);
          }
        },
      ),
      { numRuns: Math.ceil(RUNS / 2) },
    );
  });
});

/*
 * Regions where a knob legitimately costs memory (modelled mechanisms, so the generators stay outside):
 *  [Z23] ZeRO-3 at dp 2, or with embedding-dominated models: FSDP keeps the root unit (embeddings,
 *        output layer) and the prefetched layers unsharded, which can outweigh halving the rest.
 *  [Q]   int8/nf4 vs bf16: quantized runs keep embeddings and norms in the compute dtype (fp32 with
 *        --compute fp32), and bitsandbytes k-bit matmuls save their input for backward (fw.bnbSavesInput),
 *        so k-bit LoRA activations exceed bf16 LoRA on the HF, LitGPT, DeepSpeed and Unsloth stacks.
 *  [S]   eager attention at 1M tokens on 405B exceeds 2^53 bytes (not exactly representable).
 * Fixed since first found (kept as regression cases by the unconstrained properties): ZeRO 1 -> 2 bucket,
 * checkpointing vs none at tiny batch x seq, worst pipeline rank by device bytes, tied embed + lm_head
 * counted twice, quantize-on-load transient per TP rank.
 */
const TOY_FREE: ConfigLimits = { minLayers: 16 };
const FLOAT = ['fp32', 'fp16', 'bf16'];

describe('monotonicity: more of a memory-saving knob never costs per-GPU memory', () => {
  it('ZeRO 0 -> 1 never raises memory', () => {
    fc.assert(
      fc.property(caseArb(), ({ arch, o }) => {
        monotone(
          arch,
          ([0, 1] as const).map((zero) => ({ ...o, zero, offload: 'none' as const })),
        );
      }),
      { numRuns: RUNS },
    );
  });

  it('ZeRO 1 -> 2 -> 3 never raises memory (dp >= 8: at dp 2 the gathered FSDP root unit is real overhead)', () => {
    fc.assert(
      // hidden >= 512: in embedding-dominated toys the unsharded FSDP root unit outweighs the sharding ([Z23]).
      fc.property(
        caseArb({ ...TOY_FREE, minHidden: 512 }),
        fc.integer({ min: 8, max: 64 }),
        fc.constantFrom('bf16', 'fp16'),
        ({ arch, o }, dp, dtype) => {
          // FSDP keeps the root unit (embeddings, output layer) unsharded: when those outweigh the layers,
          // ZeRO-3 really costs more than ZeRO-2 (a modelled mechanism, not a bug).
          const p = paramCounts(arch);
          fc.pre(p.embed + p.lmHead < 0.25 * p.total);
          const region = { ...o, gpus: dp * o.tp * o.pp } as const;
          const method = o.method === 'qlora' ? 'lora' : o.method;
          const base = {
            ...region,
            method,
            compute: dtype,
            weights: FLOAT.includes(o.weights) ? o.weights : dtype,
          };
          monotone(
            arch,
            ([1, 2, 3] as const).map((zero) => ({ ...base, zero, offload: 'none' as const })),
          );
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('more data-parallel GPUs under ZeRO 1-3 never raise memory', () => {
    fc.assert(
      fc.property(
        caseArb(),
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 1, max: 16 }),
        ({ arch, o }, zero, extra) => {
          const z = zero as 1 | 2 | 3;
          const offload = o.offload === 'optimizer+params' && z !== 3 ? 'optimizer' : o.offload;
          // From dp >= 2: going 1 -> 2 switches on ZeRO-3 gathering and ZeRO-2 buckets ([Z23], [Z12]).
          const dp = Math.max(2, o.gpus / (o.tp * o.pp));
          const at = (d: number) => ({ ...o, zero: z, offload, gpus: d * o.tp * o.pp });
          monotone(arch, [at(dp), at(dp + extra), at((dp + extra) * 2)]);
        },
      ),
      { numRuns: RUNS },
    );
  });

  // From cp 2 up: gradients are reduced over the cp ranks from then on (torchtitan's dp_cp mesh), as at cp 1
  // with data parallelism; what changes is the share of each sequence a rank holds.
  it('context parallel: more cp never raises per-GPU memory (ZeRO 0: only activations and logits change)', () => {
    fc.assert(
      fc.property(caseArb({}, { methods: ['full', 'lora', 'qlora'] }), ({ arch, o }) => {
        // Ring attention splits each sequence evenly: a length every cp here divides.
        const seq = Math.max(8, o.seq - (o.seq % 8));
        const base = { ...o, seq, zero: 0 as const, offload: 'none' as const, pp: 1, cp: 1 };
        const per = base.tp;
        monotone(arch, [
          { ...base, cp: 2, gpus: per * 2 },
          { ...base, cp: 4, gpus: per * 4 },
          { ...base, cp: 8, gpus: per * 8 },
        ]);
      }),
      { numRuns: RUNS },
    );
  });

  it('sequence parallel and loss parallel never raise per-GPU memory under TP', () => {
    fc.assert(
      fc.property(
        caseArb({}, { methods: ['full', 'lora', 'qlora'] }),
        fc.constantFrom(2, 4),
        ({ arch, o }, tp) => {
          fc.pre(arch.groups.every((g) => g.heads % tp === 0 && g.kvHeads % tp === 0));
          const base = { ...o, tp, pp: 1, cp: 1, gpus: tp * (o.gpus / (o.tp * o.pp * o.cp)) };
          fc.pre(Number.isInteger(base.gpus) && base.gpus >= tp);
          const plain = { ...base, sequenceParallel: false, lossParallel: false };
          monotone(arch, [plain, { ...plain, sequenceParallel: true }]);
          monotone(arch, [plain, { ...plain, lossParallel: true }]);
          const a = estimateMemory(arch, plain).perGpu.breakdown;
          const b = estimateMemory(arch, { ...plain, lossParallel: true }).perGpu.breakdown;
          expect(b.logits).toBeLessThanOrEqual(a.logits + ROUNDING);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('--compile never raises per-GPU memory (fused norms and SwiGLU save less)', () => {
    fc.assert(
      fc.property(caseArb({}, { methods: ['full', 'lora', 'qlora'] }), ({ arch, o }) => {
        monotone(arch, [
          { ...o, compile: false },
          { ...o, compile: true },
        ]);
      }),
      { numRuns: RUNS },
    );
  });

  it('--liger never raises per-GPU memory with a frozen output layer (LoRA/QLoRA on the HF stacks)', () => {
    // A trained output layer is the exception: the fused kernel's V x H weight-gradient product can exceed
    // the logits of a short micro-batch (test/engines/liger.test.ts).
    fc.assert(
      fc.property(caseArb({}, { methods: ['lora', 'qlora'] }), ({ arch, o }) => {
        const framework = o.framework === 'deepspeed' ? ('deepspeed' as const) : ('hf' as const);
        const plain: EstimateOptions = { ...o, framework, liger: false };
        if (!isValid(plain)) return;
        monotone(arch, [plain, { ...plain, liger: true }]);
      }),
      { numRuns: RUNS },
    );
  });

  it('--liger slows a LoRA/QLoRA step on the HF stacks by no more than its chunked output layer (plan.ts Variant)', () => {
    const gpus = loadGpus();
    fc.assert(
      fc.property(
        caseArb({}, { methods: ['lora', 'qlora'] }),
        fc.integer({ min: 0, max: gpus.length - 1 }),
        ({ arch, o }, gi) => {
          const framework = o.framework === 'deepspeed' ? ('deepspeed' as const) : ('hf' as const);
          const plain: EstimateOptions = { ...o, framework, liger: false };
          if (!isValid(plain)) return;
          const gpu = gpus[gi]!;
          const liger = { ...plain, liger: true };
          const step = (x: EstimateOptions) => buildEstimate(arch, x, gpu).time!.stepSeconds;
          // Liger's fused norms, SwiGLU, RoPE and loss never cost more than the eager ones; only its output layer
          // run in chunks of rows can (kernels/liger.ts ligerChunkGemmSlowdown): its seconds a step bound the rest.
          const t = defaultTimeOptions(liger.gpus);
          const w = trainWork(modelFacts(servedArch(arch, liger)), liger, t);
          const rate = matmulRate(gpuRates(gpu, t), w.fp32, w.bf16) * w.shape;
          const chunks = (w.lossChunkExtraFlops / rate) * w.microBatches;
          // stepSeconds is rounded to 4 significant digits (time/estimate-time.ts round): half a unit of the 4th
          // digit either side.
          expect(step(liger)).toBeLessThanOrEqual((step(plain) + chunks) * (1 + 1e-3));
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('checkpointing: none >= full and none >= offload', () => {
    fc.assert(
      fc.property(caseArb(TOY_FREE, { methods: ['full', 'lora', 'qlora'] }), ({ arch, o }) => {
        const none = { ...o, checkpointing: 'none' as const };
        monotone(arch, [none, { ...o, checkpointing: 'full' }]);
        monotone(arch, [none, { ...o, checkpointing: 'offload' }]);
      }),
      { numRuns: RUNS },
    );
  });

  it('checkpointing: none >= selective', () => {
    fc.assert(
      fc.property(caseArb({}, { methods: ['full', 'lora', 'qlora'] }), ({ arch, o }) => {
        monotone(arch, [
          { ...o, checkpointing: 'none' },
          { ...o, checkpointing: 'selective' },
        ]);
      }),
      { numRuns: RUNS },
    );
  });

  it('fp32 >= bf16 >= int8 >= nf4 weights for inference (region: no [Q], lm_head kept 16-bit)', () => {
    fc.assert(
      fc.property(
        caseArb({ ...TOY_FREE, minHidden: 512 }, { methods: ['inference'] }),
        fc.constantFrom('bf16', 'fp16'),
        ({ arch, o }, compute) => {
          fc.pre(arch.hidden >= 512);
          // LitGPT's bitsandbytes path quantizes lm_head too and dequantizes it whole in prefill: on a small
          // model with a huge vocabulary that transient outweighs what 4-bit saves (a real cost, not a bug).
          fc.pre(!FRAMEWORKS[o.framework].bnbQuantizesAll);
          const at = (weights: EstimateOptions['weights']) =>
            ({
              ...o,
              compute,
              weights,
              sparsity: 0,
              tp: 1,
              pp: 1,
              gpus: 1,
              zero: 0,
              offload: 'none',
            }) as const;
          monotone(arch, [at('fp32'), at('bf16'), at('int8'), at('nf4')]);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('fp32 >= bf16 >= int8 >= nf4 weights for LoRA (region: no [Q], k-bit matmuls that do not save inputs)', () => {
    fc.assert(
      fc.property(
        caseArb({ ...TOY_FREE, minHidden: 512 }, { methods: ['lora'] }),
        fc.constantFrom('bf16', 'fp16'),
        fc.constantFrom('torchtune', 'torchtitan', 'vllm'),
        ({ arch, o }, compute, framework) => {
          fc.pre(arch.hidden >= 512);
          // --master-weights adds 4 B/param for 16-bit adapters only: bf16 + master > fp32 by design.
          const at = (weights: EstimateOptions['weights']) =>
            ({
              ...o,
              compute,
              framework,
              weights,
              masterWeights: false,
              sparsity: 0,
              tp: 1,
              pp: 1,
              gpus: 1,
              zero: 0,
              offload: 'none',
            }) as const;
          monotone(arch, [at('fp32'), at('bf16'), at('int8'), at('nf4')]);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('a smaller micro-batch never raises memory', () => {
    fc.assert(
      fc.property(caseArb(), fc.integer({ min: 1, max: 64 }), ({ arch, o }, less) => {
        monotone(arch, [o, { ...o, batch: Math.max(1, o.batch - less) }]);
      }),
      { numRuns: RUNS },
    );
  });

  it('a shorter sequence never raises memory', () => {
    fc.assert(
      fc.property(caseArb(), fc.double({ min: 0, max: 1, noNaN: true }), ({ arch, o }, f) => {
        monotone(arch, [o, { ...o, seq: Math.max(1, Math.floor(o.seq * f)) }]);
      }),
      { numRuns: RUNS },
    );
  });
});

describe('trainable parameters', () => {
  it('LoRA and QLoRA train fewer parameters than full fine-tuning; inference trains none', () => {
    fc.assert(
      fc.property(caseArb({}, { methods: ['lora', 'qlora'] }), ({ arch, o }) => {
        // r x (in + out) < in x out needs r below half the narrowest adapted dimension (LoRA §4); not a model bug.
        fc.pre(
          o.loraRank * 8 <=
            Math.min(arch.hidden, ...arch.groups.flatMap((g) => [g.headDim * g.kvHeads, g.ffn])),
        );
        const full = estimateMemory(arch, { ...o, method: 'full', weights: 'bf16' }).params;
        const lora = estimateMemory(arch, o).params;
        expect(lora.total).toBe(full.total);
        // Targets no module matches (gate on a non-gated MLP, v on DeepSeek MLA) train nothing, silently;
        // PEFT raises "Target modules not found" instead.
        expect(lora.trainable).toBeGreaterThanOrEqual(0);
        if (o.loraTargets.some((t) => ['q', 'embed', 'lm_head'].includes(t)))
          expect(lora.trainable).toBeGreaterThan(0);
        expect(lora.trainable).toBeLessThan(full.trainable);
        expect(full.trainable).toBe(full.total);
        expect(
          estimateMemory(arch, { ...o, method: 'inference', optimizer: 'none' }).params.trainable,
        ).toBe(0);
      }),
      { numRuns: RUNS },
    );
  });
});
