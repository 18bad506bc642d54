#!/usr/bin/env python3
"""Host work of vLLM 0.10.1's engine core per running request and step, gpt-oss's two KV-cache groups against one.

What it times, calling the classes of the vllm 0.10.1 wheel with N fake decoding requests and no model (the parts of
scripts/measure/vllm_v1_engine_host.py, which times v0.11.0 with one full-attention group):
  schedule            Scheduler.schedule (vllm/v1/core/sched/scheduler.py): the running loop, KVCacheManager.allocate_slots
                      through the hybrid coordinator (vllm/v1/core/kv_cache_coordinator.py) and each group's
                      SingleTypeKVCacheManager (remove_skipped_blocks, new blocks, cache_blocks), the SchedulerOutput.
  update_from_output  Scheduler.update_from_output with one sampled token a request.
  update_states       GPUModelRunner._update_states (through the wheel's CPUModelRunner on the CPU): the input batch's
                      bookkeeping, each group's block table rows.
  prepare_inputs      GPUModelRunner._prepare_inputs up to the attention backends' metadata builds (no attention layer
                      is registered without a model, so the call stops there; the backends' builds are not timed).
  encode              MsgpackEncoder.encode of the step's EngineCoreOutputs.
Layouts, the same model config (calibration/configs/openai__gpt-oss-20b.json, its quantization_config dropped: only
shapes are read):
  hybrid      what 0.10.1 builds for gpt-oss (vllm/v1/core/kv_cache_utils.py _get_kv_cache_config_uniform_page_size):
              one FullAttentionSpec group (the 12 full layers) and one SlidingWindowSpec group (the 12 layers with the
              128-token window), each with its own block table.
  one-group   one FullAttentionSpec group, as v0.11.0's script and a dense model without a sliding window.
Requests: distinct prompts (no prefix-cache hits), temperature 0, max_tokens large enough that none finishes; prefix
caching on with 0.10.1's default hash (builtin), block size 16, max_num_batched_tokens 8192. Contexts: the prompt
lengths of the rows that run gpt-oss on vLLM of August 2025 (90 and 1067 tokens), decoded 40 steps before timing.
Times are this thread's CPU time (time.thread_time_ns), medians over the timed steps.

Setup (a venv, CPU only): pip install torch==2.7.1 transformers==4.55.2 msgspec pydantic==2.11.7 cloudpickle pyzmq
psutil cachetools blake3 cbor2 sentencepiece 'numpy<2.3' prometheus_client pyyaml regex tokenizers requests tqdm
aiohttp openai fastapi partial-json-parser gguf py-cpuinfo protobuf pillow prometheus-fastapi-instrumentator tiktoken
diskcache lark filelock einops compressed-tensors==0.10.2 depyf watchfiles python-json-logger pybase64 setproctitle
openai-harmony mistral_common numba; `pip download vllm==0.10.1 --no-deps` and unzip it into VLLM_WHEEL_DIR.
Usage: PYTHONPATH=<unpacked wheel> VLLM_WHEEL_DIR=<unpacked wheel> python vllm_0101_hybrid_engine_host.py --out out.json
(PYTHONPATH too: ModelConfig inspects the architecture in a subprocess that must import the same wheel.)
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

sys.path.insert(0, os.environ.get("VLLM_WHEEL_DIR", "."))
os.environ.setdefault("VLLM_LOGGING_LEVEL", "ERROR")

import torch  # noqa: E402

# One intra-op thread: the CPU stand-in for the device copies (block tables, slot mappings) would otherwise fork an
# OpenMP team per copy on this shared host, which a CUDA build does not (an async copy enqueued on the stream).
torch.set_num_threads(1)
import vllm  # noqa: E402
import vllm.platforms as vllm_platforms  # noqa: E402
from vllm.platforms.cpu import CpuPlatform  # noqa: E402

# The CUDA wheel on a host without a GPU resolves no platform; its CPU platform runs the same scheduler.
vllm_platforms._current_platform = CpuPlatform()
import vllm.utils as vllm_utils  # noqa: E402

# No pinned host memory without a GPU.
vllm_utils.is_pin_memory_available = lambda: False
import vllm.v1.worker.gpu_model_runner as gmr  # noqa: E402

gmr.is_pin_memory_available = lambda: False

from vllm.config import (  # noqa: E402
    CacheConfig,
    DeviceConfig,
    ModelConfig,
    SchedulerConfig,
    VllmConfig,
    set_current_vllm_config,
)
from vllm.distributed import ensure_model_parallel_initialized, init_distributed_environment  # noqa: E402
from vllm.sampling_params import SamplingParams  # noqa: E402
from vllm.v1.core.kv_cache_utils import get_request_block_hasher, init_none_hash  # noqa: E402
from vllm.v1.core.sched.scheduler import Scheduler  # noqa: E402
from vllm.v1.kv_cache_interface import (  # noqa: E402
    FullAttentionSpec,
    KVCacheConfig,
    KVCacheGroupSpec,
    SlidingWindowSpec,
)
from vllm.v1.outputs import ModelRunnerOutput  # noqa: E402
from vllm.v1.request import Request  # noqa: E402
from vllm.v1.serial_utils import MsgpackEncoder  # noqa: E402
from vllm.v1.structured_output import StructuredOutputManager  # noqa: E402
from vllm.v1.worker.cpu_model_runner import CPUModelRunner  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CONFIG = os.path.join(ROOT, "calibration", "configs", "openai__gpt-oss-20b.json")
BLOCK = 16
BUDGET = 8192
MAX_LEN = 8192
SIZES = [1, 4, 8, 16, 64, 256]
PROMPTS = [90, 1067]
WARM_STEPS = 40
STEPS = 20
REPEATS = int(os.environ.get("REPEATS", "3"))
HASH = hash  # 0.10.1's default prefix_caching_hash_algo "builtin" (vllm/config/cache.py)


def groups(layout):
    full = FullAttentionSpec(BLOCK, 8, 64, torch.bfloat16, False)
    if layout == "one-group":
        return [KVCacheGroupSpec([f"layers.{i}" for i in range(24)], full)]
    window = SlidingWindowSpec(BLOCK, 8, 64, torch.bfloat16, False, sliding_window=128)
    return [KVCacheGroupSpec([f"layers.{i}" for i in range(1, 24, 2)], full),
            KVCacheGroupSpec([f"layers.{i}" for i in range(0, 24, 2)], window)]


def make_scheduler(model_dir, layout, max_seqs, num_blocks):
    model = ModelConfig(model=model_dir, tokenizer=model_dir, skip_tokenizer_init=True, dtype="bfloat16", seed=0,
                        max_model_len=MAX_LEN)
    sched = SchedulerConfig(max_num_seqs=max_seqs, max_num_batched_tokens=BUDGET, max_model_len=MAX_LEN,
                            enable_chunked_prefill=True)
    cache = CacheConfig(block_size=BLOCK, gpu_memory_utilization=0.9, swap_space=0, cache_dtype="auto",
                        enable_prefix_caching=True)
    cache.num_gpu_blocks = num_blocks
    vc = VllmConfig(scheduler_config=sched, model_config=model, cache_config=cache,
                    device_config=DeviceConfig(device="cpu"))
    kvc = KVCacheConfig(num_blocks=num_blocks, kv_cache_tensors=[], kv_cache_groups=groups(layout))
    init_none_hash(HASH)
    return Scheduler(vllm_config=vc, kv_cache_config=kvc, structured_output_manager=StructuredOutputManager(vc),
                     log_stats=True)


_next = [0]


def new_request(prompt_len, max_tokens, hasher):
    _next[0] += 1
    base = (_next[0] * 7919) % 100000
    return Request(request_id=f"r{_next[0]}", prompt_token_ids=[(base + i) % 200000 for i in range(prompt_len)],
                   multi_modal_kwargs=None, multi_modal_hashes=None, multi_modal_placeholders=None,
                   sampling_params=SamplingParams(temperature=0.0, max_tokens=max_tokens), pooling_params=None,
                   eos_token_id=200002, block_hasher=hasher)


def sampled(so):
    ids = list(so.num_scheduled_tokens.keys())
    return ModelRunnerOutput(req_ids=ids, req_id_to_index={r: i for i, r in enumerate(ids)},
                             sampled_token_ids=[[1000] for _ in ids], spec_token_ids=None, logprobs=None,
                             prompt_logprobs_dict={}, pooler_output=[])


def prepare_inputs(runner, so):
    try:
        runner._prepare_inputs(so)
    except (IndexError, KeyError, AttributeError):
        pass  # no attention layer is registered without a model: the backends' metadata builds are not timed


def decode_row(model_dir, layout, prompt, n):
    blocks_per_req = (prompt + WARM_STEPS + STEPS) // BLOCK + 2
    s = make_scheduler(model_dir, layout, n, n * blocks_per_req * len(groups(layout)) + 100)
    runner = CPUModelRunner(s.vllm_config, torch.device("cpu"))
    runner.kv_cache_config = s.kv_cache_config
    runner._may_reorder_batch = lambda so: None
    runner.may_reinitialize_input_batch(s.kv_cache_config)
    hasher = get_request_block_hasher(BLOCK, HASH)
    for _ in range(n):
        s.add_request(new_request(prompt, 100000, hasher))
    warm = 0
    while s.waiting or any(r.num_computed_tokens < r.num_prompt_tokens for r in s.running) or warm < WARM_STEPS:
        so = s.schedule()
        runner._update_states(so)
        s.update_from_output(so, sampled(so))
        if not s.waiting and all(r.num_computed_tokens >= r.num_prompt_tokens for r in s.running):
            warm += 1
    enc = MsgpackEncoder()
    t = {k: [] for k in ("schedule", "update_from_output", "update_states", "prepare_inputs", "encode")}
    gc.collect()
    for _ in range(STEPS):
        a = time.thread_time_ns()
        so = s.schedule()
        b = time.thread_time_ns()
        runner._update_states(so)
        c = time.thread_time_ns()
        prepare_inputs(runner, so)
        d = time.thread_time_ns()
        mo = sampled(so)
        e = time.thread_time_ns()
        out = s.update_from_output(so, mo)
        f = time.thread_time_ns()
        for eco in out.values():
            enc.encode(eco)
        g = time.thread_time_ns()
        assert len(so.num_scheduled_tokens) == n
        for k, v in (("schedule", b - a), ("update_states", c - b), ("prepare_inputs", d - c),
                     ("update_from_output", f - e), ("encode", g - f)):
            t[k].append(v / 1e3)
    row = {"layout": layout, "prompt": prompt, "running": n}
    row.update({f"{k}_us": round(statistics.median(v), 1) for k, v in t.items()})
    row["total_us"] = round(sum(row[f"{k}_us"] for k in t), 1)
    return row


def main():
    model_dir = tempfile.mkdtemp(prefix="v101cfg-")
    cfg = json.load(open(CONFIG))
    cfg.pop("quantization_config", None)
    # The registry inspects the model class in a subprocess, which imports gpt-oss's kernels (FlashInfer,
    # triton_kernels) that a CPU venv lacks; another MoE architecture stands in. Only config shapes are read.
    cfg["architectures"] = ["MixtralForCausalLM"]
    json.dump(cfg, open(os.path.join(model_dir, "config.json"), "w"))
    with set_current_vllm_config(make_scheduler(model_dir, "hybrid", 1, 200).vllm_config):
        init_distributed_environment(world_size=1, rank=0, distributed_init_method="tcp://127.0.0.1:29534",
                                     local_rank=0, backend="gloo")
        ensure_model_parallel_initialized(1, 1)
    # Each row REPEATS times, interleaved, keeping the repeat of median total (a shared host's load varies).
    runs = [[decode_row(model_dir, layout, p, n) for p in PROMPTS for layout in ("hybrid", "one-group")
             for n in SIZES] for _ in range(REPEATS)]
    rows = [sorted(rs, key=lambda r: r["total_us"])[len(rs) // 2] for rs in zip(*runs)]
    summary = {}
    for p in PROMPTS:
        slope = {}
        for layout in ("hybrid", "one-group"):
            by = {r["running"]: r for r in rows if r["prompt"] == p and r["layout"] == layout}
            slope[layout] = (by[256]["total_us"] - by[16]["total_us"]) / 240
            summary[f"{layout}_prompt{p}_per_request_us_16_to_256"] = round(slope[layout], 2)
            summary[f"{layout}_prompt{p}_one_request_us"] = by[1]["total_us"]
        # gpt-oss's layout has two groups: the second group's work per running request.
        summary[f"second_group_prompt{p}_per_request_us"] = round(slope["hybrid"] - slope["one-group"], 2)
    cpu = next((ln.split(":", 1)[1].strip() for ln in open("/proc/cpuinfo") if ln.startswith("model name")), "")
    result = {
        "script": "scripts/measure/vllm_0101_hybrid_engine_host.py",
        "what": "microseconds of this thread's CPU time per all-decode step of N running requests in vLLM 0.10.1's "
                "engine core (median of the timed steps), by part, for gpt-oss's two KV-cache groups (hybrid) and "
                "for one full-attention group, at two prompt lengths",
        "vllm": vllm.__version__,
        "torch": torch.__version__,
        "python": platform.python_version(),
        "cpu": cpu,
        "logical_cpus": os.cpu_count(),
        "load_average_1m": round(os.getloadavg()[0], 2),
        "repeats": REPEATS,
        "rows": rows,
        "summary": summary,
    }
    out = sys.argv[sys.argv.index("--out") + 1] if "--out" in sys.argv else None
    text = json.dumps(result, indent=1) + "\n"
    if out:
        with open(out, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    shutil.rmtree(model_dir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
