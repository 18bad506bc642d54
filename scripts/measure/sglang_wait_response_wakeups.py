#!/usr/bin/env python3
"""SGLang 0.4.3.post2's TokenizerManager wake-ups per waiting prompt, timed on the CPU.

Every prompt in flight waits in TokenizerManager._wait_one_response (managers/tokenizer_manager.py of the sglang
0.4.3.post2 wheel, lines 416-423):

    while True:
        try:
            await asyncio.wait_for(state.event.wait(), timeout=4)
        except asyncio.TimeoutError:
            if request is not None and await request.is_disconnected():
                ...
            continue

so each one wakes every 4 s to ask starlette whether its client left, in the one event loop that also tokenizes and
sends the next prompts (http_server.py runs it under uvloop). This runs N such waiters on a uvloop loop, each with a
starlette Request whose receive() never returns (a live connection with its body read, as uvicorn's is), the timeout
shortened to TIMEOUT so that the cycles add up quickly (a cycle's work does not depend on its length), and reports the
process CPU time per wake-up (time.process_time over the run / wake-ups counted).

Setup: a venv with starlette==0.45.3 (fastapi 0.115.8's, February 2025) and uvloop.
Usage: python scripts/measure/sglang_wait_response_wakeups.py --out out.json
"""

import argparse
import asyncio
import json
import os
import platform
import time

import starlette
import uvloop
from starlette.requests import Request

TIMEOUT = 0.25
RUN_SECONDS = 5.0
WAITERS = (1000, 5000)


async def never():
    await asyncio.Event().wait()
    return {"type": "http.disconnect"}


async def waiter(event, request, counter):
    # the loop of _wait_one_response, sglang 0.4.3.post2 managers/tokenizer_manager.py:416-423
    while True:
        try:
            await asyncio.wait_for(event.wait(), timeout=TIMEOUT)
        except asyncio.TimeoutError:
            if request is not None and await request.is_disconnected():
                raise ValueError("abort")
            counter[0] += 1
            continue
        return


async def run(n):
    scope = {"type": "http", "method": "POST", "path": "/v1/completions", "headers": [], "query_string": b""}
    events = [asyncio.Event() for _ in range(n)]
    counter = [0]
    tasks = [asyncio.create_task(waiter(e, Request(scope, receive=never), counter)) for e in events]
    await asyncio.sleep(TIMEOUT * 1.5)  # every waiter past its first wake-up
    counter[0] = 0
    t0 = time.process_time()
    await asyncio.sleep(RUN_SECONDS)
    cpu = time.process_time() - t0
    wakeups = counter[0]
    for e in events:
        e.set()
    await asyncio.gather(*tasks)
    return {"waiters": n, "wakeups": wakeups, "cpu_s": round(cpu, 3), "us_per_wakeup": round(cpu / wakeups * 1e6, 2)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    results = [uvloop.run(run(n)) for n in WAITERS]
    out = {
        "script": "scripts/measure/sglang_wait_response_wakeups.py",
        "what": "process CPU time per wake-up of sglang 0.4.3.post2's _wait_one_response loop (asyncio.wait_for with a "
        "timeout, then starlette's Request.is_disconnected) with N waiters on one uvloop loop, in microseconds",
        "engine_lines": {"0.4.3.post2": "python/sglang/srt/managers/tokenizer_manager.py:416-423"},
        "versions": {"starlette": starlette.__version__, "uvloop": uvloop.__version__},
        "python": platform.python_version(),
        "cpu": platform.machine(),
        "logical_cpus": os.cpu_count(),
        "load_average_1m": round(os.getloadavg()[0], 2),
        "timeout_s": TIMEOUT,
        "run_s": RUN_SECONDS,
        "results": results,
    }
    with open(args.out, "w") as f:
        json.dump(out, f, indent=2)
        f.write("\n")


if __name__ == "__main__":
    main()
