"""Whether Unsloth's compiled FP8 block linear compiles again for each new sequence length (a GRPO step's padded length).

A CPU copy of the call structure of unsloth 2025.11.3 `unsloth/kernels/fp8.py` on the path a run without fbgemm_gpu
takes: `fp8_linear` (`@torch_compile`, unsloth_zoo 2025.11.4 `temporary_patches/common.py`: `torch.compile` with
Unsloth's inductor options, no `dynamic` argument) calls `fp8_block_quant_linear` = `fp8_torch_block_quant_forward`
(also `@torch_compile`), which applies `FP8BlockQuantLinear`: the block-size checks with `triton.cdiv` on the weight
and scale shapes, `act_quant` (its `x.shape[-1] % block_size` assert and a scale tensor of `x.size(-1) // 128`
columns), then torchao's `blockwise_fp8_gemm` (pytorch/ao v0.14.1 `prototype/blockwise_fp8_inference/
blockwise_quantization.py`: `M = a.numel() // K`, `M_BUCKET = math.ceil(math.log2(M))`); the backward dequantizes the
weight and multiplies. The Triton kernels are replaced by torch ops of the same shapes (no GPU); the shape arithmetic
that guards could key on is kept as written. Dynamo is configured as unsloth_zoo 2025.11.4 `patching_utils.py`
`patch_torch_compile` sets it (recompile_limit 32, accumulated limit 1,024, scalar and dynamic-output capture).

Each step runs a batch of 4 sequences of `prompt + 1849` tokens (a new prompt length per step, as a GRPO step whose 4
completions share one prompt) through the 7 projections of 2 layers, forward and backward, and prints how many
graphs Dynamo has compiled so far. Widths are scaled down (hidden 256, MLP 512: multiples of the 128 block).

  python3 -m venv /tmp/fp8lin && /tmp/fp8lin/bin/pip install torch==2.9.0 numpy
  /tmp/fp8lin/bin/python scripts/measure/unsloth_fp8_linear_recompile.py
"""
import functools
import math

import torch
import torch._dynamo
import triton
from torch._dynamo.utils import counters

for k, v in dict(
    accumulated_cache_size_limit=1024,
    cache_size_limit=1024,
    recompile_limit=32,
    inline_inbuilt_nn_modules=True,
    allow_unspec_int_on_nn_module=True,
    capture_scalar_outputs=True,
    capture_dynamic_output_shape_ops=True,
).items():
    setattr(torch._dynamo.config, k, v)

torch_compile = functools.partial(torch.compile, backend="aot_eager")
BLOCK = 128


def act_quant(x, block_size=BLOCK):
    # fp8.py act_quant: per-128 group scales; the Triton kernel stands as torch ops.
    assert x.shape[-1] % block_size == 0
    g = x.unflatten(-1, (x.size(-1) // block_size, block_size))
    s = g.abs().amax(-1).clamp(min=1e-12) / 448.0
    return (g / s.unsqueeze(-1)).flatten(-2), s


def blockwise_fp8_gemm(a, a_s, b, b_s, block_size=BLOCK):
    # torchao blockwise_fp8_gemm: M and its power-of-two bucket (the autotune key), then the kernel.
    K = a.size(-1)
    M = a.numel() // K
    M_BUCKET = math.ceil(math.log2(M))
    a2 = (a.unflatten(-1, (K // block_size, block_size)) * a_s.unsqueeze(-1)).flatten(-2)
    w = (b.unflatten(0, (b.size(0) // block_size, block_size)).unflatten(-1, (K // block_size, block_size))
         * b_s[:, None, :, None]).flatten(0, 1).flatten(-2)
    return (a2 @ w.t()) * (M_BUCKET / M_BUCKET)


def weight_dequant(w, s, block_size=BLOCK):
    return (w.unflatten(0, (w.size(0) // block_size, block_size)).unflatten(-1, (w.size(1) // block_size, block_size))
            * s[:, None, :, None]).flatten(0, 1).flatten(-2)


class FP8BlockQuantLinear(torch.autograd.Function):
    @staticmethod
    def forward(ctx, X, weight, weight_scale):
        m, n = weight.shape
        p, q = weight_scale.shape
        block_size = [BLOCK, BLOCK]
        if triton.cdiv(m, block_size[0]) != p or triton.cdiv(n, block_size[1]) != q:
            raise ValueError("incompatible block size")
        qinput, scale = act_quant(X, block_size[1])
        out = blockwise_fp8_gemm(qinput, scale, weight, weight_scale, block_size[1])
        ctx.weight, ctx.weight_scale = weight, weight_scale
        return out

    @staticmethod
    def backward(ctx, grad_output):
        W_deq = weight_dequant(ctx.weight, ctx.weight_scale)
        return grad_output @ W_deq, None, None


@torch_compile
def fp8_torch_block_quant_forward(X, weight, weight_scale):
    return FP8BlockQuantLinear.apply(X, weight, weight_scale)


@torch_compile
def fp8_linear(X, weight, weight_scale, bias=None):
    if weight_scale.ndim == 2 and weight_scale.shape[1] > 1:
        return fp8_torch_block_quant_forward(X, weight, weight_scale)
    raise NotImplementedError


H, I, KV = 256, 512, 128
SHAPES = [(H, H), (KV, H), (KV, H), (H, H), (I, H), (I, H), (H, I)]  # q k v o gate up down (out, in)
weights = [(torch.randn(o, i), torch.rand(o // BLOCK, i // BLOCK) + 0.5) for o, i in SHAPES]


def step(length):
    x = torch.randn(4, length, H, requires_grad=True)
    total = 0
    for _layer in range(2):
        for w, s in weights:
            inp = x if w.shape[1] == H else torch.randn(4, length, I, requires_grad=True)
            total = total + fp8_linear(inp, w, s).float().mean()
    total.backward()


prompts = [199, 150, 187, 120, 199, 163, 98, 176, 141, 150, 133, 188, 109, 172, 155]
for i, p in enumerate(prompts):
    step(p + 1849)
    print(f"step {i + 1}: length {p + 1849}, graphs compiled so far {counters['stats']['unique_graphs']}", flush=True)
