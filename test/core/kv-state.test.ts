// KV bytes per token and recurrent state per sequence of today's models, checked against an
// independent reading of the engines' allocators (vLLM's KV specs and Mamba state shapes, llama.cpp's SWA and
// recurrent caches, SGLang's SSM dtype) and against KV figures vLLM printed at startup (fixtures below).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { archFromHfConfig, type Arch } from '../../src/core/model/index.js';
import {
  estimateMemory,
  type CacheFigures,
  FRAMEWORKS,
  cacheShapeOf,
} from '../../src/core/memory/index.js';
import { defaultOptions, type EstimateOptions } from '../../src/schema/estimate.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { caseArch, loadKvCacheCases } from '../../src/io/load-calibration.js';
import { kvCacheRows } from '../../src/commands/validate-kv.js';

type Config = Record<string, unknown>;
const catalog = (id: string): Config =>
  (
    JSON.parse(
      readFileSync(new URL(`../../catalogs/models/${id}.json`, import.meta.url), 'utf8'),
    ) as { config: Config }
  ).config;
const arch = (config: Config, id = 'x'): Arch => archFromHfConfig(config, { id, hfId: null });
const cacheOf = (a: Arch, o: Partial<EstimateOptions> = {}): CacheFigures => {
  const c = estimateMemory(a, { ...defaultOptions('inference'), seq: 4096, ...o }).cache;
  if (!c) throw new Error('no cache figures');
  return c;
};
const num = (c: Config, k: string): number => {
  const v = c[k];
  if (typeof v !== 'number') throw new Error(`${k} missing`);
  return v;
};
const text = (c: Config): Config => (c.text_config as Config | undefined) ?? c;

/**
 * vLLM's arithmetic, written from its source rather than from vramplan's reader (vllm-project/vllm at
 * 1936cf38 and 02d71083): FullAttentionSpec page = 2 x block x kv heads x head size x dtype; MLAAttentionSpec
 * page = block x (kv_lora_rank + qk_rope_head_dim) x dtype; MambaStateShapeCalculator shapes; a hybrid Mamba
 * model's attention block = 16 x cdiv(mamba page, 16 x attention page of one token), the Mamba page padded to
 * it; KV-cache groups of min(layers per kind) (max when under 1.5 x min), the last one padded.
 */
const vllm = {
  attn: (c: Config, tp = 1, dtype = 2): number =>
    2 *
    Math.max(1, num(c, 'num_key_value_heads') / tp) *
    (typeof c.head_dim === 'number'
      ? c.head_dim
      : num(c, 'hidden_size') / num(c, 'num_attention_heads')) *
    dtype,
  mla: (c: Config): number => (num(c, 'kv_lora_rank') + num(c, 'qk_rope_head_dim')) * 2,
  gdn: (c: Config, tp = 1, ssm = 2): number => {
    const k = num(c, 'linear_num_key_heads') * num(c, 'linear_key_head_dim');
    const v = num(c, 'linear_num_value_heads') * num(c, 'linear_value_head_dim');
    const conv = ((2 * k + v) / tp) * (num(c, 'linear_conv_kernel_dim') - 1) * 2;
    const heads = num(c, 'linear_num_value_heads') / tp;
    return conv + heads * num(c, 'linear_key_head_dim') * num(c, 'linear_value_head_dim') * ssm;
  },
  mamba2: (p: {
    inner: number;
    groups: number;
    heads: number;
    headDim: number;
    dState: number;
    kernel: number;
    ssm: number;
  }): number =>
    (p.inner + 2 * p.groups * p.dState) * (p.kernel - 1) * 2 +
    p.heads * p.headDim * p.dState * p.ssm,
  page: (state: number, token: number): number => 16 * Math.ceil(state / (16 * token)) * token,
  slots: (counts: number[]): ((n: number) => number) => {
    const min = Math.min(...counts);
    const max = Math.max(...counts);
    const size = max < 1.5 * min ? max : min;
    return (n) => Math.ceil(n / size) * size;
  },
  window: (w: number): number => (Math.ceil((w - 1) / 16) + 1) * 16,
};

describe('vLLM: KV bytes per token and state per sequence, from its source (tp 1, bf16)', () => {
  it('full-attention models: 2 x layers x kv heads x head dim x 2 bytes', () => {
    for (const id of ['llama-3.1-8b', 'qwen3-8b', 'qwen3-30b-a3b', 'glm-4.5-air', 'minimax-m2']) {
      const c = catalog(id);
      const expected = num(c, 'num_hidden_layers') * vllm.attn(c);
      expect(cacheOf(arch(c, id), { framework: 'vllm' })).toEqual({
        kvBytesPerToken: expected,
        windowBytesPerSequence: 0,
        stateBytesPerSequence: 0,
      });
    }
  });

  it('MLA (DeepSeek-V3, GLM-4.7-Flash): the latent kv_lora_rank + rope dims, one "head", MTP layer not cached', () => {
    for (const id of ['deepseek-v3', 'glm-4.7-flash']) {
      const c = catalog(id);
      const expected = num(c, 'num_hidden_layers') * vllm.mla(c);
      expect(cacheOf(arch(c, id), { framework: 'vllm' }).kvBytesPerToken).toBe(expected);
    }
    // 61 x 576 x 2 = 70,272 B per token for DeepSeek-V3.
    expect(cacheOf(arch(catalog('deepseek-v3')), { framework: 'vllm' }).kvBytesPerToken).toBe(
      70_272,
    );
  });

  it('sliding windows: one block past the window, layer groups padded (Gemma 3: 52 sliding + 10 full -> 60 + 10)', () => {
    const cases: [string, number, number, number][] = [
      // id, full layers, sliding layers, window
      ['gpt-oss-20b', 12, 12, 128],
      ['gemma-3-27b-it', 10, 52, 1024],
      ['llama-4-scout-17b-16e', 12, 36, 8192],
      ['command-r7b-12-2024', 8, 24, 4096],
    ];
    for (const [id, full, sliding, window] of cases) {
      const c = text(catalog(id));
      const tok = vllm.attn(c);
      const slots = vllm.slots([full, sliding]);
      const got = cacheOf(arch(catalog(id), id), { framework: 'vllm' });
      expect(got.kvBytesPerToken).toBe(slots(full) * tok);
      expect(got.windowBytesPerSequence).toBe(slots(sliding) * vllm.window(window) * tok);
    }
  });

  it('Gated DeltaNet hybrids: Qwen3-Next (bf16 state) and Qwen3.5 (fp32 SSM state from mamba_ssm_dtype)', () => {
    const next = catalog('qwen3-next-80b-a3b');
    const tokNext = vllm.attn(next);
    // 12 attention layers, 36 GDN layers; groups of 12: no padding. Page 2,048 B/token: block 544 tokens.
    expect(vllm.page(vllm.gdn(next), tokNext) / tokNext).toBe(544);
    expect(cacheOf(arch(next), { framework: 'vllm' })).toEqual({
      kvBytesPerToken: 12 * tokNext,
      windowBytesPerSequence: 0,
      stateBytesPerSequence: 36 * vllm.page(vllm.gdn(next), tokNext),
    });
    const q35 = text(catalog('qwen3.5-27b'));
    const tok35 = vllm.attn(q35);
    expect(cacheOf(arch(catalog('qwen3.5-27b')), { framework: 'vllm' })).toEqual({
      kvBytesPerToken: 16 * tok35,
      windowBytesPerSequence: 0,
      stateBytesPerSequence: 48 * vllm.page(vllm.gdn(q35, 1, 4), tok35),
    });
  });

  it('Mamba2 hybrids: Nemotron-H (fp32 SSM state by default), Granite 4.0-H, Bamba (29 Mamba layers -> 30 slots)', () => {
    const nh = catalog('nemotron-h-8b-base-8k');
    const nhState = vllm.mamba2({
      inner: num(nh, 'mamba_num_heads') * num(nh, 'mamba_head_dim'),
      groups: num(nh, 'n_groups'),
      heads: num(nh, 'mamba_num_heads'),
      headDim: num(nh, 'mamba_head_dim'),
      dState: num(nh, 'ssm_state_size'),
      kernel: num(nh, 'conv_kernel'),
      ssm: 4, // NemotronHForCausalLMConfig.DEFAULT_MAMBA_SSM_CACHE_DTYPE
    });
    const nhTok = 2 * 8 * 128 * 2;
    expect(cacheOf(arch(nh), { framework: 'vllm' }).stateBytesPerSequence).toBe(
      24 * vllm.page(nhState, nhTok),
    );
    const granite = catalog('granite-4.0-h-tiny');
    const gState = vllm.mamba2({
      inner: 48 * 64,
      groups: 1,
      heads: 48,
      headDim: 64,
      dState: 128,
      kernel: 4,
      ssm: 2,
    });
    expect(cacheOf(arch(granite), { framework: 'vllm' }).stateBytesPerSequence).toBe(
      36 * vllm.page(gState, 2 * 4 * 128 * 2),
    );
    const bamba = catalog('bamba-9b');
    const bState = vllm.mamba2({
      inner: 128 * 64,
      groups: 1,
      heads: 128,
      headDim: 64,
      dState: 128,
      kernel: 4,
      ssm: 2,
    });
    expect(cacheOf(arch(bamba), { framework: 'vllm' }).stateBytesPerSequence).toBe(
      vllm.slots([3, 29])(29) * vllm.page(bState, 2 * 8 * 128 * 2),
    );
  });

  it('Mamba1 (Jamba) and short conv (LFM2): pages padded to 16-token attention blocks', () => {
    // Jamba: conv (8192 x 3) + temporal (8192 x 16), bf16; 28 Mamba layers in 7 groups of 4.
    const jamba = (8192 * 3 + 8192 * 16) * 2;
    expect(cacheOf(arch(catalog('jamba-v0.1')), { framework: 'vllm' }).stateBytesPerSequence).toBe(
      28 * vllm.page(jamba, 4096),
    );
    // LFM2: conv state hidden x (L_cache - 1) = 2048 x 2, padded to one 16-token page of 2,048 B; 10 conv
    // layers in groups of 6 -> 12 slots.
    expect(cacheOf(arch(catalog('lfm2-1.2b')), { framework: 'vllm' }).stateBytesPerSequence).toBe(
      12 * vllm.page(2048 * 2 * 2, 2048),
    );
  });
});

describe('other engines', () => {
  it('llama.cpp keeps recurrent state in fp32 and n_swa + n_ubatch cells (padded to 256) per sliding layer', () => {
    const next = catalog('qwen3-next-80b-a3b');
    const gdnFp32 = (8192 * 3 + 32 * 128 * 128) * 4;
    expect(cacheOf(arch(next), { framework: 'llama.cpp' }).stateBytesPerSequence).toBe(
      36 * gdnFp32,
    );
    const oss = cacheOf(arch(catalog('gpt-oss-20b')), { framework: 'llama.cpp' });
    expect(oss.windowBytesPerSequence).toBe(12 * 768 * 2 * 8 * 64 * 2);
  });

  it('SGLang keeps the SSM state in fp32 (mamba_ssm_dtype default), the conv state in the model dtype', () => {
    const got = cacheOf(arch(catalog('qwen3-next-80b-a3b')), { framework: 'sglang' });
    expect(got.stateBytesPerSequence).toBe(36 * (8192 * 3 * 2 + 32 * 128 * 128 * 4));
  });

  it('SGLang sizes its sliding pool at 0.8 x the full pool tokens (swa_full_tokens_ratio)', () => {
    const got = cacheOf(arch(catalog('gpt-oss-20b')), { framework: 'sglang' });
    const tok = 2 * 8 * 64 * 2;
    expect(got.kvBytesPerToken).toBe(Math.round(12 * tok + 0.8 * 12 * tok));
    expect(got.windowBytesPerSequence).toBe(0);
  });

  it('transformers keeps a Gated DeltaNet state in fp32 (its kernels return it so), Mamba states in the model dtype, the window as is', () => {
    const got = cacheOf(arch(catalog('qwen3-next-80b-a3b')));
    expect(got.stateBytesPerSequence).toBe(36 * (8192 * 3 * 2 + 32 * 128 * 128 * 4));
    // Nemotron-H: vLLM's float32 default is its own hook; transformers keeps the model dtype.
    expect(cacheOf(arch(catalog('nemotron-h-8b-base-8k'))).stateBytesPerSequence).toBe(
      24 * ((8192 + 2 * 8 * 128) * 3 + 128 * 64 * 128) * 2,
    );
    expect(cacheOf(arch(catalog('gpt-oss-20b'))).windowBytesPerSequence).toBe(
      12 * 128 * 2 * 8 * 64 * 2,
    );
  });

  it('TP replicates Mamba2 groups it does not divide (Granite 4.0-H: 1 group at TP 2 -> 2)', () => {
    const a = arch(catalog('granite-4.0-h-tiny'));
    // SGLang (no page padding to hide it): conv (3072 + 2 x 2 x 128) / 2 channels x 3 in bf16, SSM in fp32.
    const tp2 = cacheOf(a, { framework: 'sglang', gpus: 2, tp: 2 });
    const state = ((3072 + 2 * 2 * 128) / 2) * 3 * 2 + (48 / 2) * 64 * 128 * 4;
    expect(tp2.stateBytesPerSequence).toBe(36 * state);
  });

  it('TP splits heads and channels; a rank keeps at least one KV head', () => {
    const a = arch(catalog('qwen3-next-80b-a3b'));
    const tp4 = cacheOf(a, { framework: 'vllm', gpus: 4, tp: 4 });
    // 2 KV heads over 4 ranks: one head each (replicated).
    expect(tp4.kvBytesPerToken).toBe(12 * 2 * 1 * 256 * 2);
  });
});

describe('measured: vLLM startup logs (pool / tokens = KV bytes per token per GPU)', () => {
  // calibration/kv-cache.json (quote and URL per row); `validate` reports the same rows.
  it.each(loadKvCacheCases())('$id: $quote', (row) => {
    const measured = (row.pool_gib * 2 ** 30) / row.tokens;
    const got = cacheOf(caseArch(row), optionsFromFlags(row.flags)).kvBytesPerToken;
    // The pools are printed to 3 digits; Qwen3-235B's rank-0 pool is not the smallest rank's (its notes).
    const tolerance = row.id.includes('235b') ? 0.015 : 0.005;
    expect(Math.abs(got - measured) / measured).toBeLessThan(tolerance);
  });

  it('validate reports every row of calibration/kv-cache.json', () => {
    const rows = kvCacheRows();
    expect(rows.map((r) => r.id)).toEqual(loadKvCacheCases().map((c) => c.id));
    for (const r of rows) expect(Math.abs(r.error)).toBeLessThan(0.015);
  });

  it('Qwen3-Next, TP 2, fp8 attention KV (vllm-project/vllm#26646): block 1,072 tokens; 90,048 tokens = 84 blocks x 4 groups; 1.66x at 215,040', () => {
    // "GPU KV cache size: 90,048 tokens" / "Maximum concurrency for 215,040 tokens per request: 1.66x"
    // (https://github.com/vllm-project/vllm/issues/26646; vLLM 0.11: tokens = num_blocks // groups x block).
    const a = arch(catalog('qwen3-next-80b-a3b'));
    const shape = cacheShapeOf(a, FRAMEWORKS.vllm, { c: 2, tp: 2, kvElem: 1, ubatch: 512 });
    expect(shape.block).toBe(1072);
    expect(90_048 % shape.block).toBe(0);
    const groups = 4; // 12 attention layers + 36 GDN layers in groups of 12
    const blocks = (90_048 / shape.block) * groups; // num_blocks // 4 = 84: 336 to 339 blocks
    const perRequest = Math.ceil(215_040 / shape.block) + 3; // attention blocks + one per Mamba group
    expect(1.66).toBeGreaterThanOrEqual(Math.floor((blocks / perRequest) * 100) / 100);
    expect(1.66).toBeLessThanOrEqual(Math.ceil(((blocks + 3) / perRequest) * 100) / 100);
  });
});
