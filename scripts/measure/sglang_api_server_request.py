#!/usr/bin/env python3
"""CPU time of SGLang 0.5.5.post1's API server per chat request, as `vllm bench serve --backend openai-chat` sends it.

What it runs, calling the classes of the sglang 0.5.5.post1 wheel in one process and one uvloop event loop (SGLang's
http_server.py sets uvloop's policy), requests in series:
  parse        json.loads of the body and ChatCompletionRequest.model_validate (what FastAPI does for the route).
  render       OpenAIServingChat._process_messages (sglang/srt/entrypoints/openai/serving_chat.py): the Jinja chat
               template through the Hugging Face tokenizer's apply_chat_template(tokenize=True), which renders the
               cached compiled template and tokenizes the prompt in one call.
  convert      the rest of _convert_to_internal_request: to_sampling_params and the GenerateReqInput.
  tokenize     TokenizerManager._tokenize_one_request (sglang/srt/managers/tokenizer_manager.py): the prompt comes as
               input_ids, so validation and the TokenizedGenerateReqInput with its SamplingParams.
  send         TokenizerManager._send_one_request: pickling the request for the scheduler (send_pyobj) and its ReqState.
  output       TokenizerManager._handle_batch_output for each BatchStrOutput (one a token) the detokenizer sends, after
               unpickling them (handle_loop's recv_pyobj).
  stream       the rest: handle_request, generate_request's own work, _wait_one_response and
               _generate_chat_stream rendering every SSE chunk (role chunk, a chunk a token, the finish chunk, the
               usage chunk with include_usage, [DONE]).
Requests ask for 4 output tokens (the client's) and, to separate a token's cost from a request's, for 64.
The scheduler and the detokenizer are a fake (FakeScheduler): each request's tokens come back at once as one
BatchStrOutput a token, already detokenized, the request's consumer running between them (one SSE chunk a token).
The fake's own work (building and pickling those outputs: the detokenizer process's side) is not counted. SGLang's
DetokenizerManager runs in a process of its own and is not timed.
Not timed: uvicorn/HTTP and the FastAPI middleware, the ZMQ sockets' own work, the client.

Request, prompts, model and tokenizer: those of vllm_api_server_request.py (imported from it): the body of vLLM's
`vllm bench serve --backend openai-chat` at v0.11.0 (the client of the SGLang rows), RandomDataset seed 42, input_len
128, output_len 4 (and 64); Qwen3-14B's config.json; the Qwen tokenizer rebuilt from qwen.tiktoken with Qwen3-14B's
template.

Times: process CPU time (time.process_time) per request, median and mean over the timed requests after WARMUP
untimed ones.

Setup: a venv with `pip install --no-deps sglang==0.5.5.post1` plus orjson, uvloop and IPython, over the packages of
vllm_api_server_request.py's venv (vllm 0.11.0, torch 2.8.0, transformers 4.57.1; vllm supplies the client's
RandomDataset). sgl_kernel (CUDA kernels) is not installed: a stub module stands in for it, as nothing on this path
calls it.
Usage: QWEN_TIKTOKEN=<path to qwen.tiktoken> python sglang_api_server_request.py --n 200 500 1000 --tokens 4 64 \
    --out out.json
"""

import argparse
import asyncio
import dataclasses
import importlib.abc
import importlib.machinery
import json
import os
import pickle
import platform
import statistics
import sys
import tempfile
import time
import types

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vllm_api_server_request as vreq  # noqa: E402  (model folder, request bodies, Clock, cpu_info)

WARMUP = 50


class _Any:
    """Stands in for any sgl_kernel object: attributes and calls give another stand-in."""

    def __init__(self, *a, **k):
        pass

    def __getattr__(self, k):
        if k.startswith("__"):
            raise AttributeError(k)
        return _Any()

    def __call__(self, *a, **k):
        return _Any()


class _StubModule(types.ModuleType):
    def __getattr__(self, k):
        if k.startswith("__"):
            raise AttributeError(k)
        return _Any()


class _StubFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports of sgl_kernel (CUDA-only ops, imported by model-config modules at load time) get a stub."""

    def find_spec(self, name, path, target=None):
        if name.split(".")[0] == "sgl_kernel":
            return importlib.machinery.ModuleSpec(name, self, is_package=True)
        return None

    def create_module(self, spec):
        m = _StubModule(spec.name)
        m.__path__ = []
        return m

    def exec_module(self, module):
        pass


sys.meta_path.insert(0, _StubFinder())


class FakeScheduler:
    """The scheduler + detokenizer: a sent request's tokens come back at once, one BatchStrOutput a token."""

    def __init__(self, tm, tokenizer, clock):
        self.tm, self.tokenizer, self.clock = tm, tokenizer, clock

    def send_pyobj(self, obj):
        t0 = time.process_time()
        pickle.dumps(obj)  # what zmq's send_pyobj does in the tokenizer process
        self.clock.add("pickle_out", time.process_time() - t0)
        asyncio.get_event_loop().create_task(self.reply(obj))

    def batch_out(self, obj, i):
        from sglang.srt.managers.io_struct import BatchStrOutput

        last = i == obj.sampling_params.max_new_tokens - 1
        n = obj.sampling_params.max_new_tokens
        tid = 1000 + 17 * i
        vals = {"rids": [obj.rid], "finished_reasons": [{"type": "length", "length": n} if last else None],
                "output_strs": [self.tokenizer.decode([tid])], "output_ids": [[tid]],
                "prompt_tokens": [len(obj.input_ids)], "completion_tokens": [i + 1], "cached_tokens": [0],
                "retraction_counts": [0]}
        kw = {}
        for f in dataclasses.fields(BatchStrOutput):
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                kw[f.name] = vals.get(f.name, [None] if f.name in ("queue_time", "prefill_delay",
                                                                   "prefill_latency", "forward_entry_time")
                                      else [])
            elif f.name in vals:
                kw[f.name] = vals[f.name]
        return BatchStrOutput(**kw)

    async def reply(self, obj):
        for i in range(obj.sampling_params.max_new_tokens):
            for _ in range(4):  # a step's gap: the consumer drains each token (one SSE chunk a token)
                await asyncio.sleep(0)
            t0 = time.process_time()
            blob = pickle.dumps(self.batch_out(obj, i))
            t1 = time.process_time()
            self.clock.add("fake", t1 - t0)
            self.tm._result_dispatcher(pickle.loads(blob))  # handle_loop: recv_pyobj, then dispatch
            self.clock.add("output", time.process_time() - t1)


def make_server(model_dir, clock):
    from sglang.srt.entrypoints.openai.serving_chat import OpenAIServingChat
    from sglang.srt.managers.template_manager import TemplateManager
    from sglang.srt.managers.tokenizer_manager import TokenizerManager
    from sglang.srt.server_args import PortArgs, ServerArgs

    args = ServerArgs(model_path=model_dir, tokenizer_path=model_dir, served_model_name="Qwen/Qwen3-14B",
                      device="cpu", context_length=40960, skip_server_warmup=True)
    tm = TokenizerManager(args, PortArgs.init_new(args))
    tm.max_req_input_len = 40960
    templates = TemplateManager()
    templates.initialize_templates(tokenizer_manager=tm, model_path=model_dir)
    tm.send_to_scheduler = FakeScheduler(tm, tm.tokenizer, clock)
    chat = OpenAIServingChat(tm, templates)
    chat._process_messages = clock.wrap("render", chat._process_messages)
    chat._convert_to_internal_request = clock.wrap("convert", chat._convert_to_internal_request)
    tm._tokenize_one_request = clock.wrap_async("tokenize", tm._tokenize_one_request)
    tm._send_one_request = clock.wrap("send", tm._send_one_request)
    return chat, tm


async def one(chat, clock, body):
    from sglang.srt.entrypoints.openai.protocol import ChatCompletionRequest

    t0 = time.process_time()
    req = ChatCompletionRequest.model_validate(json.loads(body))
    clock.add("parse", time.process_time() - t0)
    resp = await chat.handle_request(req, None)
    chunks = 0
    async for _ in resp.body_iterator:
        chunks += 1
    total = time.process_time() - t0 - clock.t.get("fake", 0.0)
    # role chunk, a chunk a token, finish chunk, usage chunk, [DONE]
    assert chunks == req.max_completion_tokens + 4, chunks
    return total, chunks


async def run(chat, clock, tokenizer, n, out_tokens):
    vreq.OUT_TOKENS = out_tokens  # vreq.bodies asks for this many output tokens
    reqs = vreq.bodies(tokenizer, n + WARMUP)
    rows = []
    for i, body in enumerate(reqs):
        clock.t = {}
        total, chunks = await one(chat, clock, body)
        if i >= WARMUP:
            parts = {k: v for k, v in clock.t.items() if k != "fake"}
            parts["total"] = total
            parts["chunks"] = chunks
            rows.append(parts)
    return rows


PARTS = ["parse", "render", "convert", "tokenize", "send", "output", "stream", "total"]


def summarize(rows):
    for r in rows:
        # convert's time includes render's; send's includes pickle_out's.
        r["convert"] = r.get("convert", 0) - r.get("render", 0)
        r["stream"] = r["total"] - sum(r.get(k, 0) for k in PARTS[:6])
    med = {k + "_ms": round(1e3 * statistics.median(r.get(k, 0.0) for r in rows), 3) for k in PARTS}
    mean = {k + "_ms": round(1e3 * statistics.fmean(r.get(k, 0.0) for r in rows), 3) for k in PARTS}
    return med, mean, rows[0]["chunks"]


def per_token(results, tokens):
    """A streamed token's cost: the slope of the median total between the fewest and most output tokens, by run size;
    a request's: the fewest tokens' median total less that many tokens at the slope."""
    lo, hi = min(tokens), max(tokens)
    out = []
    for r in results:
        if r["output_tokens"] != lo:
            continue
        top = next((x for x in results if x["output_tokens"] == hi and x["requests"] == r["requests"]), None)
        if top is None or hi == lo:
            continue
        slope = (top["median"]["total_ms"] - r["median"]["total_ms"]) / (hi - lo)
        out.append({"requests": r["requests"], "token_ms": round(slope, 4),
                    "request_ms": round(r["median"]["total_ms"] - lo * slope, 3)})
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, nargs="+", default=[200, 1000])
    ap.add_argument("--tokens", type=int, nargs="+", default=[4, 64], help="output tokens a request")
    ap.add_argument("--out", default="-")
    args = ap.parse_args()
    import uvloop

    tiktoken_path = os.environ["QWEN_TIKTOKEN"]
    model_dir = vreq.build_model_dir(tiktoken_path)
    clock = vreq.Clock()
    results = []

    async def all_runs():  # one event loop: the TokenizerManager binds its handle loop to it
        chat, tm = make_server(model_dir, clock)
        for k in args.tokens:
            for n in args.n:
                rows = await run(chat, clock, tm.tokenizer, n, k)
                med, mean, chunks = summarize(rows)
                results.append({"output_tokens": k, "requests": n, "sse_items_per_request": chunks, "median": med,
                                "mean": mean})
            print(json.dumps(results[-1]), file=sys.stderr)

    uvloop.run(all_runs())
    import hashlib
    import importlib.metadata as md

    with open(tiktoken_path, "rb") as f:
        sha = hashlib.sha256(f.read()).hexdigest()
    versions = {p: md.version(p) for p in ("sglang", "transformers", "tokenizers", "pydantic", "pydantic_core",
                                           "jinja2", "fastapi", "orjson", "uvloop", "pyzmq", "vllm")}
    doc = {
        "script": "scripts/measure/sglang_api_server_request.py",
        "what": "process CPU time per chat request of SGLang 0.5.5.post1's API-server code path (ChatCompletionRequest "
                "validation, OpenAIServingChat.handle_request with stream=True, TokenizerManager.generate_request, "
                "its output handling and every SSE chunk) against a fake scheduler + detokenizer returning 4 (or 64) "
                "tokens at once, requests in series; median and mean over the timed requests, in ms",
        "parts": {"parse": "json.loads + ChatCompletionRequest.model_validate",
                  "render": "OpenAIServingChat._process_messages: apply_chat_template(tokenize=True), the "
                            "template's render and the prompt's tokenization",
                  "convert": "the rest of _convert_to_internal_request: sampling params, GenerateReqInput",
                  "tokenize": "TokenizerManager._tokenize_one_request (input_ids given: validation and the "
                              "TokenizedGenerateReqInput)",
                  "send": "TokenizerManager._send_one_request with the pickling of send_pyobj",
                  "output": "unpickling and TokenizerManager._handle_batch_output of the BatchStrOutput, one a token",
                  "stream": "the rest: handle_request, generate_request, _wait_one_response and every SSE chunk of "
                            "_generate_chat_stream"},
        "not_timed": "uvicorn/HTTP and FastAPI middleware, the ZMQ sockets, the scheduler, the DetokenizerManager "
                     "process, the client",
        "request": "vllm bench serve --backend openai-chat --dataset-name random at v0.11.0: one user message with "
                   "content [{type: text, text: prompt}], temperature 0.0, max_completion_tokens 4, stream true, "
                   "stream_options.include_usage; RandomDataset seed 42, input_len 128, range_ratio 0",
        "tokenizer": "rebuilt from qwen.tiktoken of the dashscope 2.0.2 wheel (sha256 " + sha + ") with Qwen2's "
                     "split pattern, NFC and Qwen3's added tokens at 151643-151668; Qwen3-14B's chat template; "
                     "Hugging Face was not reachable",
        "stubbed": "sgl_kernel (CUDA ops; not installed, a stub module stands in: nothing on this path calls it)",
        "model_config": "calibration/configs/Qwen__Qwen3-14B.json",
        "versions": versions,
        "python": platform.python_version(),
        "cpu": vreq.cpu_info(),
        "logical_cpus": os.cpu_count(),
        "load_average_1m": round(os.getloadavg()[0], 2),
        "warmup_requests": WARMUP,
        "results": results,
    }
    doc["per_token"] = per_token(results, args.tokens)
    text = json.dumps(doc, indent=2) + "\n"
    vreq.write_output(text, args.out)


if __name__ == "__main__":
    main()
