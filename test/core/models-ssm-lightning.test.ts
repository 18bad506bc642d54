// Attention-free state-space stacks (Mamba, Falcon-Mamba, Mamba2) and lightning-attention hybrids (MiniMax-Text-01 /
// MiniMax-M1): parameters against published counts, a fixed state per sequence in place of a KV cache, and each
// engine's verdict from its own registry.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { archOf as arch, kvOf } from '../helpers/model-configs.js';
import { paramCounts, type Arch } from '../../src/core/model/index.js';
import { VLLM_ARCHITECTURES } from '../../src/core/engines/vllm/architectures.js';
import { SGLANG_ARCHITECTURES } from '../../src/core/engines/sglang/architectures.js';
import { LLAMA_CPP_ARCHITECTURES } from '../../src/core/engines/llama-cpp/architectures.js';
import { HF_ARCHITECTURES } from '../../src/core/engines/hf/architectures.js';
import { UNSLOTH_ARCHITECTURES } from '../../src/core/engines/unsloth/architectures.js';

const fixture = (name: string): Record<string, unknown> =>
  JSON.parse(
    readFileSync(new URL(`../fixtures/models/families/${name}.json`, import.meta.url), 'utf8'),
  ) as Record<string, unknown>;
const layers = (a: Arch, recurrent: boolean): number =>
  a.groups.filter((g) => !!g.recurrent === recurrent).reduce((s, g) => s + g.count, 0);

describe('Falcon-Mamba 7B (falcon_mamba): 64 Mamba (v1) layers, no attention', () => {
  const a = arch(fixture('falcon-mamba-7b'));

  it("gives the Hub's 7.27B (tiiuae/falcon-mamba-7b) and keeps every layer recurrent", () => {
    expect(paramCounts(a).total).toBe(7_272_665_088);
    expect([layers(a, false), layers(a, true)]).toEqual([0, 64]);
  });

  it('keeps a conv window and a scan state per sequence, whatever the context (bf16)', () => {
    const perLayer = (8192 * 3 + 8192 * 16) * 2;
    expect(kvOf(a, 4096)).toBe(64 * perLayer);
    expect(kvOf(a, 262144)).toBe(64 * perLayer);
    expect(kvOf(a, 4096, 8)).toBe(8 * 64 * perLayer);
  });

  it('declares no position limit (no max_position_embeddings, no positions)', () => {
    expect(a.unboundedPositions).toBe(true);
  });
});

describe('Mamba2 (mamba2): the Mamba2 mixer alone', () => {
  it('keeps conv (inner + 2 groups x state) x 3 and heads x head_dim x state per layer', () => {
    const a = arch({
      model_type: 'mamba2',
      hidden_size: 1024,
      num_heads: 32,
      head_dim: 64,
      n_groups: 1,
      state_size: 128,
      num_hidden_layers: 8,
      vocab_size: 1000,
    });
    const conv = 2048 + 2 * 128;
    expect(kvOf(a, 1024)).toBe(8 * (conv * 3 + 32 * 64 * 128) * 2);
    expect(kvOf(a, 65536)).toBe(kvOf(a, 1024));
  });

  it('refuses num_heads x head_dim other than expand x hidden_size, naming the field', () => {
    expect(() =>
      arch({ model_type: 'mamba2', hidden_size: 1024, num_heads: 30, vocab_size: 10 }),
    ).toThrow(/num_heads: got 30; expected num_heads x head_dim = expand x hidden_size \(2048\)/);
  });
});

describe('MiniMax-M1 (minimax_m1): 70 lightning-attention and 10 softmax layers, 32 experts top-2', () => {
  const a = arch(fixture('minimax-m1'));

  it('gives the published 456B total and 45.9B activated (MiniMax-Text-01 model card, embeddings aside)', () => {
    const p = paramCounts(a);
    expect(p.total).toBe(456_089_655_296);
    expect(Math.round((p.active - p.embed - p.lmHead) / 1e8) / 10).toBe(45.9);
  });

  it('reads attn_type_list: a softmax layer after every 7 lightning ones', () => {
    expect([layers(a, false), layers(a, true)]).toEqual([10, 70]);
  });

  it('caches KV on the 10 softmax layers only; a lightning layer keeps heads x head_dim^2', () => {
    const kvPerToken = 10 * 2 * 8 * 128 * 2;
    expect(kvOf(a, 16384) - kvOf(a, 8192)).toBe(kvPerToken * 8192);
    const state = kvOf(a, 8192) - kvPerToken * 8192;
    expect(state).toBe(70 * 64 * 128 * 128 * 2);
  });

  it('reads the HF layer_types and the default alternation the same way', () => {
    const types = (fixture('minimax-m1').attn_type_list as number[]).map((t) =>
      t === 1 ? 'full_attention' : 'linear_attention',
    );
    const hf = arch({ ...fixture('minimax-m1'), model_type: 'minimax', layer_types: types });
    expect(paramCounts(hf).total).toBe(paramCounts(a).total);
    expect([layers(hf, false), layers(hf, true)]).toEqual([10, 70]);
  });
});

const defaults = (name: string): Record<string, unknown> =>
  (
    JSON.parse(
      readFileSync(
        new URL('../fixtures/models/families/transformers-defaults.json', import.meta.url),
        'utf8',
      ),
    ) as Record<string, { config: Record<string, unknown> }>
  )[name]?.config ?? {};

describe('MiMo-V2-Flash (mimo_v2_flash): 39 sliding layers of 8 KV heads with sinks, 9 full of 4', () => {
  const a = arch(defaults('mimo_v2_flash'));

  it('gives the published 309B (transformers 308,778,768,832 plus the 47 MoE routers e_score_correction_bias)', () => {
    expect(paramCounts(a).total).toBe(308_778_768_832 + 47 * 256);
  });

  it('caches K at head_dim 192 and V at v_head_dim 128; a sliding layer holds at most its 128-token window', () => {
    const full = 9 * 4 * (192 + 128) * 2;
    expect(kvOf(a, 8192) - kvOf(a, 4096)).toBe(full * 4096);
    expect(kvOf(a, 4096) - full * 4096).toBe(39 * 128 * 8 * (192 + 128) * 2);
  });

  it('reads the checkpoint keys: hybrid_layer_pattern (1 = SWA), moe_layer_freq, sliding_window_size', () => {
    const cfg = defaults('mimo_v2_flash');
    const hub = {
      ...cfg,
      layer_types: undefined,
      mlp_layer_types: undefined,
      sliding_window: undefined,
      sliding_window_size: 128,
      hybrid_layer_pattern: (cfg.layer_types as string[]).map((t) =>
        t === 'sliding_attention' ? 1 : 0,
      ),
      moe_layer_freq: [0, ...Array.from({ length: 47 }, () => 1)],
    };
    expect(paramCounts(arch(hub)).total).toBe(paramCounts(a).total);
    expect(kvOf(arch(hub), 4096)).toBe(kvOf(a, 4096));
  });
});

describe('LongCat-Flash (longcat_flash): 28 layers of two MLA sublayers, a shortcut MoE with 256 zero experts', () => {
  const a = arch(defaults('longcat_flash'));

  it("gives the card's 560B: transformers' count less the zero experts' unfilled gate_up rows, plus router biases", () => {
    const p = paramCounts(a);
    expect(p.total).toBe(741_053_585_408 - 28 * 256 * 2 * 2048 * 6144 + 28 * 768);
    // 12 of 768 slots picked, 512 of them real: 8 real experts a token on average (card: ~27B activated).
    expect(Math.round(p.active / 1e9)).toBe(28);
  });

  it('caches one 576-wide latent on each of the 56 attention sublayers', () => {
    expect(kvOf(a, 8192) - kvOf(a, 4096)).toBe(56 * 576 * 2 * 4096);
  });
});

describe('Kimi Linear 48B-A3B (kimi_linear): 20 KDA layers (1-based kda_layers) and 7 MLA layers', () => {
  const a = arch(fixture('kimi-linear-48b-a3b'));

  it('counts 49.12B (card: 48B total, 3B activated; 2.73B activated without the embeddings)', () => {
    const p = paramCounts(a);
    expect(p.total).toBe(49_122_681_728);
    expect(Math.round((p.active - p.embed - p.lmHead) / 1e7) / 100).toBe(2.73);
    expect([layers(a, false), layers(a, true)]).toEqual([7, 20]);
  });

  it('caches a 576-wide latent on the MLA layers; a KDA layer keeps three conv windows and 32 x 128 x 128', () => {
    expect(kvOf(a, 2048) - kvOf(a, 1024)).toBe(7 * 576 * 2 * 1024);
    const state = kvOf(a, 1024) - 7 * 576 * 2 * 1024;
    // transformers-style dtypes without an engine: the conv windows in bf16, the delta-rule state in fp32.
    expect(state).toBe(20 * (3 * 4096 * 3 * 2 + 32 * 128 * 128 * 4));
  });
});

describe('Qwen3-Omni (qwen3_omni_moe): the thinker vLLM serves', () => {
  const a = arch(fixture('qwen3-omni-thinker'));

  it("gives transformers' own Qwen3OmniMoeThinkerForConditionalGeneration count (text, vision tower, AuT encoder)", () => {
    // transformers 5.14.1 on the meta device with this thinker_config: 31,748,966,512; the audio tower 649,894,784.
    expect(paramCounts(a).total).toBe(31_748_966_512);
  });

  it('caches KV on its 48 Qwen3-MoE text layers only (4 KV heads x 128)', () => {
    expect(kvOf(a, 8192) - kvOf(a, 4096)).toBe(48 * 2 * 4 * 128 * 2 * 4096);
  });
});

describe("each engine's verdict on the new model_types, from its own registry", () => {
  const ssm = ['mamba', 'falcon_mamba', 'mamba2'];
  const minimax = ['minimax', 'minimax_text_01', 'minimax_m1'];

  it('Qwen3-Omni: vLLM and SGLang serve the thinker; llama.cpp has no gguf arch; HF scripts load no omni class', () => {
    expect(VLLM_ARCHITECTURES.runs).toContain('qwen3_omni_moe');
    expect(SGLANG_ARCHITECTURES.runs).toContain('qwen3_omni_moe');
    expect(LLAMA_CPP_ARCHITECTURES.refuses.qwen3_omni_moe).toMatch(/gguf/);
    expect(HF_ARCHITECTURES.refuses.qwen3_omni_moe).toMatch(/AutoModelForMultimodalLM/);
    expect(HF_ARCHITECTURES.writerOnly).toContain('qwen3_omni_moe');
  });

  it('Kimi Linear is remote code: vLLM, SGLang 0.5.23 (kimi_linear.py) and llama.cpp (KIMI_LINEAR) run it', () => {
    for (const table of [VLLM_ARCHITECTURES, SGLANG_ARCHITECTURES, LLAMA_CPP_ARCHITECTURES])
      expect(table.runs).toContain('kimi_linear');
    expect(HF_ARCHITECTURES.refuses.kimi_linear).toMatch(/trust_remote_code/);
  });

  it('MiMo-V2-Flash and LongCat-Flash: vLLM and SGLang run both; llama.cpp has MIMO2 but no LongCat arch', () => {
    for (const t of ['mimo_v2_flash', 'longcat_flash']) {
      expect(VLLM_ARCHITECTURES.runs).toContain(t);
      expect(SGLANG_ARCHITECTURES.runs).toContain(t);
      expect(HF_ARCHITECTURES.runs).toContain(t);
    }
    expect(LLAMA_CPP_ARCHITECTURES.runs).toContain('mimo_v2_flash');
    expect(LLAMA_CPP_ARCHITECTURES.refuses.longcat_flash).toMatch(/gguf/);
    expect(UNSLOTH_ARCHITECTURES.refuses.mimo_v2_flash).toMatch(/5\.5\.0/);
    expect(UNSLOTH_ARCHITECTURES.runs).toContain('longcat_flash');
  });

  it('vLLM registers all of them (MambaForCausalLM, Mamba2ForCausalLM, FalconMambaForCausalLM, MiniMax*)', () => {
    for (const t of [...ssm, ...minimax]) expect(VLLM_ARCHITECTURES.runs).toContain(t);
  });

  it('SGLang 0.5.23 and llama.cpp run the SSMs and refuse MiniMax lightning attention, citing a URL', () => {
    for (const table of [SGLANG_ARCHITECTURES, LLAMA_CPP_ARCHITECTURES]) {
      for (const t of ssm) expect(table.runs).toContain(t);
      for (const t of minimax) {
        expect(table.runs).not.toContain(t);
        expect(table.refuses[t]).toBeTruthy();
      }
      expect(table.source).toMatch(/^https:\/\//);
    }
  });

  it('transformers 5.14.1 and Unsloth (transformers 5.5.0) map the HF types; remote code is refused', () => {
    for (const table of [HF_ARCHITECTURES, UNSLOTH_ARCHITECTURES]) {
      for (const t of [...ssm, 'minimax']) expect(table.runs).toContain(t);
      for (const t of ['minimax_text_01', 'minimax_m1']) expect(table.refuses[t]).toBeTruthy();
    }
  });
});
