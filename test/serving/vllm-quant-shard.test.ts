// vLLM 0.33.0 and a block-scaled FP8 checkpoint split over tensor-parallel ranks (read in the wheel): a routed expert's
// share the [128, 128] blocks do not tile gets its scales refined to gcd(128, 128, share, hidden) when that is 32 or
// more (fused_moe/oracle/fp8.py refine_fp8_moe_block_shape) and is refused below (fp8_utils.py
// validate_fp8_block_shape_moe); a dense MLP's down projection (RowParallelLinear) is refused unless its input share is
// a multiple of block_k (validate_fp8_block_shape), the merged gate/up exempt (linear.py
// _maybe_allow_fp8_block_shape_mismatch). So Qwen3-235B-A22B-FP8 at TP 8 (192 a rank, refined to 64x64 blocks) loads
// on 0.33.0, though releases before the refinement refused it (the model card's note).
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { engineRefusal, withEngineDefaults } from '../../src/core/engines/defaults.js';
import { forbiddenBy } from '../../src/core/engines/rules.js';
import { blockFp8RefusedShard } from '../../src/core/engines/block-fp8-shard.js';
import { int4GroupRefusedShard } from '../../src/core/engines/vllm/int4-group.js';
import { VLLM_BLOCK_FP8_SHARDING, VLLM_RULES } from '../../src/core/engines/vllm/rules.js';
import { plan } from '../../src/core/plan/index.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { inputOf } from './plan-input.js';

/** The catalog entries whose FP8 checkpoint is block-scaled, by the repository that ships it. */
const CHECKPOINTS = [
  ['qwen3-235b-a22b-fp8', 'qwen3-235b-a22b-fp8'],
  ['deepseek-v3', 'deepseek-v3'],
  ['kimi-k2-instruct', 'kimi-k2-instruct'],
  ['minimax-m2', 'minimax-m2'],
  ['qwen3-32b', 'Qwen/Qwen3-32B-FP8'],
  ['qwen3-30b-a3b', 'Qwen/Qwen3-30B-A3B-FP8'],
] as const;

interface Shapes {
  hidden: number;
  heads: number;
  expert: number | null;
  dense: number | null;
  block: [number, number];
}

/** The widths straight from the catalog's config.json (and its FP8 checkpoint's quantization_config). */
function shapesOf(file: string): Shapes {
  const entry = JSON.parse(readFileSync(`catalogs/models/${file}.json`, 'utf8')) as {
    config: Record<string, unknown>;
    quantized?: { quantizationConfig: { weight_block_size?: [number, number] } }[];
  };
  const c = entry.config as Record<string, number | undefined> & {
    quantization_config?: { weight_block_size: [number, number] };
  };
  const experts = c.num_experts ?? c.n_routed_experts ?? c.num_local_experts ?? 0;
  const block =
    c.quantization_config?.weight_block_size ??
    entry.quantized![0]!.quantizationConfig.weight_block_size!;
  return {
    hidden: c.hidden_size!,
    heads: c.num_attention_heads!,
    expert: experts > 1 ? (c.moe_intermediate_size ?? c.intermediate_size!) : null,
    dense: experts <= 1 || (c.first_k_dense_replace ?? 0) > 0 ? c.intermediate_size! : null,
    block,
  };
}

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

/** What vLLM 0.33.0 does with each rank's shard, computed from the shapes: refused, or loaded. */
function vllmRefuses(s: Shapes, tp: number, ep: boolean): boolean {
  const [n, k] = s.block;
  const moeTp = ep ? 1 : tp;
  if (s.expert !== null && moeTp > 1) {
    const share = s.expert / moeTp;
    const tiles = share % n === 0 && share % k === 0;
    if (!tiles && gcd(gcd(n, k), gcd(share, s.hidden)) < 32) return true;
  }
  return s.dense !== null && tp > 1 && (s.dense / tp) % k !== 0;
}

function refusal(model: string, flags: Record<string, unknown>): string | null {
  const all = {
    method: 'inference',
    weights: 'fp8',
    seq: 4096,
    batch: 32,
    framework: 'vllm',
    ...flags,
  };
  return engineRefusal(resolveModel(model), withEngineDefaults(optionsFromFlags(all), all), all);
}

const RULE =
  /rule vllm-block-fp8-shard: vllm ==0\.33\.0, https:\/\/pypi\.org\/project\/vllm\/0\.33\.0\/ \(wheel\) vllm\/model_executor\/layers\/quantization\/utils\/fp8_utils\.py/;

describe('vLLM block-FP8 shards over TP ranks', () => {
  it('refines the experts it can: Qwen3-235B-A22B-FP8 loads at TP 8 (192, 64-wide blocks) and 16 (96, 32-wide)', () => {
    expect(refusal('qwen3-235b-a22b-fp8', { gpus: 8, tp: 8 })).toBeNull();
    expect(refusal('qwen3-235b-a22b-fp8', { gpus: 16, tp: 16 })).toBeNull();
  });

  it('refuses an expert share no block of 32 divides: Qwen3-235B-A22B-FP8 at TP 32 (48 a rank)', () => {
    const r = refusal('qwen3-235b-a22b-fp8', { gpus: 32, tp: 32 });
    expect(r).toMatch(/each rank's 48 of the intermediate width/);
    expect(r).toMatch(RULE);
    // Expert parallelism keeps each 1,536-wide expert whole on its rank.
    expect(
      refusal('qwen3-235b-a22b-fp8', { gpus: 32, tp: 1, 'dp-attention': true, ep: 32 }),
    ).toBeNull();
  });

  it("refuses a dense MLP's down projection share block_k does not tile: Qwen3-32B-FP8 at TP 16 (1,600)", () => {
    expect(refusal('Qwen/Qwen3-32B-FP8', { gpus: 16, tp: 16 })).toMatch(/each rank's 1600 of/);
    expect(refusal('Qwen/Qwen3-32B-FP8', { gpus: 8, tp: 8 })).toBeNull();
    // DeepSeek-V3's three dense layers: 18,432 over 32 is 576, expert parallelism or not.
    expect(refusal('deepseek-v3', { gpus: 32, tp: 32, ep: 32 })).toMatch(/each rank's 576 of/);
  });

  it('leaves a bf16 load of the same model alone', () => {
    expect(refusal('qwen3-32b', { gpus: 16, tp: 16, weights: 'bf16' })).toBeNull();
  });

  it('refuses exactly the catalog layouts the shard shapes say vLLM refuses', () => {
    let refused = 0;
    for (const [file, model] of CHECKPOINTS) {
      const s = shapesOf(file);
      const arch = resolveModel(model);
      expect(arch.quant?.block).toEqual(s.block);
      for (const tp of [2, 4, 8, 16, 32, 64]) {
        if (s.heads % tp !== 0) continue;
        for (const ep of s.expert === null ? [false] : [false, true]) {
          const all = {
            method: 'inference',
            weights: 'fp8',
            framework: 'vllm',
            gpus: tp,
            tp,
            seq: 4096,
            batch: 8,
            ...(ep ? { ep: tp } : {}),
          };
          const o = withEngineDefaults(optionsFromFlags(all), all);
          const got =
            blockFp8RefusedShard({ arch, options: o, dp: 1, accum: 1 }, VLLM_BLOCK_FP8_SHARDING) !==
            null;
          expect({ model, tp, ep, refused: got }).toEqual({
            model,
            tp,
            ep,
            refused: vllmRefuses(s, tp, ep),
          });
          if (got) refused++;
        }
      }
    }
    // The table holds refusals (not a check that passes for want of any).
    expect(refused).toBeGreaterThanOrEqual(4);
  });
});

/** A catalog checkpoint with its MLP intermediate width changed to `ffn`: shards the catalog's own widths tile. */
function withWidth(input: ReturnType<typeof inputOf>, ffn: number): ReturnType<typeof inputOf> {
  const arch = { ...input.arch, groups: input.arch.groups.map((g) => ({ ...g, ffn })) };
  return { ...input, arch };
}

describe('the serving search never offers a layout vLLM refuses', () => {
  // Widths an odd multiple of 64 (experts) or of 32 (dense): the catalog's checkpoints tile at every TP the search
  // tries within a node, these are refused at TP 4 and 8 (expert shares 80 to 176: gcd with 128 is 16; dense shares
  // block_k does not divide), so the search has layouts to leave out.
  const cases = fc.oneof(
    fc.record({
      model: fc.constant('Qwen/Qwen3-30B-A3B-FP8'),
      ffn: fc.constantFrom(320, 448, 576, 704),
    }),
    fc.record({ model: fc.constant('Qwen/Qwen3-32B-FP8'), ffn: fc.constantFrom(25_568, 25_632) }),
  );

  it('every vLLM plan passes the rules, and those at TP 4 or 8 would not', () => {
    fc.assert(
      fc.property(cases, ({ model, ffn }) => {
        const base = inputOf('serve-deepseek-v3-8xh200.yaml', (s) => {
          s.model = model;
          s.search = { ...s.search, engines: ['vllm'] } as typeof s.search;
          s.job = { ...s.job, concurrency: 64 } as typeof s.job;
          delete (s as { expect?: unknown }).expect;
        });
        const input = withWidth(base, ffn);
        const plans = plan(input).plans;
        expect(plans.length).toBeGreaterThan(0);
        for (const p of plans) {
          const x = { arch: input.arch, options: p.options, dp: p.choices.dp, accum: 1 };
          expect(forbiddenBy(VLLM_RULES, x)).toBeNull();
          expect(blockFp8RefusedShard(x, VLLM_BLOCK_FP8_SHARDING)).toBeNull();
        }
        // The same plan's options at TP 4 and TP 8 without expert parallelism are what the rule refuses.
        for (const tp of [4, 8]) {
          const options = { ...plans[0]!.options, tp, gpus: tp, ep: 1, dpAttention: false };
          expect(
            blockFp8RefusedShard(
              { arch: input.arch, options, dp: 1, accum: 1 },
              VLLM_BLOCK_FP8_SHARDING,
            ),
          ).not.toBeNull();
        }
      }),
      { numRuns: 4 },
    );
  });
});

describe('vLLM int4 scale groups over TP ranks', () => {
  // 16-bit catalog entries whose int4 checkpoint is the W4A16 one vramplan makes (group 128), read straight from
  // config.json: a row-parallel linear's input share (o_proj: heads x head_dim / TP; down_proj: intermediate / TP)
  // must hold whole groups (vllm 0.33.0 verify_group_size_divides_partition, auto_awq.py:819).
  const MADE = ['llama-2-7b', 'codellama-34b', 'qwen2-0.5b', 'llama-3.1-8b', 'open-llama-3b'];

  const refusesFromConfig = (file: string, tp: number): boolean => {
    const c = (
      JSON.parse(readFileSync(`catalogs/models/${file}.json`, 'utf8')) as {
        config: Record<string, number>;
      }
    ).config;
    const heads = c.num_attention_heads!;
    const headDim = c.head_dim ?? c.hidden_size! / heads;
    return [(heads * headDim) / tp, c.intermediate_size! / tp].some((share) => share % 128 !== 0);
  };

  it('refuses exactly the layouts whose shares straddle a group', () => {
    let refused = 0;
    for (const file of MADE) {
      const arch = resolveModel(file);
      const heads = arch.groups.find((g) => g.name === 'decoder')!.heads;
      for (const tp of [2, 4, 8]) {
        if (heads % tp !== 0) continue;
        const all = {
          method: 'inference',
          weights: 'int4',
          framework: 'vllm',
          gpus: tp,
          tp,
          seq: 4096,
          batch: 8,
        };
        const got =
          int4GroupRefusedShard({
            arch,
            options: withEngineDefaults(optionsFromFlags(all), all),
            dp: 1,
            accum: 1,
          }) !== null;
        expect({ file, tp, refused: got }).toEqual({
          file,
          tp,
          refused: refusesFromConfig(file, tp),
        });
        if (got) refused++;
      }
    }
    expect(refused).toBeGreaterThanOrEqual(4);
  });

  it("refuses Llama-2-7B's 11,008-wide MLP at TP 4 (2,752 a rank) with the source, not at TP 2 (5,504)", () => {
    const r = refusal('llama-2-7b', { gpus: 4, tp: 4, weights: 'int4' });
    expect(r).toMatch(/2752 input columns a rank/);
    expect(r).toMatch(
      /rule vllm-int4-group-shard: vllm ==0\.33\.0, https:\/\/pypi\.org\/project\/vllm\/0\.33\.0\/ \(wheel\) vllm\/model_executor\/layers\/quantization\/auto_awq\.py/,
    );
    expect(refusal('llama-2-7b', { gpus: 2, tp: 2, weights: 'int4' })).toBeNull();
  });

  it("leaves a published int4 repository of a 16-bit entry alone: its config's widths are not read", () => {
    // Qwen/Qwen2.5-72B-Instruct-AWQ (catalogs/checkpoints.json); the base entry's 29,568 would leave 3,696 at TP 8.
    expect(refusal('qwen2.5-72b', { gpus: 8, tp: 8, weights: 'int4' })).toBeNull();
  });
});

describe('the serving search never offers an int4 layout vLLM refuses', () => {
  it('every vLLM int4 plan for a model whose MLP straddles groups at TP 4 passes the rules', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('llama-2-7b', 'codellama-7b', 'olmo-2-1124-7b'),
        fc.constantFrom(4),
        (model, gpus) => {
          const input = inputOf('serve-70b-awq-2x48gb.yaml', (s) => {
            s.model = model;
            s.search = { engines: ['vllm'], weights: ['int4'] } as typeof s.search;
            s.hardware = {
              ...s.hardware,
              owned: [{ gpu: 'rtx-a6000', count: gpus }],
              counts: { min: gpus, max: gpus },
            } as typeof s.hardware;
            s.job = { ...s.job, concurrency: 64 } as typeof s.job;
            delete (s as { expect?: unknown }).expect;
          });
          const result = plan(input);
          const plans = result.plans;
          expect(plans.length).toBeGreaterThan(0);
          // The TP 4 layouts were there to leave out: pruned as no engine runs them.
          expect(result.pruned.some((r) => r.code === 'no-engine')).toBe(true);
          for (const p of plans) {
            const x = { arch: input.arch, options: p.options, dp: p.choices.dp, accum: 1 };
            expect(forbiddenBy(VLLM_RULES, x)).toBeNull();
            expect(int4GroupRefusedShard(x)).toBeNull();
            expect(p.options.tp).toBeLessThanOrEqual(2);
          }
        },
      ),
      { numRuns: 3 },
    );
  });
});
