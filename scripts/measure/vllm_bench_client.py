#!/usr/bin/env python3
"""CPU time of `vllm bench serve`'s client per request and per streamed chunk in a burst (all requests sent at once).

What it times: the request functions of a vLLM wheel, imported unchanged from the unpacked wheel
(`vllm/benchmarks/lib/endpoint_request_func.py`: `async_request_openai_completions` for `--backend vllm`,
`async_request_openai_chat_completions` for `--backend openai-chat`), driven as `vllm/benchmarks/serve.py`'s
`benchmark()` drives them at `--request-rate inf` with no `--max-concurrency`: one `aiohttp.ClientSession` on a
`TCPConnector(limit=0, ...)` with serve.py's arguments, one `asyncio.create_task` per request, all created before the
first is awaited, then `asyncio.gather`, on the default asyncio loop (`asyncio.run`), with a tqdm bar updated per
request. The streams come from a stand-in server (a child process started here, its CPU not counted) that writes
vLLM-shaped SSE events over HTTP/1.1 chunked transfer, one HTTP chunk an event as uvicorn writes each `yield` of the
API server's generator: completions chunks as v0.11.0's `CompletionStreamResponse.model_dump_json(exclude_unset=False)`
gives them, chat chunks as `ChatCompletionStreamResponse.model_dump_json(exclude_unset=True)`, then the usage chunk and
`data: [DONE]`. Every tick the server writes one event to every stream in flight (a GPU decoding the whole batch one
token a step); `--step-s 0` ticks as fast as its loop turns. Where the client falls behind, the events of a stream
merge in its socket and one read carries several, as from a real server.

The figure: this process's CPU time (time.process_time, every thread, aiohttp's C parser included) from the first
task's creation to the gather's return (serve.py's `benchmark_duration` span), over N requests of `tokens` streamed
tokens each. With two lengths the per-request and per-chunk parts separate: cpu = N x (request + tokens x chunk).
Not timed: the dataset's sampling and tokenization, the warm-up request, `calculate_metrics` (after the span).

Setup (CPU only; the wheel is unpacked, not installed, since the request functions import only the standard library,
aiohttp, tqdm and, from 0.19, regex):
  pip download --no-deps vllm==0.11.0 -d /tmp/w && (cd /tmp/w && unzip -q vllm-0.11.0-*.whl 'vllm/benchmarks/*')
  python3 -m venv /tmp/cli011 && /tmp/cli011/bin/pip install aiohttp==3.12.15 tqdm regex
  /tmp/cli011/bin/python scripts/measure/vllm_bench_client.py --wheel-dir /tmp/w --wheel-version 0.11.0 \
    --endpoint completions --streams 1 64 500 --tokens 4 128 --repeats 3 --step-s 0.005 --out out.json
"""

import argparse
import asyncio
import importlib.util
import json
import os
import platform
import socket
import statistics
import subprocess
import sys
import time
from importlib.metadata import version

HEX = "0123456789abcdef0123456789abcdef"
COMPLETION = {  # vllm/entrypoints/openai/protocol.py CompletionStreamResponse, v0.11.0, exclude_unset=False
    "id": "cmpl-" + HEX,
    "object": "text_completion",
    "created": 1760000000,
    "model": "Qwen/Qwen3-0.6B",
    "choices": [
        {
            "index": 0,
            "text": " the",
            "logprobs": None,
            "finish_reason": None,
            "stop_reason": None,
            "prompt_token_ids": None,
            "token_ids": None,
        }
    ],
    "usage": None,
}
CHAT = {  # ChatCompletionStreamResponse, v0.11.0, exclude_unset=True
    "id": "chatcmpl-" + HEX,
    "object": "chat.completion.chunk",
    "created": 1760000000,
    "model": "Qwen/Qwen3-14B",
    "choices": [{"index": 0, "delta": {"content": " the"}, "logprobs": None, "finish_reason": None}],
}


def frame(d: dict) -> bytes:
    body = ("data: " + json.dumps(d, separators=(",", ":")) + "\n\n").encode()
    return b"%x\r\n%s\r\n" % (len(body), body)


def events(endpoint: str, tokens: int) -> list[bytes]:
    """The HTTP chunks of one stream: `tokens` token chunks, the usage chunk, [DONE] and the chunked terminator."""
    base = COMPLETION if endpoint == "completions" else CHAT
    out = []
    if endpoint == "chat":  # the chat stream's first chunk carries the role (serving_chat.py, first_iteration)
        d = json.loads(json.dumps(base))
        d["choices"][0]["delta"] = {"role": "assistant", "content": ""}
        out.append(frame(d))
    for i in range(tokens):
        d = json.loads(json.dumps(base))
        if i == tokens - 1:
            d["choices"][0]["finish_reason"] = "length"
        out.append(frame(d))
    usage = {k: v for k, v in base.items() if k != "choices"}
    usage["choices"] = []
    usage["usage"] = {"prompt_tokens": 512, "total_tokens": 512 + tokens, "completion_tokens": tokens}
    out.append(frame(usage))
    done = b"data: [DONE]\n\n"
    out.append(b"%x\r\n%s\r\n0\r\n\r\n" % (len(done), done))
    return out


async def serve(port: int, endpoint: str, tokens: int, step: float) -> None:
    evs = events(endpoint, tokens)
    head = (
        b"HTTP/1.1 200 OK\r\ndate: Thu, 01 Jan 2026 00:00:00 GMT\r\nserver: uvicorn\r\n"
        b"content-type: text/event-stream; charset=utf-8\r\ntransfer-encoding: chunked\r\n\r\n"
    )
    live: list[list] = []  # [writer, next event index]
    wake = asyncio.Event()

    async def handle(reader, writer):
        try:
            while True:
                req = await reader.readuntil(b"\r\n\r\n")
                n = 0
                for line in req.split(b"\r\n"):
                    if line.lower().startswith(b"content-length:"):
                        n = int(line.split(b":")[1])
                await reader.readexactly(n)
                writer.write(head)
                s = [writer, 0, asyncio.Event()]
                live.append(s)
                wake.set()
                await s[2].wait()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass

    async def ticker():
        t = time.perf_counter()
        while True:
            if not live:
                wake.clear()
                await wake.wait()
                t = time.perf_counter()
            for s in list(live):
                w, i = s[0], s[1]
                # The token chunks one a tick; the last token's tick also sends the usage chunk and [DONE].
                w.write(b"".join(evs[i:]) if i == len(evs) - 3 else evs[i])
                s[1] = len(evs) if i == len(evs) - 3 else i + 1
                if s[1] == len(evs):
                    live.remove(s)
                    s[2].set()
            t += step
            delay = t - time.perf_counter()
            await asyncio.sleep(max(0.0, delay))

    asyncio.get_running_loop().create_task(ticker())
    srv = await asyncio.start_server(handle, "127.0.0.1", port, backlog=4096)
    async with srv:
        await srv.serve_forever()


READS = [0]


def load_request_funcs(wheel_dir: str):
    path = os.path.join(wheel_dir, "vllm", "benchmarks", "lib", "endpoint_request_func.py")
    spec = importlib.util.spec_from_file_location("endpoint_request_func", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    # Count the reads that reach the SSE handler (one a non-empty `iter_any()` chunk): a wrapper of one call, the
    # handler's own code unchanged.
    add_chunk = mod.StreamedResponseHandler.add_chunk

    def counted(self, chunk_bytes):
        READS[0] += 1
        return add_chunk(self, chunk_bytes)

    mod.StreamedResponseHandler.add_chunk = counted
    return mod


async def run_burst(mod, port: int, endpoint: str, streams: int, tokens: int, prompt: str) -> dict:
    import aiohttp
    from tqdm.asyncio import tqdm

    # vllm/benchmarks/serve.py benchmark(): the connector and session it builds, max_concurrency None.
    connector = aiohttp.TCPConnector(
        limit=0,
        limit_per_host=0,
        ttl_dns_cache=300,
        use_dns_cache=True,
        keepalive_timeout=60,
        enable_cleanup_closed=True,
        force_close=False,
        ssl=False,
    )
    session = aiohttp.ClientSession(
        connector=connector, trust_env=True, timeout=aiohttp.ClientTimeout(total=6 * 60 * 60)
    )
    if endpoint == "completions":
        func, url = mod.async_request_openai_completions, f"http://127.0.0.1:{port}/v1/completions"
    else:
        func, url = mod.async_request_openai_chat_completions, f"http://127.0.0.1:{port}/v1/chat/completions"

    def inp():
        return mod.RequestFuncInput(
            prompt=prompt, api_url=url, prompt_len=512, output_len=tokens, model="Qwen/Qwen3-0.6B"
        )

    warm = await func(request_func_input=inp(), session=session)  # serve.py's initial test run, not timed
    assert warm.success, warm.error
    devnull = open(os.devnull, "w")
    pbar = tqdm(total=streams, file=devnull)
    READS[0] = 0
    cpu0, t0 = time.process_time(), time.perf_counter()
    tasks = [asyncio.create_task(func(request_func_input=inp(), session=session, pbar=pbar)) for _ in range(streams)]
    outs = await asyncio.gather(*tasks)
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - t0
    pbar.close()
    await session.close()
    ok = [o for o in outs if o.success]
    assert len(ok) == streams, [o.error for o in outs if not o.success][:1]
    chunks = sum(1 + len(o.itl) for o in ok)
    return {
        "streams": streams,
        "tokens": tokens,
        "chunks": chunks,
        "reads": READS[0],
        "cpu_s": round(cpu, 4),
        "wall_s": round(wall, 4),
        "cpu_us_per_request": round(cpu / streams * 1e6, 1),
        "cpu_us_per_chunk": round(cpu / chunks * 1e6, 2),
        "util": round(cpu / wall, 3),
    }


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def measure(args, mod, endpoint: str, streams: int, tokens: int) -> dict:
    port = free_port()
    srv = subprocess.Popen(
        [sys.executable, __file__, "--serve", str(port), endpoint, str(tokens), str(args.step_s)]
    )
    try:
        for _ in range(200):  # wait until the server listens
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.05)
        prompt = " ".join(["word"] * 512)  # RandomDataset's 512-token prompt, decoded to text
        return asyncio.run(run_burst(mod, port, endpoint, streams, tokens, prompt))
    finally:
        srv.terminate()
        srv.wait()


def split(rows: list[dict], streams: int, lo: int, hi: int) -> dict:
    """Per-request and per-chunk CPU from the medians at two lengths: cpu/N = request + chunks/N x chunk."""
    def med(t):
        sel = [r for r in rows if r["streams"] == streams and r["tokens"] == t]
        return statistics.median(r["cpu_s"] / streams for r in sel), statistics.median(r["chunks"] / streams for r in sel)

    (c_lo, k_lo), (c_hi, k_hi) = med(lo), med(hi)
    chunk = (c_hi - c_lo) / (k_hi - k_lo)
    return {
        "streams": streams,
        "chunk_us": round(chunk * 1e6, 2),
        "request_us": round((c_lo - k_lo * chunk) * 1e6, 1),
    }


def main() -> None:
    if len(sys.argv) == 6 and sys.argv[1] == "--serve":
        asyncio.run(serve(int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), float(sys.argv[5])))
        return
    ap = argparse.ArgumentParser()
    ap.add_argument("--wheel-dir", required=True)
    ap.add_argument("--wheel-version", required=True)
    ap.add_argument("--endpoint", default="completions", choices=["completions", "chat"])
    ap.add_argument("--streams", type=int, nargs="+", default=[1, 64, 500])
    ap.add_argument("--tokens", type=int, nargs=2, default=[4, 128])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--step-s", type=float, default=0.0)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    mod = load_request_funcs(args.wheel_dir)
    rows = []
    for rep in range(args.repeats):  # interleaved repeats: the machine is shared
        for n in args.streams:
            for t in args.tokens:
                r = measure(args, mod, args.endpoint, n, t)
                r["repeat"] = rep
                rows.append(r)
                print(json.dumps(r), file=sys.stderr)
    with open("/proc/cpuinfo") as f:
        cpu = next((l.split(":", 1)[1].strip() for l in f if l.startswith("model name")), "unknown")
    lo, hi = args.tokens
    out = {
        "script": "scripts/measure/vllm_bench_client.py",
        "what": "vllm bench serve's request function (unchanged, from the wheel) in a burst of N streams against a stand-in server; this process's CPU time over the burst",
        "wheel": args.wheel_version,
        "endpoint": args.endpoint,
        "python": platform.python_version(),
        "versions": {p: version(p) for p in ("aiohttp", "multidict", "yarl", "tqdm")},
        "cpu": cpu,
        "logical_cpus": os.cpu_count(),
        "load_average_1m": round(os.getloadavg()[0], 2),
        "step_s": args.step_s,
        "rows": rows,
        "split": [split(rows, n, lo, hi) for n in args.streams],
    }
    with open(args.out, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
