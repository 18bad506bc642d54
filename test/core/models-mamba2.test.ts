// Mamba2 hybrids (Nemotron-H, Granite 4.0 hybrid): parameters, KV only on attention layers, state.
import { describe, expect, it } from 'vitest';
import { archOf as arch, catalogConfig as catalog, kvOf } from '../helpers/model-configs.js';
import { paramCounts, type Arch } from '../../src/core/model/index.js';
import { estimateMemory, recurrentStateBytes } from '../../src/core/memory/index.js';
import { defaultOptions } from '../../src/schema/estimate.js';

const layersOf = (a: Arch, recurrent: boolean): number =>
  a.groups.filter((g) => !!g.recurrent === recurrent).reduce((s, g) => s + g.count, 0);

/** One Mamba2 mixer by hand: in_proj, conv1d (+ bias), dt_bias / A_log / D, gated norm, out_proj. */
function mamba2Params(
  h: number,
  heads: number,
  p: number,
  g: number,
  n: number,
  k: number,
): number {
  const inner = heads * p;
  const conv = inner + 2 * g * n;
  return h * (inner + conv + heads) + conv * k + conv + 3 * heads + inner + inner * h;
}

describe('Nemotron-H (nemotron_h)', () => {
  const a = arch(catalog('nemotron-h-8b-base-8k'));
  const h = 4096;
  const mamba = mamba2Params(h, 128, 64, 8, 128, 4);
  const mlp = 2 * h * 21504;
  const attn = 2 * h * 4096 + 2 * h * 1024;

  it('counts every block of hybrid_override_pattern (24 M, 24 -, 4 *), one RMSNorm each', () => {
    const expected = 2 * 131072 * h + 24 * mamba + 24 * mlp + 4 * attn + 52 * h + h;
    expect(paramCounts(a).total).toBe(expected);
    expect(paramCounts(a).total).toBe(8_100_852_736);
    // Model card: "8B"; the exact total is 1.3% above the rounded figure.
    expect(Math.abs(paramCounts(a).total - 8e9) / 8e9).toBeLessThan(0.015);
  });

  it('keeps KV only on its 4 attention layers; the Mamba2 state does not grow with context', () => {
    expect([layersOf(a, false), layersOf(a, true)]).toEqual([4, 24]);
    expect(kvOf(a, 8192) - kvOf(a, 4096)).toBe(4 * 8 * 128 * 2 * 2 * 4096);
    const state = kvOf(a, 4096) - (kvOf(a, 8192) - kvOf(a, 4096));
    // conv state (8192 + 2 x 8 x 128) x 3 + heads x head_dim x d_state, in bf16 (no mamba_ssm_cache_dtype).
    const perLayer = ((8192 + 2 * 8 * 128) * 3 + 128 * 64 * 128) * 2;
    const r = a.groups.find((g) => g.recurrent)?.recurrent;
    if (!r) throw new Error('no recurrent group');
    expect(recurrentStateBytes(r, 2, 1)).toBe(perLayer);
    expect(state).toBe(24 * perLayer);
    expect(kvOf(a, 4096, 2)).toBe(2 * kvOf(a, 4096, 1));
  });

  it('reads the state dtype the config names (mamba_ssm_cache_dtype)', () => {
    const r = arch({
      ...catalog('nemotron-h-8b-base-8k'),
      mamba_ssm_cache_dtype: 'float32',
    }).groups.find((g) => g.recurrent)?.recurrent;
    expect(r?.stateBytes).toBe(4);
  });

  it('reads layers_block_type and MoE blocks (E) with routed and shared experts (no correction bias in the checkpoint)', () => {
    const base = catalog('nemotron-h-8b-base-8k');
    const moe = arch({
      ...base,
      hybrid_override_pattern: undefined,
      num_hidden_layers: undefined,
      layers_block_type: ['mamba', 'moe', 'attention', 'moe'],
      n_routed_experts: 8,
      num_experts_per_tok: 2,
      moe_intermediate_size: 1024,
      moe_shared_expert_intermediate_size: 2048,
      n_shared_experts: 1,
    });
    const moeBlock = h * 8 + 8 * 2 * h * 1024 + 2 * h * 2048;
    expect(paramCounts(moe).total).toBe(2 * 131072 * h + mamba + attn + 2 * moeBlock + 5 * h);
    const active = paramCounts(moe).active;
    expect(active).toBe(paramCounts(moe).total - 2 * 6 * 2 * h * 1024);
  });

  it('refuses a pattern of the wrong length or with an unknown block, naming the field', () => {
    const c = catalog('nemotron-h-8b-base-8k');
    expect(() => arch({ ...c, hybrid_override_pattern: 'M-*' })).toThrow(
      /hybrid_override_pattern: got '3 entries'; expected one entry per layer/,
    );
    expect(() => arch({ ...c, num_hidden_layers: 4, hybrid_override_pattern: 'M-X*' })).toThrow(
      /hybrid_override_pattern: got 'X'/,
    );
  });

  it('estimates training without error', () => {
    const t = estimateMemory(a, { ...defaultOptions('full'), seq: 4096 });
    expect(t.perGpu.breakdown.activations).toBeGreaterThan(0);
  });
});

describe('Granite 4.0 hybrid (granitemoehybrid)', () => {
  const a = arch(catalog('granite-4.0-h-tiny'));
  const h = 1536;

  it('counts Mamba2 mixers, attention, 64 experts and the shared MLP on every layer', () => {
    const mamba = mamba2Params(h, 48, 64, 1, 128, 4);
    const attn = 2 * h * 1536 + 2 * h * 512;
    const moe = h * 64 + 64 * 3 * h * 512 + 3 * h * 1024;
    const expected = 100352 * h + 36 * mamba + 4 * attn + 40 * (moe + 2 * h) + h;
    expect(paramCounts(a).total).toBe(expected);
    expect(paramCounts(a).total).toBe(6_939_037_248);
    // IBM: "7B total parameters, 1B activated" (rounded; the exact total is 0.9% below).
    expect(Math.abs(paramCounts(a).total - 7e9) / 7e9).toBeLessThan(0.01);
    expect(paramCounts(a).active).toBe(expected - 40 * 58 * 3 * h * 512);
  });

  it('keeps KV only on the attention entries of layer_types', () => {
    expect([layersOf(a, false), layersOf(a, true)]).toEqual([4, 36]);
    expect(kvOf(a, 8192) - kvOf(a, 4096)).toBe(4 * 4 * 128 * 2 * 2 * 4096);
    const r = a.groups.find((g) => g.recurrent)?.recurrent;
    expect(r && recurrentStateBytes(r, 2, 1)).toBe(((3072 + 256) * 3 + 48 * 64 * 128) * 2);
  });

  it('a dense config (num_local_experts 0) keeps the shared MLP alone', () => {
    const dense = arch({ ...catalog('granite-4.0-h-tiny'), num_local_experts: 0 });
    expect(dense.groups.every((g) => g.experts === 1 && g.ffn === 1024)).toBe(true);
  });

  it('refuses mamba heads that do not split mamba_expand x hidden_size', () => {
    expect(() => arch({ ...catalog('granite-4.0-h-tiny'), mamba_d_head: 60 })).toThrow(
      /mamba_n_heads: got 48/,
    );
  });
});
