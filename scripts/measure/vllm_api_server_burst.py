#!/usr/bin/env python3
"""A burst through vLLM's whole API server (uvicorn, FastAPI, the OpenAI routes) with a paced fake engine core.

What it runs: a child process serves `vllm serve`'s own app (vllm/entrypoints/openai/api_server.py: `run_server` under
uvloop, `build_app`, `init_app_state`, uvicorn with its access log as `vllm serve` leaves it), in which the engine
client is the AsyncLLM of vllm_api_server_request.py (its Processor, OutputProcessor with the incremental detokenizer
and output handler) over a fake engine core that stands for a GPU stepping at `--step-s`: every step gives each request
in flight its next token, and where the server's loop comes back late the steps it missed arrive together (several
tokens a request in one output, as queued EngineCoreOutputs would be merged by the collector). This process is the
client: `vllm bench serve`'s request function from the wheel, unchanged, all requests sent at once
(vllm_bench_client.py). Recorded: the burst's wall time, the server process's CPU time over it (every thread, from
/proc), the client's, and the mean and last TTFT the client saw.

What it answers: how long a burst of N requests takes when the GPU is no limit (step_s small) on this machine's cores,
and how the server's one event loop splits between admitting requests and streaming the earlier ones' tokens.
Not in it: the ZMQ/msgpack hop to EngineCore (the fake is in-process), the GPU's prefill.
With `--engine-client built` (vLLM 0.19.0) the server builds its AsyncLLM itself from the parsed arguments
(AsyncLLM.from_vllm_config), only EngineCoreClient.make_async_mp_client replaced by the paced fake.

Setup: the venv of vllm_api_server_request.py plus uvloop and httptools (vllm's fastapi[standard] brings them).
Usage: QWEN_TIKTOKEN=<path> python vllm_api_server_burst.py --wheel-dir <unpacked vllm 0.11.0> --n 500 --tokens 128 \
    --step-s 0.005 --out out.json
"""

import argparse
import asyncio
import contextlib
import json
import os
import platform
import socket
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


class PacedEngineCore:
    """EngineCore stand-in for a GPU stepping every `step` seconds from the first request on."""

    def __init__(self, step):
        self.step = step
        self.resources = type("Resources", (), {"engine_dead": False})()
        self.running = {}  # request id -> [next token index, max tokens]
        self.ready = asyncio.Event()
        self.t = None

    engine_ranks_managed = [0]

    async def get_supported_tasks_async(self):
        return ("generate",)

    def dp_engines_running(self):
        return False

    async def reset_mm_cache_async(self):
        pass

    async def reset_encoder_cache_async(self):
        pass

    async def is_sleeping_async(self):
        return False

    async def is_scheduler_paused_async(self):
        return False

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
            self.t = None
            await self.ready.wait()
        now = time.perf_counter()
        if self.t is None:
            self.t = now
        self.t += self.step
        if self.t > now:
            await asyncio.sleep(self.t - now)
        # Steps the loop missed while busy: their tokens come together.
        steps = 1 + max(0, int((time.perf_counter() - self.t) / self.step)) if self.step > 0 else 1
        self.t += (steps - 1) * self.step
        outs = []
        for rid, s in list(self.running.items()):
            i, n = s
            k = min(steps, n - i)
            last = i + k >= n
            outs.append(EngineCoreOutput(request_id=rid, new_token_ids=[1000 + 17 * j for j in range(i, i + k)],
                                         finish_reason=FinishReason.LENGTH if last else None))
            if last:
                del self.running[rid]
            else:
                s[0] = i + k
        return EngineCoreOutputs(outputs=outs, timestamp=time.monotonic())


def serve_built(port, step):
    """`vllm serve`'s own engine-client construction (AsyncLLM.from_vllm_config from the parsed arguments), with the
    engine core client it would start replaced by the paced fake: the way vLLM 0.19.0 is run."""
    import uvloop
    import vllm_api_server_request as vreq
    from vllm.platforms import current_platform

    if not current_platform.device_type:  # no accelerator here
        current_platform.device_type = "cpu"
    import vllm.v1.engine.core_client as cc

    cc.EngineCoreClient.make_async_mp_client = staticmethod(lambda *a, **k: PacedEngineCore(step))
    import vllm.entrypoints.openai.api_server as api
    from vllm.entrypoints.openai.cli_args import make_arg_parser
    from vllm.utils.argparse_utils import FlexibleArgumentParser

    model_dir = vreq.build_model_dir(os.environ["QWEN_TIKTOKEN"])
    args = make_arg_parser(FlexibleArgumentParser()).parse_args(
        ["--model", model_dir, "--served-model-name", "Qwen/Qwen3-0.6B", "--host", "127.0.0.1",
         "--port", str(port), "--max-model-len", "4096"])
    uvloop.run(api.run_server(args))


def serve(port, step):
    import uvloop
    import vllm.entrypoints.openai.api_server as api
    import vllm_api_server_request as vreq
    from vllm.entrypoints.openai.cli_args import make_arg_parser
    from vllm.utils import FlexibleArgumentParser

    model_dir = vreq.build_model_dir(os.environ["QWEN_TIKTOKEN"])
    chat, _ = vreq.make_server(model_dir, vreq.Clock())
    llm = chat.engine_client
    llm.engine_core = PacedEngineCore(step)
    # What AsyncLLM.__init__ sets beyond vllm_api_server_request.py's fake, with `vllm serve`'s stats loggers (its
    # log_stats default: the logging and Prometheus loggers, recorded once per engine output in the output handler).
    from vllm.v1.metrics.loggers import StatLoggerManager

    from vllm.config import ObservabilityConfig

    if llm.vllm_config.observability_config is None:
        llm.vllm_config.observability_config = ObservabilityConfig()
    llm.observability_config = llm.vllm_config.observability_config
    llm.profiler = None
    llm.logger_manager = StatLoggerManager(vllm_config=llm.vllm_config, engine_idxs=None, custom_stat_loggers=None,
                                           enable_default_loggers=True, client_count=1)

    @contextlib.asynccontextmanager
    async def fake_client(args, **kw):
        yield llm

    api.build_async_engine_client = fake_client
    # No accelerator here: the argument parser's DeviceConfig default asks the platform for its device type.
    from vllm.platforms import current_platform

    if not current_platform.device_type:
        current_platform.device_type = "cpu"
    args = make_arg_parser(FlexibleArgumentParser()).parse_args(
        ["--model", model_dir, "--served-model-name", "Qwen/Qwen3-0.6B", "--host", "127.0.0.1",
         "--port", str(port)])
    uvloop.run(api.run_server(args))


def proc_cpu(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def burst(mod, port, n, tokens, server_pid, endpoint):
    import aiohttp
    from tqdm.asyncio import tqdm

    connector = aiohttp.TCPConnector(limit=0, limit_per_host=0, ttl_dns_cache=300, use_dns_cache=True,
                                     keepalive_timeout=60, enable_cleanup_closed=True, force_close=False, ssl=False)
    session = aiohttp.ClientSession(connector=connector, trust_env=True,
                                    timeout=aiohttp.ClientTimeout(total=6 * 60 * 60))
    if endpoint == "chat":  # --backend openai-chat: 128 words in (the lab's i128 bursts)
        func, url, words = mod.async_request_openai_chat_completions, f"http://127.0.0.1:{port}/v1/chat/completions", 128
    else:  # --backend vllm: 512 words in (the kvcached burst)
        func, url, words = mod.async_request_openai_completions, f"http://127.0.0.1:{port}/v1/completions", 512
    prompt = " ".join(["word"] * words)

    def inp():
        return mod.RequestFuncInput(prompt=prompt, api_url=url, prompt_len=words, output_len=tokens,
                                    model="Qwen/Qwen3-0.6B")

    for _ in range(3):  # serve.py's initial test run, and a warm-up
        w = await func(request_func_input=inp(), session=session)
        assert w.success, w.error
    pbar = tqdm(total=n, file=open(os.devnull, "w"))
    s0, c0, t0 = proc_cpu(server_pid), time.process_time(), time.perf_counter()
    outs = await asyncio.gather(*[asyncio.create_task(
        func(request_func_input=inp(), session=session, pbar=pbar))
        for _ in range(n)])
    wall = time.perf_counter() - t0
    server, client = proc_cpu(server_pid) - s0, time.process_time() - c0
    await session.close()
    assert all(o.success for o in outs), [o.error for o in outs if not o.success][:1]
    ttft = [o.ttft for o in outs]
    return {"endpoint": endpoint, "requests": n, "tokens": tokens, "wall_s": round(wall, 3), "server_cpu_s": round(server, 3),
            "client_cpu_s": round(client, 3), "ttft_mean_s": round(statistics.fmean(ttft), 3),
            "ttft_max_s": round(max(ttft), 3),
            "tpot_mean_ms": round(1e3 * statistics.fmean((o.latency - o.ttft) / max(1, tokens - 1) for o in outs), 2),
            "chunks_per_request": round(statistics.fmean(1 + len(o.itl) for o in outs), 1),
            "requests_per_s": round(n / wall, 1)}


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "--serve":
        (serve_built if sys.argv[4] == "built" else serve)(int(sys.argv[2]), float(sys.argv[3]))
        return
    ap = argparse.ArgumentParser()
    ap.add_argument("--wheel-dir", required=True)
    ap.add_argument("--n", type=int, nargs="+", default=[500])
    ap.add_argument("--tokens", type=int, nargs="+", default=[128])
    ap.add_argument("--step-s", type=float, default=0.005)
    ap.add_argument("--endpoint", default="completions", choices=["completions", "chat"])
    ap.add_argument("--engine-client", default="fake", choices=["fake", "built"],
                    help="fake: vllm_api_server_request.py's AsyncLLM (v0.11.0); built: vllm's own (v0.19.0)")
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--out", default="-")
    args = ap.parse_args()
    import vllm_bench_client as vbc

    mod = vbc.load_request_funcs(args.wheel_dir)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    srv = subprocess.Popen([sys.executable, __file__, "--serve", str(port), str(args.step_s), args.engine_client],
                           stdout=subprocess.DEVNULL, stderr=open(os.environ.get("SERVER_LOG", os.devnull), "w"))
    rows = []
    try:
        for _ in range(600):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.2)
        for rep in range(args.repeats):
            for n in args.n:
                for t in args.tokens:
                    r = asyncio.run(burst(mod, port, n, t, srv.pid, args.endpoint))
                    r["repeat"] = rep
                    rows.append(r)
                    print(json.dumps(r), file=sys.stderr)
    finally:
        srv.terminate()
        srv.wait()
    import importlib.metadata as md

    doc = {"script": "scripts/measure/vllm_api_server_burst.py",
           "what": "a burst through vLLM 0.11.0's whole API server process (uvicorn, FastAPI app, OpenAI completions "
                   "route, AsyncLLM output handler) over a fake engine core stepping every step_s, driven by vllm "
                   "bench serve's request function; wall time, server and client CPU time, TTFT",
           "load_average_1m": round(os.getloadavg()[0], 2),
           "step_s": args.step_s,
           "engine_client": args.engine_client,
           "versions": {p: md.version(p) for p in ("vllm", "uvicorn", "fastapi", "starlette", "uvloop", "httptools",
                                                   "aiohttp", "pydantic")},
           "python": platform.python_version(), "logical_cpus": os.cpu_count(), "rows": rows}
    text = json.dumps(doc, indent=1) + "\n"
    if args.out == "-":
        sys.stdout.write(text)
    else:
        with open(args.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
