# Host time of the 4-D attention masks transformers' generate builds for every decode step on a static cache,
# against a Llama decoder layer's eager decode call, both measured in one process on CPU tensors (all host work).
#
# With a compileable (static) cache, GenerationMixin.prepare_inputs_for_generation calls create_masks_for_generate
# each step, which builds one mask per distinct layer type (gpt-oss: full and sliding) through sdpa_mask_recent_torch:
# four nested torch.vmap levels over (batch, head, query, key) and the padding lookup's index through
# TransformGetItemToIndex. The time model prices each such mask as GENERATE_MASK_LAYERS Llama layers' eager host
# work (src/core/time/decode-host.ts).
#
# Run (about a minute on one core): a venv with torch==2.8.0 and transformers==4.56.2, then
#   python scripts/generate-mask-host.py
# It prints, per window of 100 rounds, each mask's minimum host time in Llama-layer calls (the minimum: the machine
# may be shared). On 2026-12-03, 2 cores shared with other jobs, three runs of 4 windows: 4.7-5.0, 5.7-6.4 (a variant
# timing each kind in a block of its own) and 4.4-5.5 (full 5.2-5.5, sliding 4.4-4.7).
import time

import torch
from transformers import GptOssConfig, GptOssForCausalLM, LlamaConfig, LlamaForCausalLM
from transformers.cache_utils import StaticCache
from transformers.masking_utils import create_causal_mask, create_sliding_window_causal_mask

torch.set_num_threads(1)
torch.manual_seed(0)
PROMPT, NEW, LAYERS = 50, 300, 4
kinds = ["sliding_attention" if i % 2 == 0 else "full_attention" for i in range(LAYERS)]
oss = GptOssForCausalLM(
    GptOssConfig(num_hidden_layers=LAYERS, hidden_size=64, intermediate_size=64, num_attention_heads=4,
                 num_key_value_heads=1, head_dim=16, num_local_experts=32, num_experts_per_tok=4, vocab_size=1000,
                 sliding_window=128, layer_types=kinds, max_position_embeddings=4096)
).eval()
llama = LlamaForCausalLM(
    LlamaConfig(num_hidden_layers=LAYERS, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                num_key_value_heads=1, vocab_size=1000, max_position_embeddings=4096)
).eval()
for m in (oss, llama):
    m.config._attn_implementation = "eager"

# Two left-padded prompts, decoded 200 tokens in: a 2-D padding mask as generate holds it.
ids = torch.randint(3, 1000, (2, PROMPT))
pad = torch.ones_like(ids)
pad[1, :5] = 0
pos = PROMPT + 200
cache_position = torch.tensor([pos])
mask2d = torch.ones(2, pos + 1, dtype=torch.long)
mask2d[1, :5] = 0
hidden = torch.zeros(2, 1, 64)
position_ids = torch.tensor([[pos], [pos - 5]])

with torch.inference_mode():
    oss_cache = StaticCache(config=oss.config, max_cache_len=PROMPT + NEW)
    oss(input_ids=ids, attention_mask=pad, past_key_values=oss_cache, use_cache=True)
    llama_cache = StaticCache(config=llama.config, max_cache_len=PROMPT + NEW)
    llama(input_ids=ids, attention_mask=pad, past_key_values=llama_cache, use_cache=True)
    rotary = llama.model.rotary_emb(hidden, position_ids)
    llama_mask = create_causal_mask(config=llama.config, input_embeds=hidden, attention_mask=mask2d,
                                    cache_position=cache_position, past_key_values=llama_cache,
                                    position_ids=position_ids)
    layer = llama.model.layers[1]
    # generate's call: input_embeds only carries the batch, query length and dtype.
    kw = dict(config=oss.config, input_embeds=torch.empty((2, 1)), attention_mask=mask2d,
              cache_position=cache_position, past_key_values=oss_cache, position_ids=None)

    def timed(f, n=1):
        t = time.perf_counter()
        for _ in range(n):
            f()
        return (time.perf_counter() - t) / n

    def llama_layer():
        layer(hidden, attention_mask=llama_mask, position_ids=position_ids, past_key_values=llama_cache,
              use_cache=True, cache_position=cache_position, position_embeddings=rotary)

    # Interleaved, so that each round's three timings share the machine's load; the minimum of each over a window.
    for window in range(4):
        full, sliding, unit = [], [], []
        for _ in range(100):
            full.append(timed(lambda: create_causal_mask(**kw)))
            sliding.append(timed(lambda: create_sliding_window_causal_mask(**kw)))
            unit.append(timed(llama_layer, 4))
        f, s, u = min(full), min(sliding), min(unit)
        print(f"window {window}: full {f / u:.2f}, sliding {s / u:.2f} Llama-layer calls "
              f"(layer {u * 1e6:.0f} us, full {f * 1e6:.0f} us, sliding {s * 1e6:.0f} us)", flush=True)
