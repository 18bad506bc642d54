#!/usr/bin/env python3
"""Host work of one vLLM V1 decoder layer run eagerly (`--enforce-eager`), timed on the CPU with the wheel's own code.

What it times: the forward of one LlamaDecoderLayer and one Qwen3DecoderLayer (vllm/model_executor/models/llama.py,
qwen3.py) built from the wheel's classes, run as the CUDA build runs them with enforce_eager: every CustomOp on its
forward_cuda (with enforce_eager the compilation mode is NONE and custom_ops is "all", vllm/config/compilation.py), the
linears through UnquantizedLinearMethod.apply and dispatch_unquantized_gemm's default (F.linear), the attention
through the opaque custom ops the CUDA platform registers (Platform.opaque_attention_op() is True on CUDA, so
Attention.forward calls torch.ops.vllm.unified_kv_cache_update and torch.ops.vllm.unified_attention_with_output through
the dispatcher) into FlashAttentionImpl.do_kv_cache_update and FlashAttentionImpl.forward, inside a forward context
holding FlashAttentionMetadata for the step's sequences and the layer's slot mapping.

The ops that launch a kernel on a GPU are stubbed so that they cost next to nothing here and are counted: the five
torch.ops._C kernels a layer calls (fused_add_rms_norm, rms_norm, rotary_embedding, silu_and_mul,
reshape_and_cache_flash), flash_attn_varlen_func and the four linears' F.linear (each returns a tensor of the right
shape kept from the first call). What is left is the layer's own Python: module calls, CustomOp dispatch, the quant
method's apply, the views, splits, slices, expands and unbinds on the tensors, torch.empty / empty_like allocations,
the two custom-op dispatches and their forward-context lookups. The allocations (`empty_alloc_us`, one torch.empty of
the layer's shape timed alone) are reported so that a caller pricing the counted ops (allocations among them) can take
them out.

Per batch (1, 20, 100 sequences, one decode token each): `layer_us`, the median over repeats of this thread's CPU time
(time.thread_time_ns) per layer forward over many forwards; `stubbed_calls` the kernel stubs called per layer;
`torch_calls` the torch functions and tensor methods called per layer (a TorchFunctionMode count: views and
allocations included, stubs not); `aten_ops` the ATen ops reaching the dispatcher per layer (a TorchDispatchMode
count). Shapes are small (hidden 512, 4 query heads of 128, 2 KV heads) so the CPU's arithmetic on the unstubbed ops
(none is a kernel on a GPU) stays out of the time; the Python does not depend on them.

`attention_ops` (Llama's layer at 1, 16, 64 sequences): the attention's opaque custom ops alone, as Attention.forward
issues them (unified_attention_with_output, after unified_kv_cache_update where the backend writes the cache apart from
its forward, as 0.15.1's FlashAttention does): what runs eagerly between the pieces under piecewise CUDA graphs
(CompilationConfig._attention_ops are the splitting ops; 0.15.1 appends vllm::unified_kv_cache_update), with
`custom_ops` the ops issued and `stubbed_calls` the kernels stubbed (reshape_and_cache_flash, varlen_fwd).

Setup (a venv, CPU only): scripts/measure/vllm_v1_engine_host.py's venv (vllm 0.11.0, torch 2.8.0, run on the CPU), with
the vllm 0.15.1 wheel's Python files unpacked on PYTHONPATH in front of it:
  /tmp/v11venv/bin/pip download --no-deps vllm==0.15.1 -d /tmp/whl
  mkdir /tmp/v15 && cd /tmp/v15 && unzip -q /tmp/whl/vllm-0.15.1-*.whl -x '*.so'
Usage: PYTHONPATH=/tmp/v15 /tmp/v11venv/bin/python scripts/measure/vllm_eager_layer_host.py --out out.json
(0.11.0 alone: run without PYTHONPATH.)
"""

import gc
import json
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time

os.environ.setdefault("VLLM_LOGGING_LEVEL", "ERROR")

import torch  # noqa: E402
from torch.overrides import TorchFunctionMode  # noqa: E402
from torch.utils._python_dispatch import TorchDispatchMode  # noqa: E402

import vllm  # noqa: E402
from vllm.config import (  # noqa: E402
    CacheConfig,
    DeviceConfig,
    ModelConfig,
    VllmConfig,
    set_current_vllm_config,
)
from vllm.distributed import ensure_model_parallel_initialized, init_distributed_environment  # noqa: E402
from vllm.forward_context import set_forward_context  # noqa: E402
from vllm.model_executor.custom_op import CustomOp  # noqa: E402
import vllm.model_executor.layers.linear as linear_mod  # noqa: E402

try:
    import vllm.v1.attention.backends.flash_attn as fa  # noqa: E402
except Exception:  # noqa: BLE001
    fa = None

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CONFIGS = {
    "llama": os.path.join(ROOT, "calibration", "configs", "meta-llama__Llama-3.1-8B-Instruct.json"),
    "qwen3": os.path.join(ROOT, "calibration", "configs", "Qwen__Qwen3-8B.json"),
}
BATCHES = [1, 20, 100]
ATTN_BATCHES = [1, 16, 64]
BLOCK = 16
FORWARDS = 400
REPEATS = 9

STUBBED = {"n": 0}


def stub(*_args, **_kwargs):
    STUBBED["n"] += 1


def stub_varlen(*args, **_kwargs):
    STUBBED["n"] += 1
    return args[3], None


_gemm_out = {}


def stub_gemm(layer, x, weight, bias=None):
    STUBBED["n"] += 1
    key = (id(weight), x.shape[0])
    out = _gemm_out.get(key)
    if out is None:
        out = torch.zeros(x.shape[0], weight.shape[0], dtype=x.dtype)
        _gemm_out[key] = out
    return out


def install_stubs():
    for name in ("fused_add_rms_norm", "rms_norm", "rotary_embedding", "silu_and_mul"):
        setattr(torch.ops._C, name, stub)
    # The CUDA platform's choice (neither ROCm nor CPU): default_unquantized_gemm, F.linear.
    linear_mod.dispatch_unquantized_gemm = lambda: stub_gemm
    # The wheel's Python wrappers run; only the kernels behind them are stubbed.
    torch.ops._C_cache_ops.reshape_and_cache_flash = stub
    from vllm import _custom_ops

    try:
        from vllm.vllm_flash_attn import flash_attn_interface as fai

        torch.ops._vllm_fa2_C.varlen_fwd = stub_varlen
        varlen = fai.flash_attn_varlen_func
    except Exception:  # noqa: BLE001
        varlen = stub
    if fa is not None:
        fa.flash_attn_varlen_func = varlen
        fa.reshape_and_cache_flash = _custom_ops.reshape_and_cache_flash
        fa.get_flash_attn_version = lambda *a, **k: 2  # an A100's FlashAttention 2
        import vllm.attention.layer as attn_layer

        # The CUDA platform's backend on an A100 for a plain decoder (FLASH_ATTN).
        attn_layer.get_attn_backend = lambda *a, **k: fa.FlashAttentionBackend


def vllm_config(kind, model_dir):
    shutil.copy(CONFIGS[kind], os.path.join(model_dir, "config.json"))
    model = ModelConfig(model=model_dir, tokenizer=model_dir, skip_tokenizer_init=True, dtype="float16", seed=0,
                        max_model_len=4096, enforce_eager=True)
    cache = CacheConfig(block_size=BLOCK, gpu_memory_utilization=0.9, cache_dtype="auto")
    vc = VllmConfig(model_config=model, cache_config=cache, device_config=DeviceConfig(device="cpu"))
    hf = vc.model_config.hf_config
    hf.hidden_size, hf.intermediate_size = 512, 1024
    hf.num_attention_heads, hf.num_key_value_heads, hf.head_dim = 4, 2, 128
    return vc


def build_layer(kind, vc):
    if kind == "llama":
        from vllm.model_executor.models.llama import LlamaDecoderLayer as Layer
    else:
        from vllm.model_executor.models.qwen3 import Qwen3DecoderLayer as Layer
    name = "model.layers.0"
    try:
        layer = Layer(vllm_config=vc, prefix=name)
    except TypeError:
        layer = Layer(config=vc.model_config.hf_config, cache_config=vc.cache_config, prefix=name)
    layer = layer.to(torch.float16)
    for m in layer.modules():
        if isinstance(m, CustomOp):
            m._forward_method = m.forward_cuda
        if type(m).__name__ == "SiluAndMul":  # CUDA: torch.ops._C.silu_and_mul
            m.op = torch.ops._C.silu_and_mul
    attn = layer.self_attn.attn
    hf = vc.model_config.hf_config
    if fa is not None:
        attn.attn_backend = fa.FlashAttentionBackend
        attn.impl = fa.FlashAttentionImpl(num_heads=attn.num_heads, head_size=attn.head_size, scale=1.0,
                                          num_kv_heads=attn.num_kv_heads, alibi_slopes=None, sliding_window=None,
                                          kv_cache_dtype="auto")
    attn.use_direct_call = False  # CudaPlatform.opaque_attention_op() is True
    attn.kv_cache = [torch.zeros(2, 64, BLOCK, hf.num_key_value_heads, hf.head_dim, dtype=torch.float16)]
    return layer, attn.layer_name if hasattr(attn, "layer_name") else name + ".self_attn.attn"


def metadata(b):
    seq = torch.full((b,), 300, dtype=torch.int32)
    fields = dict(num_actual_tokens=b, max_query_len=1, query_start_loc=torch.arange(b + 1, dtype=torch.int32),
                  max_seq_len=300, seq_lens=seq, block_table=torch.zeros(b, 32, dtype=torch.int32),
                  slot_mapping=torch.arange(b, dtype=torch.int64), use_cascade=False, common_prefix_len=0,
                  cu_prefix_query_lens=None, prefix_kv_lens=None, suffix_kv_lens=None)
    import dataclasses
    names = {f.name for f in dataclasses.fields(fa.FlashAttentionMetadata)}
    return fa.FlashAttentionMetadata(**{k: v for k, v in fields.items() if k in names})


class CountFunctions(TorchFunctionMode):
    def __init__(self):
        super().__init__()
        self.n = 0

    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.n += 1
        return func(*args, **(kwargs or {}))


class CountAten(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.n = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.n += 1
        return func(*args, **(kwargs or {}))


def time_layer(layer, name, vc, b):
    hf = vc.model_config.hf_config
    md = metadata(b)
    x = torch.zeros(b, hf.hidden_size, dtype=torch.float16)
    res = torch.zeros(b, hf.hidden_size, dtype=torch.float16)
    pos = torch.full((b,), 299, dtype=torch.int64)
    kw = {}
    import inspect
    params = inspect.signature(set_forward_context).parameters
    if "slot_mapping" in params:
        kw["slot_mapping"] = {name: md.slot_mapping}
    with set_forward_context({name: md}, vc, **kw), torch.inference_mode():
        for _ in range(50):
            layer(pos, x, res)
        STUBBED["n"] = 0
        layer(pos, x, res)
        stubbed = STUBBED["n"]
        with CountFunctions() as cf:
            layer(pos, x, res)
        with CountAten() as ca:
            layer(pos, x, res)
        gc.collect()
        gc.disable()
        per = []
        for _ in range(REPEATS):
            a = time.thread_time_ns()
            for _ in range(FORWARDS):
                layer(pos, x, res)
            per.append((time.thread_time_ns() - a) / FORWARDS / 1e3)
        gc.enable()
    return {"batch": b, "layer_us": round(statistics.median(per), 1), "layer_us_min": round(min(per), 1),
            "stubbed_calls": stubbed, "torch_calls": cf.n, "aten_ops": ca.n}


def attention_ops(attn, name, q, k, v, out):
    """The opaque attention ops as Attention.forward issues them, no more: the calls that run eagerly between the
    pieces of a piecewise CUDA graph (CompilationConfig._attention_ops; 0.15.1 adds vllm::unified_kv_cache_update to
    the splitting ops when its backend writes the cache apart from its forward)."""
    kw = {}
    if getattr(fa, "_split_kv_update", False):
        kw["kv_cache_dummy_dep"] = torch.ops.vllm.unified_kv_cache_update(k, v, name)
    torch.ops.vllm.unified_attention_with_output(q, k, v, out, name, **kw)


def time_attention(attn, name, vc, b):
    hf = vc.model_config.hf_config
    md = metadata(b)
    q = torch.zeros(b, hf.num_attention_heads, hf.head_dim, dtype=torch.float16)
    k = torch.zeros(b, hf.num_key_value_heads, hf.head_dim, dtype=torch.float16)
    v = torch.zeros(b, hf.num_key_value_heads, hf.head_dim, dtype=torch.float16)
    out = torch.zeros(b, hf.num_attention_heads, hf.head_dim, dtype=torch.float16)
    kw = {}
    import inspect
    params = inspect.signature(set_forward_context).parameters
    if "slot_mapping" in params:
        kw["slot_mapping"] = {name: md.slot_mapping}
    fa._split_kv_update = "unified_kv_cache_update" in dir(torch.ops.vllm) and not getattr(
        fa.FlashAttentionBackend, "forward_includes_kv_cache_update", True)
    with set_forward_context({name: md}, vc, **kw), torch.inference_mode():
        for _ in range(50):
            attention_ops(attn, name, q, k, v, out)
        STUBBED["n"] = 0
        attention_ops(attn, name, q, k, v, out)
        stubbed = STUBBED["n"]
        with CountFunctions() as cf:
            attention_ops(attn, name, q, k, v, out)
        gc.collect()
        gc.disable()
        per = []
        for _ in range(REPEATS):
            a = time.thread_time_ns()
            for _ in range(FORWARDS):
                attention_ops(attn, name, q, k, v, out)
            per.append((time.thread_time_ns() - a) / FORWARDS / 1e3)
        gc.enable()
    return {"batch": b, "attention_ops_us": round(statistics.median(per), 1),
            "attention_ops_us_min": round(min(per), 1), "custom_ops": 2 if fa._split_kv_update else 1,
            "stubbed_calls": stubbed, "torch_calls": cf.n}


def empty_alloc_us():
    t = []
    for _ in range(REPEATS):
        a = time.thread_time_ns()
        for _ in range(FORWARDS * 10):
            torch.empty((20, 512), dtype=torch.float16)
        t.append((time.thread_time_ns() - a) / FORWARDS / 10 / 1e3)
    return round(statistics.median(t), 2)


def main():
    out = sys.argv[sys.argv.index("--out") + 1] if "--out" in sys.argv else None
    install_stubs()
    model_dir = tempfile.mkdtemp(prefix="eagercfg-")
    rows = {}
    attn_rows = []
    first = vllm_config("llama", model_dir)
    with set_current_vllm_config(first):
        init_distributed_environment(world_size=1, rank=0, distributed_init_method="tcp://127.0.0.1:29541",
                                     local_rank=0, backend="gloo")
        ensure_model_parallel_initialized(1, 1)
    for kind in ("llama", "qwen3"):
        vc = vllm_config(kind, tempfile.mkdtemp(prefix="eagercfg-"))
        vc.compilation_config.static_forward_context.clear()
        with set_current_vllm_config(vc):
            layer, name = build_layer(kind, vc)
            rows[kind] = [time_layer(layer, name, vc, b) for b in BATCHES]
            if kind == "llama" and fa is not None:
                attn_rows = [time_attention(layer.self_attn.attn, name, vc, b) for b in ATTN_BATCHES]
            vc.compilation_config.static_forward_context.clear()
        print(kind, rows[kind], flush=True)
    res = {"vllm": vllm.__version__, "torch": torch.__version__, "python": platform.python_version(),
           "cpu": platform.processor() or platform.machine(), "forwards": FORWARDS, "repeats": REPEATS,
           "empty_alloc_us": empty_alloc_us(), "layers": rows, "attention_ops": attn_rows}
    try:
        with open("/proc/cpuinfo") as f:
            res["cpu"] = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    print(json.dumps(res, indent=1))
    if out:
        with open(out, "w") as f:
            json.dump(res, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
