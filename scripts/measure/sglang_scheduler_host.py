#!/usr/bin/env python3
"""Host work of SGLang 0.5.6's scheduler per decode step with N running requests, timed on the CPU with its own code.

What it times, calling the classes of the sglang 0.5.6 wheel with N fake running requests and no model (no GPU):
  schedule      Scheduler.get_next_batch_to_run (managers/scheduler.py) for an all-decode step, nothing waiting:
                get_new_batch_prefill's early return, update_running_batch (filter_batch, check_decode_mem,
                ScheduleBatch.prepare_for_decode: alloc_for_decode through the token allocator and the radix cache,
                the req_to_token write, the seq_lens updates).
  launch_prep   the host side of run_batch before the forward: ScheduleBatch.get_model_worker_batch, and the
                batch.copy() the overlap loop queues (event_loop_overlap). The forward's own host work
                (ForwardBatch.init_new, the CUDA graph's replay_prepare, the sampler) needs a GPU and is not timed.
  process       Scheduler.process_batch_result_decode (managers/scheduler_output_processor_mixin.py) with one sampled
                token a request: output_ids, check_finished, stream_output_generation building the step's
                BatchTokenIDOutput, and its pickling (what send_pyobj does to the detokenizer).
  radix         once per request, not per step: RadixCache.match_prefix of a new 500-token prompt and the insert of
                its 1000 tokens at finish, against a tree of 256 earlier distinct sequences (mem_cache/radix_cache.py).
  detokenize    DetokenizerManager.handle_batch_token_id_out (managers/detokenizer_manager.py) of that output after
                unpickling it: incremental detokenization of every request's new token (batch_decode of the
                surrounding ids) and the BatchStrOutput; its own process, beside the scheduler.
Requests: prompts of 128 distinct token ids, temperature 0, max_new_tokens large enough that none finishes, stream
on (what `sglang.bench_serving` / `vllm bench serve` send); radix cache on, page size 1, overlap scheduling on (the
defaults). The tokenizer of the detokenizer: the one built by vllm_api_server_request.py (Qwen's, from qwen.tiktoken)
when QWEN_TIKTOKEN is set; otherwise detokenize is skipped. Times: this thread's CPU time (time.thread_time_ns),
medians over the timed steps, per step and per running request.

Setup (a venv, CPU only): the venv of vllm_v1_engine_host.py (torch 2.8.0, transformers 4.57.1, vllm 0.11.0) plus
  pip install --no-deps sglang==0.5.6 torchvision==0.23.0 && pip install orjson uvloop IPython
sgl_kernel (CUDA kernels) is not installed: a stub module stands in (sglang_api_server_request.py's), nothing timed
calls it.
Usage: QWEN_TIKTOKEN=<path to qwen.tiktoken> python scripts/measure/sglang_scheduler_host.py --n 1 16 64 128 256 \
    --out out.json
"""

import argparse
import json
import os
import pickle
import platform
import statistics
import sys
import time
import types

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sglang_api_server_request as sapi  # noqa: E402,F401  (installs the sgl_kernel stub)

import torch  # noqa: E402

STEPS = 60
WARMUP = 10
PROMPT = 128


def build(n, tokenizer):
    from sglang.srt.managers.schedule_batch import Req, ScheduleBatch
    from sglang.srt.managers.scheduler import Scheduler
    from sglang.srt.mem_cache.allocator import TokenToKVPoolAllocator
    from sglang.srt.mem_cache.cache_init_params import CacheInitParams
    from sglang.srt.mem_cache.memory_pool import ReqToTokenPool
    from sglang.srt.mem_cache.radix_cache import RadixCache
    from sglang.srt.model_executor.forward_batch_info import ForwardMode
    from sglang.srt.sampling.sampling_batch_info import SamplingBatchInfo
    from sglang.srt.sampling.sampling_params import SamplingParams
    from sglang.srt.server_args import ServerArgs, set_global_server_args_for_scheduler
    from sglang.srt.speculative.spec_info import SpeculativeAlgorithm

    args = ServerArgs(model_path="dummy", device="cpu", skip_server_warmup=True)
    set_global_server_args_for_scheduler(args)
    ctx = PROMPT + STEPS + 64
    pool = ReqToTokenPool(size=max(n, 1) + 8, max_context_len=ctx, device="cpu", enable_memory_saver=False)
    alloc = TokenToKVPoolAllocator(size=(n + 8) * ctx, dtype=torch.bfloat16, device="cpu", kvcache=None,
                                   need_sort=False)
    cache = RadixCache(CacheInitParams(disable=False, req_to_token_pool=pool, token_to_kv_pool_allocator=alloc,
                                       page_size=1))
    mc = types.SimpleNamespace(is_encoder_decoder=False, vocab_size=151936, hf_eos_token_id={151645},
                               is_multimodal=False, is_multimodal_gen=False,
                               attention_chunk_size=None)
    reqs = []
    for i in range(n):
        sp = SamplingParams(max_new_tokens=1 << 20, temperature=0.0)
        sp.normalize(None)
        sp.verify(mc.vocab_size)
        ids = [(1000 + 7919 * i + 31 * j) % 150000 for j in range(PROMPT)]
        r = Req(f"req-{i}", "", ids, sp, stream=True, eos_token_ids=mc.hf_eos_token_id, vocab_size=mc.vocab_size)
        r.tokenizer = tokenizer
        r.req_pool_idx = pool.alloc(1)[0]
        loc = alloc.alloc(PROMPT)
        pool.write((r.req_pool_idx, slice(0, PROMPT)), loc.to(torch.int32))
        r.prefix_indices = loc
        r.kv_committed_len = r.kv_allocated_len = PROMPT
        r.output_ids.append(1234)  # the prefill's token
        reqs.append(r)
    batch = ScheduleBatch.init_new(reqs, pool, alloc, cache, mc, True, SpeculativeAlgorithm.NONE)
    batch.forward_mode = ForwardMode.DECODE
    batch.req_pool_indices = torch.tensor([r.req_pool_idx for r in reqs], dtype=torch.int64)
    batch.seq_lens = torch.full((n,), PROMPT, dtype=torch.int64)
    batch.seq_lens_cpu = batch.seq_lens.clone()
    batch.orig_seq_lens = batch.seq_lens.to(torch.int32)
    batch.seq_lens_sum = n * PROMPT
    batch.output_ids = torch.full((n,), 1234, dtype=torch.int64)
    batch.sampling_info = SamplingBatchInfo.from_schedule_batch(batch, mc.vocab_size)
    return Scheduler, batch, args, mc, pool, alloc, cache


class Sink:
    """send_to_detokenizer: pickles what send_pyobj would send and keeps the last blob."""

    def __init__(self):
        self.blob = None
        self.pickle_ns = 0

    def send_output(self, obj, *_):
        t0 = time.thread_time_ns()
        self.blob = pickle.dumps(obj)
        self.pickle_ns += time.thread_time_ns() - t0


def fake_scheduler(Scheduler, batch, args, mc, pool, alloc, cache):
    from sglang.srt.disaggregation.utils import DisaggregationMode
    from sglang.srt.speculative.spec_info import SpeculativeAlgorithm

    s = object.__new__(Scheduler)
    vals = dict(server_args=args, model_config=mc, enable_overlap=True, is_generation=True, running_batch=batch,
                last_batch=batch, chunked_req=None, dllm_config=None, waiting_queue=[], grammar_queue=[],
                req_to_token_pool=pool, token_to_kv_pool_allocator=alloc, tree_cache=cache,
                spec_algorithm=SpeculativeAlgorithm.NONE, require_mlp_sync=False, num_generated_tokens=0,
                forward_ct_decode=0, forward_ct=1, attn_tp_rank=0, enable_metrics_for_all_schedulers=False,
                stream_interval=args.stream_interval, disaggregation_mode=DisaggregationMode.NULL,
                send_to_detokenizer=Sink(), decode_mem_cache_buf_multiplier=1, new_token_ratio=0.4,
                new_token_ratio_decay=0.001, min_new_token_ratio=0.1, enable_hierarchical_cache=False,
                enable_hicache_storage=False, enable_lora=False, pp_size=1, enable_trace=False,
                enable_priority_scheduling=False, enable_metrics=False, is_mixed_chunk=False,
                max_running_requests=4096, page_size=1, current_stream=None, enable_kv_cache_events=False,
                try_preemption=False)
    s.__dict__.update(vals)
    s.log_decode_stats = lambda *a, **k: None  # its log line every decode_log_interval (40) steps: not timed
    return s


def time_n(n, tokenizer, detok):
    from sglang.srt.managers.utils import GenerationBatchResult

    Scheduler, batch, args, mc, pool, alloc, cache = build(n, tokenizer)
    s = fake_scheduler(Scheduler, batch, args, mc, pool, alloc, cache)
    parts = {"schedule": [], "launch_prep": [], "process": [], "pickle": [], "detokenize": []}
    for step in range(STEPS + WARMUP):
        t0 = time.thread_time_ns()
        b = s.get_next_batch_to_run()
        t1 = time.thread_time_ns()
        b.get_model_worker_batch()
        q = b.copy()
        t2 = time.thread_time_ns()
        ids = torch.tensor([1000 + (17 * step + i) % 5000 for i in range(n)], dtype=torch.int64)
        res = GenerationBatchResult(logits_output=None, next_token_ids=ids, can_run_cuda_graph=True)
        s.send_to_detokenizer.pickle_ns = 0
        t3 = time.thread_time_ns()
        s.process_batch_result_decode(q, res)
        t4 = time.thread_time_ns()
        b.output_ids = ids
        dt = 0
        if detok is not None:
            t5 = time.thread_time_ns()
            detok.handle_batch_token_id_out(pickle.loads(s.send_to_detokenizer.blob))
            dt = time.thread_time_ns() - t5
        if step >= WARMUP:
            parts["schedule"].append(t1 - t0)
            parts["launch_prep"].append(t2 - t1)
            parts["process"].append(t4 - t3)
            parts["pickle"].append(s.send_to_detokenizer.pickle_ns)
            parts["detokenize"].append(dt)
    med = {k + "_us": round(statistics.median(v) / 1e3, 2) for k, v in parts.items()}
    med["scheduler_us"] = round(med["schedule_us"] + med["launch_prep_us"] + med["process_us"], 2)
    return {"running_requests": n, "median_per_step": med,
            "per_request_us": {k: round(v / n, 3) for k, v in med.items()}}


def time_radix(cached=256, prompt=500, seq=1000, reps=200):
    """A request's radix-cache work, once per request: match_prefix of its prompt (at admission, in
    PrefillAdder/init_next_round_input) and the insert of its prompt + output when it finishes (cache_finished_req),
    against a tree holding `cached` earlier distinct sequences of `seq` tokens (random prompts share no prefix)."""
    from sglang.srt.mem_cache.cache_init_params import CacheInitParams
    from sglang.srt.mem_cache.radix_cache import RadixCache, RadixKey

    tree = RadixCache(CacheInitParams(disable=False, req_to_token_pool=None, token_to_kv_pool_allocator=None,
                                      page_size=1))

    def ids(i, n):
        return [(1 + 7919 * i + 31 * j) % 150000 for j in range(n)]

    for i in range(cached):
        tree.insert(RadixKey(ids(i, seq)))
    match, insert = [], []
    for i in range(cached, cached + reps):
        t0 = time.thread_time_ns()
        tree.match_prefix(RadixKey(ids(i, prompt)))
        t1 = time.thread_time_ns()
        tree.insert(RadixKey(ids(i, seq)))
        t2 = time.thread_time_ns()
        match.append(t1 - t0)
        insert.append(t2 - t1)
    return {"cached_sequences": cached, "prompt_tokens": prompt, "sequence_tokens": seq,
            "match_prefix_us": round(statistics.median(match) / 1e3, 2),
            "insert_us": round(statistics.median(insert) / 1e3, 2)}


def make_detok(tokenizer):
    from sglang.srt.managers.detokenizer_manager import DetokenizerManager

    d = object.__new__(DetokenizerManager)
    from sglang.srt.managers.detokenizer_manager import LimitedCapacityDict

    d.__dict__.update(tokenizer=tokenizer, decode_status=LimitedCapacityDict(capacity=1 << 16),
                      disable_tokenizer_batch_decode=False, is_dummy=False, is_tool_call_parser_gpt_oss=False)
    return d


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, nargs="+", default=[1, 16, 64, 128, 256])
    ap.add_argument("--out", default="-")
    a = ap.parse_args()
    tokenizer, detok = None, None
    if os.environ.get("QWEN_TIKTOKEN"):
        from transformers import AutoTokenizer

        import vllm_api_server_request as vreq

        tokenizer = AutoTokenizer.from_pretrained(vreq.build_model_dir(os.environ["QWEN_TIKTOKEN"]))
        tokenizer.additional_stop_token_ids = None  # what get_tokenizer attaches without an <|eom_id|> token
        detok = make_detok(tokenizer)
    results = []
    for n in a.n:
        results.append(time_n(n, tokenizer, detok))
        print(json.dumps(results[-1]), file=sys.stderr)
    import importlib.metadata as md

    lo, hi = results[0], results[-1]
    slope = {k: round((hi["median_per_step"][k] - lo["median_per_step"][k]) / (hi["running_requests"] -
                                                                                lo["running_requests"]), 3)
             for k in hi["median_per_step"]}
    doc = {
        "script": "scripts/measure/sglang_scheduler_host.py",
        "what": "thread CPU time per decode step of SGLang 0.5.6's scheduler code with N running requests and no "
                "model: get_next_batch_to_run, get_model_worker_batch + the queued batch.copy(), "
                "process_batch_result_decode (with stream_output and the pickling of its BatchTokenIDOutput), and the "
                "DetokenizerManager's handle_batch_token_id_out; medians over the timed steps, in microseconds",
        "not_timed": "the forward's host work (ForwardBatch.init_new, CUDA graph replay_prepare, the sampler: GPU), "
                     "the ZMQ sockets, recv_requests polling, the TP broadcast of received requests",
        "versions": {p: md.version(p) for p in ("sglang", "torch", "transformers")},
        "python": platform.python_version(),
        "cpu": platform.processor() or platform.machine(),
        "logical_cpus": os.cpu_count(),
        "load_average_1m": round(os.getloadavg()[0], 2),
        "steps": STEPS,
        "warmup_steps": WARMUP,
        "results": results,
        "slope_us_per_request": slope,
        "radix_cache_per_request": time_radix(),
    }
    text = json.dumps(doc, indent=2) + "\n"
    if a.out == "-":
        print(text)
    else:
        with open(a.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
