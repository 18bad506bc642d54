#!/usr/bin/env python3
"""Host work of vLLM V1's engine core per running request and step, timed on the CPU with vLLM 0.11.0's own code.

What it times, calling the classes of the vllm 0.11.0 wheel (commit f71952c1c) with N fake requests and no model:
  schedule            Scheduler.schedule (vllm/v1/core/sched/scheduler.py) for an all-decode step of N running
                      requests: the running loop, KVCacheManager.allocate_slots, the SchedulerOutput and its
                      CachedRequestData.
  update_from_output  Scheduler.update_from_output with one sampled token a request: the per-request stop checks,
                      the EngineCoreOutput of each request.
  update_states       GPUModelRunner._update_states (vllm/v1/worker/gpu_model_runner.py, through the wheel's
                      CPUModelRunner subclass on the CPU): the input batch's bookkeeping for the step's requests.
  prepare_inputs      GPUModelRunner._prepare_inputs up to the attention backend's metadata build (no attention layer
                      is registered without a model, so the call stops there; the backend's own build is not timed).
  encode              MsgpackEncoder.encode (vllm/v1/serial_utils.py) of the step's EngineCoreOutputs, which
                      EngineCoreProc's output thread sends to the API server.
Not timed: the sampler's GPU work and the sampled tokens' copy to the host, _bookkeeping_sync, the API server.
Also timed: add_request (Request with its block hasher, then Scheduler.add_request) per arriving request, and the
schedule + update_from_output of each prefill step of a burst of 1000 prompts of 137 tokens in 8192-token steps.

Requests: distinct prompts of 128 tokens (no prefix-cache hits), temperature 0 (what `vllm bench serve` sends),
max_tokens large enough that none finishes; prefix caching on, block size 16, vLLM's V1 defaults for the H100 API
server (max_num_batched_tokens 8192). The model config is Qwen3-14B's config.json (calibration/configs); only its
shapes are read. Times are this thread's CPU time (time.thread_time_ns), medians over the timed steps.

Setup (a venv, CPU only):
  python3 -m venv /tmp/v11venv
  /tmp/v11venv/bin/pip install --no-deps vllm==0.11.0
  /tmp/v11venv/bin/pip install torch==2.8.0 transformers==4.57.1 msgspec pydantic cloudpickle pyzmq psutil \
    cachetools blake3 cbor2 sentencepiece 'numpy<2.3' prometheus_client pyyaml regex tokenizers requests tqdm \
    aiohttp openai fastapi partial-json-parser gguf py-cpuinfo protobuf pillow prometheus-fastapi-instrumentator \
    tiktoken diskcache==5.6.3 lark==1.2.2 filelock einops compressed-tensors==0.11.0 depyf==0.19.0 watchfiles \
    python-json-logger pybase64 setproctitle openai-harmony 'mistral_common>=1.8.2' numba==0.61.2
Usage: /tmp/v11venv/bin/python scripts/measure/vllm_v1_engine_host.py --out out.json  (a few minutes on two cores;
gloo prints its rank lines on stdout)
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
import vllm  # noqa: E402
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
from vllm.v1.core.kv_cache_utils import get_request_block_hasher, init_none_hash, sha256_cbor  # noqa: E402
from vllm.v1.core.sched.scheduler import Scheduler  # noqa: E402
from vllm.v1.kv_cache_interface import FullAttentionSpec, KVCacheConfig, KVCacheGroupSpec  # noqa: E402
from vllm.v1.outputs import ModelRunnerOutput  # noqa: E402
from vllm.v1.request import Request  # noqa: E402
from vllm.v1.serial_utils import MsgpackEncoder  # noqa: E402
from vllm.v1.structured_output import StructuredOutputManager  # noqa: E402
from vllm.v1.worker.cpu_model_runner import CPUModelRunner  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CONFIG = os.path.join(ROOT, "calibration", "configs", "Qwen__Qwen3-14B.json")
BLOCK = 16
BUDGET = 8192
SIZES = [1, 8, 32, 64, 128, 256, 512, 1024]
STEPS = 20


def make_scheduler(model_dir, max_seqs, num_blocks):
    model = ModelConfig(model=model_dir, tokenizer=model_dir, skip_tokenizer_init=True, dtype="bfloat16", seed=0,
                        max_model_len=8192)
    sched = SchedulerConfig(max_num_seqs=max_seqs, max_num_batched_tokens=BUDGET, max_model_len=8192,
                            enable_chunked_prefill=True)
    cache = CacheConfig(block_size=BLOCK, gpu_memory_utilization=0.9, swap_space=0, cache_dtype="auto",
                        enable_prefix_caching=True)
    cache.num_gpu_blocks = num_blocks
    vc = VllmConfig(scheduler_config=sched, model_config=model, cache_config=cache,
                    device_config=DeviceConfig(device="cpu"))
    kvc = KVCacheConfig(num_blocks=num_blocks, kv_cache_tensors=[], kv_cache_groups=[
        KVCacheGroupSpec(["layer"], FullAttentionSpec(BLOCK, 8, 128, torch.bfloat16))])
    init_none_hash(sha256_cbor)
    return Scheduler(vllm_config=vc, kv_cache_config=kvc, structured_output_manager=StructuredOutputManager(vc),
                     log_stats=True)


_next = [0]


def new_request(prompt_len, max_tokens, hasher):
    _next[0] += 1
    base = (_next[0] * 7919) % 100000
    return Request(request_id=f"r{_next[0]}", prompt_token_ids=[(base + i) % 150000 for i in range(prompt_len)],
                   sampling_params=SamplingParams(temperature=0.0, max_tokens=max_tokens), pooling_params=None,
                   eos_token_id=151645, block_hasher=hasher)


def sampled(so):
    ids = list(so.num_scheduled_tokens.keys())
    return ModelRunnerOutput(req_ids=ids, req_id_to_index={r: i for i, r in enumerate(ids)},
                             sampled_token_ids=[[1000] for _ in ids], logprobs=None, prompt_logprobs_dict={},
                             pooler_output=[])


def prepare_inputs(runner, so):
    try:
        runner._prepare_inputs(so)
    except IndexError:
        pass  # attn_groups is empty without a model: the attention backend's metadata build is not timed


def decode_row(model_dir, n):
    s = make_scheduler(model_dir, n, n * 20 + 100)
    runner = CPUModelRunner(s.vllm_config, torch.device("cpu"))
    runner.kv_cache_config = s.kv_cache_config
    runner._may_reorder_batch = lambda so: None  # FlashAttention's builder reorders nothing
    hasher = get_request_block_hasher(BLOCK, sha256_cbor)
    for _ in range(n):
        s.add_request(new_request(128, 100000, hasher))
    while s.waiting or any(r.num_computed_tokens < r.num_prompt_tokens for r in s.running):
        so = s.schedule()
        runner._update_states(so)
        s.update_from_output(so, sampled(so))
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
    row = {"running": n}
    row.update({f"{k}_us": round(statistics.median(v), 1) for k, v in t.items()})
    row["total_us"] = round(sum(row[f"{k}_us"] for k in t), 1)
    return row


def burst(model_dir, n=1000, prompt_len=137):
    s = make_scheduler(model_dir, 1024, 20000)
    hasher = get_request_block_hasher(BLOCK, sha256_cbor)
    add = []
    for _ in range(n):
        a = time.thread_time_ns()
        s.add_request(new_request(prompt_len, 4, hasher))
        add.append((time.thread_time_ns() - a) / 1e3)
    steps = []
    while s.waiting:
        running = len(s.running)
        a = time.thread_time_ns()
        so = s.schedule()
        b = time.thread_time_ns()
        s.update_from_output(so, sampled(so))
        c = time.thread_time_ns()
        steps.append({"running_before": running, "new": len(so.scheduled_new_reqs),
                      "scheduled": len(so.num_scheduled_tokens), "schedule_us": round((b - a) / 1e3),
                      "update_from_output_us": round((c - b) / 1e3)})
    return round(statistics.median(add), 1), steps


def main():
    model_dir = tempfile.mkdtemp(prefix="v11cfg-")
    shutil.copy(CONFIG, os.path.join(model_dir, "config.json"))
    with set_current_vllm_config(make_scheduler(model_dir, 1, 200).vllm_config):
        init_distributed_environment(world_size=1, rank=0, distributed_init_method="tcp://127.0.0.1:29533",
                                     local_rank=0, backend="gloo")
        ensure_model_parallel_initialized(1, 1)
    rows = [decode_row(model_dir, n) for n in SIZES]
    add_us, steps = burst(model_dir)
    by = {r["running"]: r for r in rows}
    slope = (by[1024]["total_us"] - by[128]["total_us"]) / (1024 - 128)
    cpu = next((ln.split(":", 1)[1].strip() for ln in open("/proc/cpuinfo") if ln.startswith("model name")), "")
    result = {
        "script": "scripts/measure/vllm_v1_engine_host.py",
        "what": "microseconds of this thread's CPU time per all-decode step of N running requests in vLLM 0.11.0's "
                "engine core (median of the timed steps), by part; add_request per arriving request; the schedule "
                "and update_from_output of each prefill step of a burst of 1000 prompts of 137 tokens",
        "vllm": f"{vllm.__version__} (wheel commit f71952c1c)",
        "torch": torch.__version__,
        "python": platform.python_version(),
        "cpu": cpu,
        "logical_cpus": os.cpu_count(),
        "load_average_1m": round(os.getloadavg()[0], 2),
        "rows": rows,
        "add_request_us": add_us,
        "burst1000_steps": steps,
        "summary": {"per_request_us_128_to_1024": round(slope, 2),
                    "per_request_us_at_1024": round(by[1024]["total_us"] / 1024, 2),
                    "one_request_us": by[1]["total_us"]},
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
