# The aten ops one decoder layer of Unsloth's own decode step dispatches (LlamaModel_fast_forward_inference's loop body,
# unsloth/models/llama.py lines 1371-1408 at unslothai/unsloth@3869fbe1), counted on CPU tensors with TorchDispatchMode
# as scripts/measure/generate_layer_host.py counts transformers' layer: ops that launch a kernel on a GPU apart from
# views, allocations and metadata. unsloth is not imported (its import wants a GPU): the functions
# fast_rms_layernorm_inference, LlamaAttention_fast_forward_inference and fast_swiglu_inference are read from the given
# llama.py and fast_linear_forward from the given kernels/utils.py, and exec'd with the globals they name; the linears are
# 16-bit with a LoRA adapter (bitsandbytes' dequantize kernels are ctypes calls the dispatcher does not see:
# engines/unsloth/generate-decode.ts counts them from the source). One prefill call fills the buffers, then one decode
# step at BATCH rows is counted.
#
# Run: a venv with torch (2.8.0 here), then
#   git show 3869fbe1:unsloth/models/llama.py > llama.py; git show 3869fbe1:unsloth/kernels/utils.py > utils.py
#   python scripts/measure/unsloth_fast_decode_ops.py llama.py utils.py [batch]
import ast
import json
import math
import sys
import typing
from collections import Counter

import torch
import torch.nn.functional as F
from torch.utils._python_dispatch import TorchDispatchMode

LLAMA, UTILS = sys.argv[1], sys.argv[2]
BATCH = int(sys.argv[3]) if len(sys.argv) > 3 else 4
NO_KERNEL = {torch.ops.aten.empty.memory_format, torch.ops.aten.empty_strided.default, torch.ops.aten.detach.default,
             torch.ops.aten.lift_fresh.default, torch.ops.aten.sym_size.int, torch.ops.aten.sym_stride.int,
             torch.ops.aten.sym_numel.default, torch.ops.aten.sym_storage_offset.default}


def functions(path, names):
    tree = ast.parse(open(path).read())
    return "\n\n".join(ast.unparse(n) for n in tree.body if isinstance(n, ast.FunctionDef) and n.name in names)


class Proj:
    def __init__(self, i, o, r=8):
        self.weight = torch.randn(o, i)
        self.lora_A = torch.randn(r, i)
        self.lora_B = torch.randn(o, r)
        self.scaling = 0.5


def get_lora_parameters_bias(p):
    return p.weight, None, p.lora_A, p.lora_B, p.scaling, None


class Rope:
    def __init__(self, dim, n=64):
        inv = 1.0 / (10000 ** (torch.arange(0, dim, 2).float() / dim))
        emb = torch.cat([torch.outer(torch.arange(n).float(), inv)] * 2, -1)
        self.cos, self.sin = emb.cos(), emb.sin()

    def extend_rope_embedding(self, x, n):
        pass

    def get_cached(self, n, i):
        return self.cos, self.sin


class Obj:
    pass


g = {"torch": torch, "math_sqrt": math.sqrt, "KV_CACHE_INCREMENT": 512, "SDPA_HAS_GQA": True,
     "scaled_dot_product_attention": F.scaled_dot_product_attention, "torch_matmul": torch.matmul,
     "torch_mv": torch.mv, "torch_mm": torch.mm, "torch_nn_functional_softmax": F.softmax,
     "torch_nn_functional_silu": F.silu, "torch_mean": torch.mean, "torch_square": torch.square,
     "get_lora_parameters_bias": get_lora_parameters_bias, "Optional": typing.Optional, "Tuple": typing.Tuple,
     "Float8Tensor": type(None)}
exec(functions(UTILS, {"fast_linear_forward"}), g)
exec(functions(LLAMA, {"fast_rms_layernorm_inference", "LlamaAttention_fast_forward_inference",
                       "fast_swiglu_inference"}), g)

H, HEADS, KV, D, MLP = 64, 4, 2, 16, 128
cfg = Obj()
cfg.num_attention_heads, cfg.num_key_value_heads, cfg.hidden_size, cfg.sliding_window = HEADS, KV, H, None
attn = Obj()
attn.config, attn.num_key_value_groups, attn.head_dim, attn.rotary_emb = cfg, HEADS // KV, D, Rope(D)
attn.q_proj, attn.k_proj, attn.v_proj, attn.o_proj = Proj(H, HEADS * D), Proj(H, KV * D), Proj(H, KV * D), Proj(HEADS * D, H)
mlp = Obj()
mlp.gate_proj, mlp.up_proj, mlp.down_proj = Proj(H, MLP), Proj(H, MLP), Proj(MLP, H)
norms = [Obj(), Obj()]
for n in norms:
    n.weight, n.variance_epsilon = torch.ones(H), 1e-6
PROMPT = 8
cache = (torch.randn(BATCH, KV, PROMPT, D), torch.randn(BATCH, KV, PROMPT, D))
mask = torch.ones(BATCH, 1, 1, PROMPT + 8, dtype=torch.bool)
residual = torch.empty(BATCH, 1, H)
XX, XX2 = torch.empty(2, BATCH, 1, H)
variance = torch.empty(BATCH, 1, 1)
temp_mlp = torch.empty(2, BATCH, 1, MLP)


def layer(X, kv, pos, prefill, seq):
    # The loop body of LlamaModel_fast_forward_inference_custom (llama.py lines 1371-1408).
    residual.copy_(X)
    X = g["fast_rms_layernorm_inference"](norms[0], X, XX=XX, XX2=XX2, variance=variance)
    X, kv = g["LlamaAttention_fast_forward_inference"](attn, hidden_states=X, past_key_value=kv, position_ids=pos,
                                                      attention_mask=mask[..., :seq], do_prefill=prefill,
                                                      rotary_seq_len=seq)
    X += residual
    residual.copy_(X)
    X = g["fast_rms_layernorm_inference"](norms[1], X, XX=XX, XX2=XX2, variance=variance)
    X = g["fast_swiglu_inference"](mlp, X, temp_gate=temp_mlp[0], temp_up=temp_mlp[1])
    X += residual
    return X, kv


class Count(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.ops, self.views = Counter(), Counter()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        (self.views if func in NO_KERNEL or func.is_view else self.ops)[str(func)] += 1
        return func(*args, **(kwargs or {}))


with torch.no_grad():
    _, kv = layer(torch.randn(BATCH, 1, H), cache, torch.full((BATCH, 1), PROMPT), True, PROMPT + 1)
    with Count() as c:
        layer(torch.randn(BATCH, 1, H), kv, torch.full((BATCH, 1), PROMPT + 1), False, PROMPT + 2)
adapted = 7
lora = sum(n for f, n in c.ops.items() if "addmm_" in f) * 2  # each adapted linear: one mm and one addmm_
print(json.dumps({"batch": BATCH, "torch": torch.__version__, "ops": sum(c.ops.values()),
                  "views": sum(c.views.values()), "adapter_ops": lora, "layer_ops": sum(c.ops.values()) - lora,
                  "by_op": dict(sorted(c.ops.items()))}))
