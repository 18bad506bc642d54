#!/usr/bin/env python3
"""Does sariekr/gpu_conc's client pass a server's decode pace on? The real client against a step-clocked stand-in.

What it runs: the repository's own `run_benchmark` (concurrency.py @a9fa3ba1314c409e078b2065522dfd594ca78831, the
client of the results committed up to 31a124468e1eb2cb63b9ec6b19f587343935bf6a; the file is imported unchanged from
CLIENT, default /tmp/gptossconc-client/concurrency.py) with C workers, against a stand-in OpenAI-compatible server (a
child process started here) that plays an engine decoding in lock-step: every STEP_S seconds (an absolute schedule;
0 = as fast as the loop turns) one tick writes one chunk to every stream in flight, as vLLM V1 emits one token per
request per step. A request joins at the next tick; it gets vLLM 0.10.1's role chunk (`delta` role + empty content),
TOKENS chunks of one `reasoning_content` token each (the harmony branch of `chat_completion_stream_generator`,
`model_dump_json(exclude_unset=True)`), the last with `finish_reason` "length", then `data: [DONE]`, over HTTP/1.1
chunked transfer as uvicorn sends a `StreamingResponse`.

What it reports per run: the client's `median_output_speed_per_query` (its results file: chunks / (last chunk - first
chunk) as the client reads them) beside the server's median of chunks / (last write - first write) over the requests
it started after the ramp-up; and, request by request (paired by a hash of the prompt, which the client draws at
random per request), the client's speed over the server's for that request (1.0: the client passes the server's pace
on) and how late the client read that request's first and last chunk after the server wrote them. The pairing wraps
the module's `make_single_request` in an observer that keeps the `RequestMetrics` it returns; nothing else changes.
Also the client process's CPU seconds per chunk it counted (resource.getrusage over the whole run, ramp-up and drain
included, over every request's chunks), the server's mean tick lateness (the time a tick ran past its deadline; the
server's median speed already counts it) and the mean count of streams in flight at its ticks through the measured
phase. The client's producer puts one request on its queue every 0.5 s (2 a
second), so C streams stay in flight only while a request lasts longer than C / 2 seconds: TOKENS x STEP_S above
C / 2 (at 16 streams and 4 ms a step, 2500 tokens).

The client needs pynvml (NVML fails here and its monitor stops, as on a host without NVIDIA's library), psutil, numpy.
Setup (CPU only), with the SDK of the runs (August 2025):
  python3 -m venv /tmp/gptossconc-venv
  /tmp/gptossconc-venv/bin/pip install openai==1.99.9 httpx==0.28.1 pydantic==2.11.7 anyio==4.10.0 numpy==2.3.2 \
      psutil pynvml
  mkdir -p /tmp/gptossconc-client && curl -sL -o /tmp/gptossconc-client/concurrency.py \
      https://raw.githubusercontent.com/sariekr/gpu_conc/a9fa3ba1314c409e078b2065522dfd594ca78831/concurrency.py
Usage:
  [STEP_S=0.004 STREAMS=1,4,8,16 REPEATS=3 PHASE_S=12 RAMP_S=3 TOKENS=2500] \
      /tmp/gptossconc-venv/bin/python scripts/measure/gpuconc_client_pace.py > out.json
"""

import asyncio
import hashlib
import importlib.util
import json
import logging
import os
import platform
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from importlib.metadata import version

CHUNK_HEAD = (
    '{"id":"chatcmpl-%s","object":"chat.completion.chunk","created":1755000000,"model":"openai/gpt-oss-20b",'
    '"choices":[{"index":0,"delta":'
)


def sse(rid: str, delta: str, finish: str) -> bytes:
    body = ("data: " + CHUNK_HEAD % rid + delta + ',"logprobs":null,"finish_reason":' + finish + "}]}\n\n").encode()
    return b"%x\r\n%s\r\n" % (len(body), body)


def prompt_key(prompt: str) -> str:
    return hashlib.sha1(prompt.encode()).hexdigest()


class Stream:
    def __init__(self, writer, n: int, key: str):
        self.writer, self.rid, self.left, self.key = writer, os.urandom(16).hex(), n, key
        self.sent, self.first, self.last = 0, 0.0, 0.0
        self.done = asyncio.get_running_loop().create_future()


async def serve(port: int, tokens: int, step: float, log_path: str) -> None:
    head = b"HTTP/1.1 200 OK\r\nserver: uvicorn\r\ncontent-type: text/event-stream; charset=utf-8\r\ntransfer-encoding: chunked\r\n\r\n"
    done_body = b"data: [DONE]\n\n"
    done = b"%x\r\n%s\r\n0\r\n\r\n" % (len(done_body), done_body)
    active: list[Stream] = []
    log = open(log_path, "a", buffering=1)
    late: list[float] = []  # per tick: seconds past its deadline (0 on time)
    busy: list[int] = []  # per tick: the streams in flight
    joined = asyncio.Event()

    def tick() -> None:
        now = time.time()
        for s in list(active):
            w = s.writer
            if s.sent == 0:
                w.write(head + sse(s.rid, '{"role":"assistant","content":""}', "null"))
            s.left -= 1
            last = s.left == 0
            w.write(sse(s.rid, '{"reasoning_content":" token"}', '"length"' if last else "null"))
            s.sent += 1
            if s.sent == 1:
                s.first = now
            if last:
                s.last = now
                w.write(done)
                active.remove(s)
                log.write(json.dumps({"key": s.key, "n": s.sent, "first": s.first, "last": s.last}) + "\n")
                s.done.set_result(None)

    async def ticker() -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time()
        while True:
            if step > 0:
                deadline += step
                wait = deadline - loop.time()
                if wait > 0:
                    await asyncio.sleep(wait)
                now = loop.time()
                late.append(max(0.0, now - deadline))
                if now - deadline > step:
                    deadline = now  # an engine does not catch up on a late step
            elif active:
                await asyncio.sleep(0)
            else:
                joined.clear()
                await joined.wait()  # unpaced and idle: wait for a request instead of spinning
            if step == 0:
                late.append(0.0)
            busy.append(len(active))
            tick()
            if len(late) >= 250:
                row = {"t": time.time(), "late_ms_mean": statistics.fmean(late) * 1e3, "active_mean": statistics.fmean(busy)}
                log.write(json.dumps(row) + "\n")
                late.clear()
                busy.clear()

    async def handle(reader, writer):
        try:
            while True:
                req = await reader.readuntil(b"\r\n\r\n")
                n = 0
                for line in req.split(b"\r\n"):
                    if line.lower().startswith(b"content-length:"):
                        n = int(line.split(b":")[1])
                body = json.loads(await reader.readexactly(n))
                s = Stream(writer, tokens, prompt_key(body["messages"][0]["content"]))
                active.append(s)
                joined.set()
                await s.done
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass

    srv = await asyncio.start_server(handle, "127.0.0.1", port)
    asyncio.get_running_loop().create_task(ticker())
    async with srv:
        await srv.serve_forever()


def load_client(path: str):
    spec = importlib.util.spec_from_file_location("concurrency", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def one_run(client_mod, streams: int, step: float, tokens: int, phase: int, ramp: int) -> dict:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    tmp = tempfile.mkdtemp(prefix="gpuconc-pace-")
    log_path, out_path = os.path.join(tmp, "server.jsonl"), os.path.join(tmp, "client.json")
    srv = subprocess.Popen([sys.executable, __file__, "--serve", str(port), str(tokens), str(step), log_path])
    try:
        time.sleep(1.0)
        ru0, t0 = resource.getrusage(resource.RUSAGE_SELF), time.time()
        seen: list = []
        original = client_mod.make_single_request

        async def observed(client, request_id, prompt, *args):
            # an observer: the client's own call, its RequestMetrics kept beside the prompt it sent
            m = await original(client, request_id, prompt, *args)
            seen.append((prompt_key(prompt), m))
            return m

        client_mod.make_single_request = observed  # request_worker looks the name up per call
        res = asyncio.run(
            client_mod.run_benchmark(
                concurrency=streams,
                phase_duration=phase,
                ramp_up_duration=ramp,
                cool_down_duration=1,
                input_tokens=1000,
                output_tokens=tokens,
                request_timeout=30,
                vllm_url=f"http://127.0.0.1:{port}/v1",
                api_key="k",
                gpu_info={"model": "stand-in", "memory": "0"},
                model="openai/gpt-oss-20b",
                output_file=out_path,
            )
        )
        ru1, t1 = resource.getrusage(resource.RUSAGE_SELF), time.time()
    finally:
        client_mod.make_single_request = original
        srv.terminate()
        srv.wait()
    recs, lates, actives, by_key = [], [], [], {}
    with open(log_path) as f:
        for line in f:
            r = json.loads(line)
            if "n" in r and r["last"] > r["first"]:
                by_key[r["key"]] = r
                if r["first"] >= t0 + ramp:
                    recs.append(r["n"] / (r["last"] - r["first"]))
            elif "late_ms_mean" in r and t0 + ramp <= r["t"] <= t0 + ramp + phase:
                lates.append(r["late_ms_mean"])
                actives.append(r["active_mean"])
    ratios, lag_first, lag_last = [], [], []
    for key, m in seen:
        r = by_key.get(key)
        if r is None or not m.success or m.start_time < t0 + ramp or not m.output_speed_tps:
            continue
        ratios.append(m.output_speed_tps / (r["n"] / (r["last"] - r["first"])))
        lag_first.append(m.first_token_time - r["first"])
        lag_last.append(m.end_time - r["last"])
    cpu = (ru1.ru_utime + ru1.ru_stime) - (ru0.ru_utime + ru0.ru_stime)
    chunks = sum(m.output_tokens for _, m in seen)  # every chunk the client counted, warm-up requests included
    client = res.get("median_output_speed_per_query", 0.0)
    server = statistics.median(recs) if recs else 0.0
    return {
        "streams": streams,
        "client_requests": res.get("successful_requests", 0),
        "failed": res.get("failed_requests", 0),
        "client_median_speed": round(client, 2),
        "server_median_speed": round(server, 2),
        "client_over_server": round(client / server, 4) if server else None,
        "paired_requests": len(ratios),
        "paired_ratio_median": round(statistics.median(ratios), 4) if ratios else None,
        "paired_ratio_min": round(min(ratios), 4) if ratios else None,
        "paired_ratio_max": round(max(ratios), 4) if ratios else None,
        "read_lag_first_ms_median": round(statistics.median(lag_first) * 1e3, 3) if ratios else None,
        "read_lag_last_ms_median": round(statistics.median(lag_last) * 1e3, 3) if ratios else None,
        "client_cpu_us_per_chunk_whole_run": round(cpu / max(chunks, 1) * 1e6, 1),
        "client_cpu_util_whole_run": round(cpu / (t1 - t0), 3),
        "server_tick_late_ms_mean": round(statistics.fmean(lates), 3) if lates and step > 0 else None,
        "server_streams_in_flight_mean": round(statistics.fmean(actives), 2) if actives else None,
        "load_average_1m": round(os.getloadavg()[0], 2),
    }


def main() -> None:
    if len(sys.argv) == 6 and sys.argv[1] == "--serve":
        asyncio.run(serve(int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), sys.argv[5]))
        return
    logging.basicConfig(level=logging.CRITICAL)
    client_path = os.environ.get("CLIENT", "/tmp/gptossconc-client/concurrency.py")
    client_mod = load_client(client_path)
    tokens = int(os.environ.get("TOKENS", "2500"))
    step = float(os.environ.get("STEP_S", "0.004"))
    streams = [int(x) for x in os.environ.get("STREAMS", "1,4,8,16").split(",")]
    repeats = int(os.environ.get("REPEATS", "3"))
    phase, ramp = int(os.environ.get("PHASE_S", "12")), int(os.environ.get("RAMP_S", "3"))
    rows = []
    for rep in range(repeats):
        for n in streams:
            row = one_run(client_mod, n, step, tokens, phase, ramp)
            row["repeat"] = rep
            print(json.dumps(row), file=sys.stderr)
            rows.append(row)
    with open("/proc/cpuinfo") as f:
        cpu = next((l.split(":", 1)[1].strip() for l in f if l.startswith("model name")), "unknown")
    summary = []
    for n in streams:
        mine = [x for x in rows if x["streams"] == n and x["paired_requests"]]
        summary.append(
            {
                "streams": n,
                "paired_ratio_median_min": min(x["paired_ratio_median"] for x in mine),
                "paired_ratio_median_max": max(x["paired_ratio_median"] for x in mine),
                "paired_ratio_min": min(x["paired_ratio_min"] for x in mine),
                "server_median_speed_min": min(x["server_median_speed"] for x in mine),
                "server_median_speed_max": max(x["server_median_speed"] for x in mine),
            }
        )
    print(
        json.dumps(
            {
                "script": "scripts/measure/gpuconc_client_pace.py",
                "client": "sariekr/gpu_conc concurrency.py @a9fa3ba1314c409e078b2065522dfd594ca78831, run_benchmark unchanged",
                "python": platform.python_version(),
                "versions": {p: version(p) for p in ("openai", "httpx", "httpcore", "pydantic", "pydantic_core", "anyio", "h11")},
                "cpu": cpu,
                "logical_cpus": os.cpu_count(),
                "tokens_per_request": tokens,
                "step_s": step,
                "phase_s": phase,
                "ramp_s": ramp,
                "rows": rows,
                "summary": summary,
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
