/** fast-check generators shared by the property and fuzz tests: HF-style configs and valid contract options. */
import fc from 'fast-check';
import { archFromHfConfig } from '../../src/core/model/index.js';
import type { Arch } from '../../src/core/model/index.js';
import {
  ATTENTION,
  CHECKPOINTING,
  COMPUTE_DTYPES,
  FRAMEWORKS,
  LORA_TARGETS,
  METHODS,
  OPTIMIZERS,
  STATE_DTYPES,
  WEIGHT_DTYPES,
  defaultOptions,
  type EstimateOptions,
  type LoraTarget,
  type Method,
  type WeightDtype,
} from '../../src/schema/estimate.js';
import { checkCombination } from '../../src/schema/flags.js';

export const FAMILIES = ['llama', 'mistral', 'qwen2', 'gpt_neox', 'falcon', 'mixtral'] as const;
export type Family = (typeof FAMILIES)[number];

const divisors = (n: number): number[] =>
  Array.from({ length: n }, (_, i) => i + 1).filter((d) => n % d === 0);

export interface ConfigLimits {
  maxHeads?: number;
  maxLayers?: number;
  minLayers?: number;
  /** Smallest hidden size (heads x head dim). */
  minHidden?: number;
  families?: readonly Family[];
}

/** A Hugging Face config.json object of one of FAMILIES, from a 2-layer toy up to a 405B-class model. */
export function hfConfigArb(limits: ConfigLimits = {}): fc.Arbitrary<Record<string, unknown>> {
  return fc
    .record({
      family: fc.constantFrom(...(limits.families ?? FAMILIES)),
      heads: fc.integer({ min: 1, max: limits.maxHeads ?? 128 }),
      headDim: fc.constantFrom(
        ...[8, 16, 32, 64, 128].filter(
          (d) => d * (limits.maxHeads ?? 128) >= (limits.minHidden ?? 0),
        ),
      ),
      kvPick: fc.nat(),
      layers: fc.integer({ min: limits.minLayers ?? 1, max: limits.maxLayers ?? 128 }),
      vocab: fc.integer({ min: 16, max: 262_144 }),
      ffnMult: fc.double({ min: 0.5, max: 8, noNaN: true }),
      tied: fc.boolean(),
      flag: fc.boolean(),
      window: fc.option(fc.integer({ min: 16, max: 32_768 }), { nil: null }),
      experts: fc.integer({ min: 2, max: 16 }),
      topKPick: fc.nat(),
    })
    .map((r) => {
      const heads = Math.max(r.heads, Math.ceil((limits.minHidden ?? 0) / r.headDim));
      r = { ...r, heads };
      const hidden = r.heads * r.headDim;
      const kvList = divisors(r.heads);
      const kvHeads = kvList[r.kvPick % kvList.length] ?? 1;
      const ffn = Math.max(8, Math.round(hidden * r.ffnMult));
      const common = {
        model_type: r.family,
        hidden_size: hidden,
        num_attention_heads: r.heads,
        num_hidden_layers: r.layers,
        vocab_size: r.vocab,
        intermediate_size: ffn,
        tie_word_embeddings: r.tied,
        torch_dtype: 'bfloat16',
      };
      switch (r.family) {
        case 'llama':
          return { ...common, num_key_value_heads: kvHeads, attention_bias: r.flag };
        case 'mistral':
          return { ...common, num_key_value_heads: kvHeads, sliding_window: r.window };
        case 'qwen2':
          return {
            ...common,
            num_key_value_heads: kvHeads,
            use_sliding_window: r.flag,
            sliding_window: r.window ?? 4096,
            max_window_layers: Math.floor(r.layers / 2),
          };
        case 'mixtral':
          return {
            ...common,
            num_key_value_heads: kvHeads,
            num_local_experts: r.experts,
            num_experts_per_tok: 1 + (r.topKPick % Math.min(r.experts, 4)),
            sliding_window: r.window,
          };
        case 'gpt_neox':
          return { ...common, use_parallel_residual: r.flag };
        case 'falcon':
          return {
            model_type: 'falcon',
            hidden_size: hidden,
            num_attention_heads: r.heads,
            num_hidden_layers: r.layers,
            vocab_size: r.vocab,
            new_decoder_architecture: r.flag,
            num_kv_heads: kvHeads,
            multi_query: !r.flag,
            parallel_attn: true,
            tie_word_embeddings: r.tied,
            torch_dtype: 'bfloat16',
          };
      }
    });
}

/** Non-enumerable, so spreads, JSON and deep equality ignore it. */
function printsAs<T extends object>(value: T, show: () => string): T {
  return Object.defineProperty(value, fc.toStringMethod, { value: show, enumerable: false });
}

/** An Arch that prints as its source (a catalog id or the config) in fast-check counterexamples. */
export function labelled(arch: Arch, source: string): Arch {
  return printsAs(arch, () => source);
}

/** The Arch of a generated config (the generated configs are always valid). */
export function generatedArchArb(limits: ConfigLimits = {}): fc.Arbitrary<Arch> {
  return hfConfigArb(limits).map((config) =>
    labelled(archFromHfConfig(config, { id: 'generated', hfId: null }), JSON.stringify(config)),
  );
}

/** Options that print as their difference from the method's defaults. */
export function withDiffString(o: EstimateOptions): EstimateOptions {
  const d: Record<string, unknown> = defaultOptions(o.method);
  const diff = Object.fromEntries(
    Object.entries(o).filter(([k, v]) => JSON.stringify(v) !== JSON.stringify(d[k])),
  );
  return printsAs(o, () => `options(${JSON.stringify({ method: o.method, ...diff })})`);
}

const FLOAT_WEIGHTS: readonly WeightDtype[] = ['fp32', 'fp16', 'bf16'];
const QUANT_WEIGHTS: readonly WeightDtype[] = ['fp8', 'int8', 'nf4', 'fp4', 'int4'];
const ALL_LINEAR: readonly LoraTarget[] = ['q', 'k', 'v', 'o', 'gate', 'up', 'down'];

export interface OptionLimits {
  methods?: readonly Method[];
  maxBatch?: number;
  maxSeq?: number;
  maxDp?: number;
}

/** Options that pass checkCombination (as `optionsFromFlags` would return them). */
export function optionsArb(limits: OptionLimits = {}): fc.Arbitrary<EstimateOptions> {
  return fc
    .constantFrom(...(limits.methods ?? METHODS))
    .chain((method) =>
      fc.record({
        method: fc.constant(method),
        weights: fc.constantFrom(
          ...(method === 'full'
            ? FLOAT_WEIGHTS
            : method === 'qlora'
              ? QUANT_WEIGHTS
              : WEIGHT_DTYPES),
        ),
        compute: fc.constantFrom(...COMPUTE_DTYPES),
        masterWeights: fc.boolean(),
        doubleQuant: fc.boolean(),
        optimizer:
          method === 'inference' ? fc.constant('none' as const) : fc.constantFrom(...OPTIMIZERS),
        optimizerStates: fc.constantFrom(...STATE_DTYPES),
        loraRank: fc.oneof(fc.integer({ min: 1, max: 256 }), fc.constantFrom(1024, 65_536)),
        loraTargets: fc.subarray([...LORA_TARGETS], { minLength: 1 }),
        loraAllLinear: fc.boolean(),
        batch: fc.integer({ min: 1, max: limits.maxBatch ?? 64 }),
        seq: fc.integer({ min: 1, max: limits.maxSeq ?? 32_768 }),
        checkpointing: fc.constantFrom(...CHECKPOINTING),
        attention: fc.constantFrom(...ATTENTION),
        chunkedLoss: fc.boolean(),
        optimizerInBackward: fc.boolean(),
        zero: fc.constantFrom(0, 1, 2, 3),
        offloadPick: fc.nat(2),
        tp: fc.constantFrom(1, 2, 4, 8),
        pp: fc.constantFrom(1, 2, 4),
        dp: fc.integer({ min: 1, max: limits.maxDp ?? 64 }),
        sparsity: fc.oneof(fc.constant(0), fc.double({ min: 0, max: 0.99, noNaN: true })),
        sparseFormat: fc.constantFrom('csr' as const, '2:4' as const),
        framework: fc.constantFrom(...FRAMEWORKS),
      }),
    )
    .map(({ offloadPick, dp, loraTargets, ...r }): EstimateOptions => {
      const zero = r.zero as 0 | 1 | 2 | 3;
      const offload =
        zero === 0
          ? 'none'
          : zero === 3
            ? (['none', 'optimizer', 'optimizer+params'] as const)[offloadPick]!
            : offloadPick === 0
              ? 'none'
              : 'optimizer';
      const targets = r.loraAllLinear ? [...new Set([...loraTargets, ...ALL_LINEAR])] : loraTargets;
      const fourBit = ['nf4', 'fp4', 'int4'].includes(r.weights);
      let sparsity = fourBit ? 0 : r.sparsity;
      if (r.sparseFormat === '2:4' && sparsity > 0 && sparsity < 0.5) sparsity = 0.5;
      return {
        ...r,
        zero,
        offload,
        loraTargets: targets,
        sparsity,
        gpus: dp * r.tp * r.pp,
        cp: 1,
        sequenceParallel: false,
        lossParallel: false,
        compile: false,
        liger: false, // liger's own property: test/properties.test.ts
      };
    })
    .filter(isValid)
    .map(withDiffString);
}

export function isValid(o: EstimateOptions): boolean {
  try {
    checkCombination(o);
    return true;
  } catch {
    return false;
  }
}

/** Every number in a JSON-like value with its path. */
export function numbersIn(value: unknown, path = '$'): [string, number][] {
  if (typeof value === 'number') return [[path, value]];
  if (Array.isArray(value)) return value.flatMap((v, i) => numbersIn(v, `${path}[${i}]`));
  if (typeof value === 'object' && value !== null)
    return Object.entries(value).flatMap(([k, v]) => numbersIn(v, `${path}.${k}`));
  return [];
}
