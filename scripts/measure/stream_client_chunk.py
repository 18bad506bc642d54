#!/usr/bin/env python3
"""CPU cost of a one-process asyncio OpenAI-SDK client per streamed chat-completion chunk.

What it times: N concurrent workers, each sending one streamed chat request after another through AsyncOpenAI and
iterating its chunks the way sariekr/gpu_conc's client does (concurrency.py @a9fa3ba1314c409e078b2065522dfd594ca78831,
process_streaming_response: per chunk, `choices[0]`, `delta.content` or else `delta.reasoning_content`, the text
appended to a string, one output token counted, `finish_reason` checked). The chunks come from a stand-in server (a
child process started here) that writes vLLM-shaped SSE lines (`chat.completion.chunk`, one token of
`reasoning_content` each) over HTTP/1.1 chunked transfer, one chunk a connection every STEP_S seconds, so that the
client reads one chunk at a time as it does from a server decoding one token a step. The client process's CPU time
(time.process_time) over the run, divided by the chunks it counted, is the figure; `util` is that CPU time over the
wall time. STEP_S=0 streams as fast as the socket takes them (the client's own ceiling, chunks per second at full use
of one core). Not timed: the prompt generation per request and the memory monitor (per request and per second, not
per chunk), and one warm-up request (the SDK's lazy imports, the first connection).

Setup (a venv, CPU only): pip install openai==1.99.1 httpx==0.28.1 pydantic==2.11.7 anyio==4.10.0
Usage: [TOKENS=1000 REQS=2 STEP_S=0.005 STREAMS=1,4,8,16] python stream_client_chunk.py > out.json
"""

import asyncio
import json
import os
import platform
import socket
import statistics
import subprocess
import sys
import time
from importlib.metadata import version

CHUNK = {
    "id": "chatcmpl-0123456789abcdef0123456789abcdef",
    "object": "chat.completion.chunk",
    "created": 1755000000,
    "model": "openai/gpt-oss-20b",
    "choices": [
        {"index": 0, "delta": {"reasoning_content": " token"}, "logprobs": None, "finish_reason": None}
    ],
}


def sse(last: bool) -> bytes:
    d = json.loads(json.dumps(CHUNK))
    if last:
        d["choices"][0]["finish_reason"] = "length"
    body = ("data: " + json.dumps(d, separators=(",", ":")) + "\n\n").encode()
    return b"%x\r\n%s\r\n" % (len(body), body)


async def serve(port: int, tokens: int, step: float) -> None:
    mid, last = sse(False), sse(True)
    done_body = b"data: [DONE]\n\n"
    done = b"%x\r\n%s\r\n0\r\n\r\n" % (len(done_body), done_body)
    head = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"

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
                for i in range(tokens):
                    writer.write(last if i == tokens - 1 else mid)
                    if step > 0:
                        await asyncio.sleep(step)
                    else:
                        await writer.drain()
                writer.write(done)
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass

    srv = await asyncio.start_server(handle, "127.0.0.1", port)
    async with srv:
        await srv.serve_forever()


async def one_request(client) -> tuple[int, float, float]:
    count, first, content, reasoning = 0, None, "", ""
    stream = await client.chat.completions.create(
        model="openai/gpt-oss-20b",
        messages=[{"role": "user", "content": "word " * 750}],
        max_tokens=1000,
        stream=True,
    )
    async for chunk in stream:
        if hasattr(chunk, "choices") and len(chunk.choices) > 0:
            choice = chunk.choices[0]
            if hasattr(choice, "delta") and choice.delta.content:
                first = first or time.time()
                content += choice.delta.content
                count += 1
            elif (
                hasattr(choice, "delta")
                and hasattr(choice.delta, "reasoning_content")
                and choice.delta.reasoning_content
            ):
                first = first or time.time()
                reasoning += choice.delta.reasoning_content
                count += 1
            if hasattr(choice, "finish_reason") and choice.finish_reason is not None:
                break
    return count, first or time.time(), time.time()


async def run_client(port: int, streams: int, reqs: int) -> dict:
    from openai import AsyncOpenAI

    async with AsyncOpenAI(base_url=f"http://127.0.0.1:{port}/v1", api_key="k") as client:
        out: list[tuple[int, float, float]] = []

        async def worker():
            for _ in range(reqs):
                out.append(await one_request(client))

        await one_request(client)  # warm-up: the SDK's lazy imports and the connection, not timed
        cpu0, t0 = time.process_time(), time.time()
        await asyncio.gather(*[worker() for _ in range(streams)])
        cpu, wall = time.process_time() - cpu0, time.time() - t0
    chunks = sum(n for n, _, _ in out)
    return {
        "streams": streams,
        "requests": len(out),
        "chunks": chunks,
        "client_cpu_us_per_chunk": round(cpu / chunks * 1e6, 1),
        "chunks_per_s": round(chunks / wall),
        "util": round(cpu / wall, 3),
        "median_speed_per_request": round(statistics.median(n / (e - f) for n, f, e in out), 1),
    }


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main() -> None:
    if len(sys.argv) == 5 and sys.argv[1] == "--serve":
        asyncio.run(serve(int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])))
        return
    tokens = int(os.environ.get("TOKENS", "1000"))
    reqs = int(os.environ.get("REQS", "2"))
    step = float(os.environ.get("STEP_S", "0.005"))
    streams = [int(x) for x in os.environ.get("STREAMS", "1,4,8,16").split(",")]
    rows = []
    for n in streams:
        port = free_port()
        srv = subprocess.Popen([sys.executable, __file__, "--serve", str(port), str(tokens), str(step)])
        try:
            time.sleep(1.0)
            rows.append(asyncio.run(run_client(port, n, reqs)))
        finally:
            srv.terminate()
            srv.wait()
    with open("/proc/cpuinfo") as f:
        cpu = next((l.split(":", 1)[1].strip() for l in f if l.startswith("model name")), "unknown")
    print(
        json.dumps(
            {
                "script": "scripts/measure/stream_client_chunk.py",
                "what": "a one-process asyncio AsyncOpenAI client's CPU time per streamed chat chunk, counting chunks as sariekr/gpu_conc concurrency.py @a9fa3ba does; chunks from a stand-in server, one a connection every step_s (0: unpaced)",
                "python": platform.python_version(),
                "versions": {p: version(p) for p in ("openai", "httpx", "pydantic", "pydantic_core", "anyio", "h11")},
                "cpu": cpu,
                "logical_cpus": os.cpu_count(),
                "load_average_1m": round(os.getloadavg()[0], 2),
                "tokens_per_request": tokens,
                "step_s": step,
                "rows": rows,
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
