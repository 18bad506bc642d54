#!/usr/bin/env python3
"""CPU time of vLLM's API server per streamed token, on the plain chat and completions paths, at 1 to K streams.

What it runs: the serving path of vllm_api_server_request.py (imported from it: the model folder, the tokenizer rebuilt
from qwen.tiktoken, the AsyncLLM with its real output handler, Processor and OutputProcessor with the incremental
detokenizer), for two endpoints:
  chat         OpenAIServingChat.create_chat_completion, the body of `vllm bench serve --backend openai-chat`
               (RandomDataset seed 42, 128 tokens in): chat_completion_stream_generator, one chunk a token.
  completions  OpenAIServingCompletion.create_completion, the body of `vllm bench serve --backend vllm`
               (`async_request_openai_completions`: prompt, temperature 0.0, repetition_penalty 1.0, max_tokens,
               logprobs None, stream, include_usage; 512 tokens in): completion_stream_generator, one chunk a token.
The engine core is a fake that steps: each get_output_async returns one EngineCoreOutputs holding the next token of
every request in flight (one decode step of the whole batch), after yielding to the loop so that the requests'
consumers drain the step before the next. K requests are sent at once (asyncio.gather of K consumers, the API
server's one event loop serving them all), with `tokens` output tokens each; a request's CPU is the wave's process
CPU time (time.process_time: every thread) over K, median over the waves after a warm-up wave. At two lengths the
per-token slope and the per-request rest separate: cpu = request + tokens x token. A consumer that falls behind gets
its tokens merged into one chunk (RequestOutputCollector, DELTA outputs): the chunks a request streamed are recorded.
Not timed: uvicorn/HTTP (the SSE write of each chunk) and the FastAPI middleware, the msgpack/ZMQ hop, the client.

Setup: the venv of vllm_api_server_request.py (vllm 0.11.0, torch 2.8.0, transformers 4.57.1) and its qwen.tiktoken.
Usage: QWEN_TIKTOKEN=<path> python vllm_api_server_token.py --tokens 4 64 128 --streams 1 64 256 --out out.json
"""

import argparse
import asyncio
import json
import os
import platform
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vllm_api_server_request as vreq  # noqa: E402  (model folder, server, chat bodies, Clock, cpu_info)


class StepEngineCore:
    """EngineCore stand-in that decodes every request in flight one token a step."""

    def __init__(self, yields=4):
        self.yields = yields
        self.resources = type("Resources", (), {"engine_dead": False})()
        self.running = {}  # request id -> [next token index, max tokens]
        self.ready = asyncio.Event()

    async def add_request_async(self, request):
        self.running[request.request_id] = [0, request.sampling_params.max_tokens]
        self.ready.set()

    async def abort_requests_async(self, ids):
        for i in ids:
            self.running.pop(i, None)

    def shutdown(self):
        pass

    async def get_output_async(self):
        from vllm.v1.engine import EngineCoreOutput, EngineCoreOutputs, FinishReason

        while not self.running:
            self.ready.clear()
            await self.ready.wait()
        # A step's gap: the consumers of the last step render and stream their chunks before the next. With no
        # yield (--yields 0) the output handler runs step after step as from a queue that holds them, and the
        # consumers get merged outputs (a server that has fallen behind its engine).
        for _ in range(self.yields):
            await asyncio.sleep(0)
        outs = []
        for rid, s in list(self.running.items()):
            i, n = s
            last = i + 1 >= n
            outs.append(EngineCoreOutput(request_id=rid, new_token_ids=[1000 + 17 * i],
                                         finish_reason=FinishReason.LENGTH if last else None))
            if last:
                del self.running[rid]
            else:
                s[0] = i + 1
        return EngineCoreOutputs(outputs=outs, timestamp=time.monotonic())


def completion_bodies(tokenizer, n, tokens):
    """The bodies `vllm bench serve --backend vllm --dataset-name random` sends at v0.11.0 (512 tokens in)."""
    from vllm.benchmarks.datasets import RandomDataset

    reqs = RandomDataset(random_seed=42).sample(tokenizer=tokenizer, num_requests=n, prefix_len=0, range_ratio=0.0,
                                                input_len=512, output_len=tokens)
    return [json.dumps({"model": "Qwen/Qwen3-14B", "prompt": r.prompt, "temperature": 0.0,
                        "repetition_penalty": 1.0, "max_tokens": tokens, "logprobs": None, "stream": True,
                        "stream_options": {"include_usage": True}}).encode() for r in reqs]


def chat_bodies(tokenizer, n, tokens):
    saved = vreq.OUT_TOKENS
    vreq.OUT_TOKENS = tokens
    try:
        return vreq.bodies(tokenizer, n)
    finally:
        vreq.OUT_TOKENS = saved


async def one(server, endpoint, body):
    from vllm.entrypoints.openai.protocol import ChatCompletionRequest, CompletionRequest

    if endpoint == "chat":
        gen = await server.create_chat_completion(ChatCompletionRequest.model_validate(json.loads(body)), None)
    else:
        gen = await server.create_completion(CompletionRequest.model_validate(json.loads(body)), None)
    assert not hasattr(gen, "model_dump"), gen  # an ErrorResponse
    items = 0
    async for _ in gen:
        items += 1
    return items


async def waves(server, endpoint, bodies, k):
    """CPU seconds per request of each wave of k requests sent at once, and SSE items per request."""
    per_req, items = [], []
    for w in range(0, len(bodies) - k + 1, k):
        t0 = time.process_time()
        got = await asyncio.gather(*[one(server, endpoint, b) for b in bodies[w:w + k]])
        per_req.append((time.process_time() - t0) / k)
        items.extend(got)
    return per_req, items


def make_servers(model_dir, yields):
    from vllm.entrypoints.openai.serving_completion import OpenAIServingCompletion

    clock = vreq.Clock()
    chat, tokenizer = vreq.make_server(model_dir, clock)
    chat.engine_client.engine_core = StepEngineCore(yields)
    comp = OpenAIServingCompletion(chat.engine_client, chat.model_config, chat.models, request_logger=None)
    return {"chat": chat, "completions": comp}, tokenizer


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tokens", type=int, nargs="+", default=[4, 64, 128])
    ap.add_argument("--streams", type=int, nargs="+", default=[1, 64, 256])
    ap.add_argument("--requests", type=int, default=512, help="timed requests per (endpoint, tokens, streams)")
    ap.add_argument("--endpoints", nargs="+", default=["completions", "chat"])
    ap.add_argument("--yields", type=int, default=4, help="event-loop yields between engine steps (0: merged)")
    ap.add_argument("--out", default="-")
    args = ap.parse_args()
    model_dir = vreq.build_model_dir(os.environ["QWEN_TIKTOKEN"])
    servers, tokenizer = make_servers(model_dir, args.yields)
    rows = []

    async def all_runs():  # one event loop: AsyncLLM's output handler task lives in it
        for ep in args.endpoints:
            make = completion_bodies if ep == "completions" else chat_bodies
            for t in args.tokens:
                for k in args.streams:
                    n = max(k, args.requests // k * k)
                    bodies = make(tokenizer, n + k, t)
                    await waves(servers[ep], ep, bodies[:k], k)  # warm-up wave, not timed
                    per_req, items = await waves(servers[ep], ep, bodies[k:], k)
                    row = {"endpoint": ep, "tokens": t, "streams": k, "waves": len(per_req),
                           "cpu_us_per_request_median": round(1e6 * statistics.median(per_req), 1),
                           "cpu_us_per_request_mean": round(1e6 * statistics.fmean(per_req), 1),
                           "sse_items_per_request": round(statistics.fmean(items), 2)}
                    rows.append(row)
                    print(json.dumps(row), file=sys.stderr)

    asyncio.run(all_runs())
    slopes = []
    lo, hi = min(args.tokens), max(args.tokens)
    for ep in args.endpoints:
        for k in args.streams:
            sel = {r["tokens"]: r for r in rows if r["endpoint"] == ep and r["streams"] == k}
            token = (sel[hi]["cpu_us_per_request_median"] - sel[lo]["cpu_us_per_request_median"]) / (hi - lo)
            slopes.append({"endpoint": ep, "streams": k, "token_us": round(token, 2),
                           "request_us": round(sel[lo]["cpu_us_per_request_median"] - lo * token, 1)})
    import importlib.metadata as md

    versions = {p: md.version(p) for p in ("vllm", "torch", "transformers", "tokenizers", "pydantic", "pydantic_core")}
    doc = {
        "script": "scripts/measure/vllm_api_server_token.py",
        "what": "process CPU time per request of vLLM's API-server path (chat and completions, streamed with usage) "
                "against a fake engine core stepping every request in flight one token a step, K requests at once "
                "in one event loop; the per-token slope between the shortest and longest output",
        "not_timed": "uvicorn/HTTP and the FastAPI middleware, the msgpack/ZMQ hop to EngineCore and back, the client",
        "versions": versions,
        "python": platform.python_version(),
        "cpu": vreq.cpu_info(),
        "logical_cpus": os.cpu_count(),
        "load_average_1m": round(os.getloadavg()[0], 2),
        "yields_between_steps": args.yields,
        "rows": rows,
        "slopes": slopes,
    }
    vreq.write_output(json.dumps(doc, indent=2) + "\n", args.out)


if __name__ == "__main__":
    main()
