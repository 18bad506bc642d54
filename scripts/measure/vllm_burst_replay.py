"""Replay of vLLM v0.11.0's V1 scheduler over a saturated burst, at step costs given per row.

Not a measurement and not read by the model: it checks whether the scheduling of a burst (KV-pool admission, the
running requests' decode tokens taking their share of each step's token budget, preemption with recompute) accounts
for the GPUStack lab's Qwen3-14B bursts on one H100 (docs/time-model.md "The lab's Qwen3-14B H100 bursts, replayed").

What it replays, as vllm/v1/core/sched/scheduler.py `Scheduler.schedule` does at v0.11.0:
- running requests first, each its next prefill chunk or one decode token, out of max_num_batched_tokens (8192);
- a running request whose blocks cannot be allocated preempts the most recently admitted running request, itself
  last (its blocks freed, `num_computed_tokens` 0, the request back at the front of the waiting queue), and no
  waiting request is admitted in a step that preempted;
- then waiting requests in arrival order while the budget lasts and free blocks hold their next chunk
  (`allocate_slots` returning None stops admission);
- 16-token blocks; prefix caching on (the v0.11.0 default): a preempted request finds its own full blocks cached on
  readmission (an upper bound on the hits: no eviction by other requests is replayed); `--no-cache` drops them
  (a lower bound). Random prompts share no prefix.
Requests reach the engine one after another, `arrive` seconds apart (the API server's cost a request).

A step takes `fc` x (prefill tokens / 8192) x `chunk_s` when it prefills, else `fd` x `w_s`; either adds
`fd` x (the running requests' KV bytes at `kv_bw` + `oh_s`). `chunk_s`, `w_s`, `oh_s` and `kv_bw` are the estimate's
own figures for the row (an 8192-token chunk's prefill, the weight read and fixed cost of a decode step, the stream
rate); `fc` = `fd` = 1 is the model; other values scale the model's steps to see what the rows' timings need.

Usage: python3 scripts/measure/vllm_burst_replay.py [--no-cache] [fc fd]
"""

import statistics
import sys

KV_BYTES_PER_TOKEN = 163840  # Qwen3-14B: 2 x 40 layers x 8 KV heads x 128 x 2 bytes
POOL_TOKENS = 264194  # the memory model's vLLM KV pool for Qwen3-14B bf16 on an H100 SXM (estimate --json)

# The three vLLM rows of the lab's Qwen3-14B page: requests, prompt and output tokens, the estimate's chunk seconds.
ROWS = {
    "gpslab-qwen3-14b-h100-vllm-burst500-i2k": (500, 2005, 100, 0.3945),
    "gpslab-qwen3-14b-h100-vllm-burst500-i4k": (500, 4005, 200, 0.4055),
    "gpslab-qwen3-14b-h100-vllm-burst100-i32k": (100, 32009, 100, 0.5520),
}


def _admit(r, prompt, blk, tokb, free):
    """Tokens and blocks a waiting request's next chunk takes (its cached prefix counted), or None."""
    total = prompt + r["gen"]
    hit = min(r.get("cached", 0), (total - 1) // blk) * blk
    n = min(total - hit, tokb)
    want = -(-(hit + n) // blk)
    return None if want > free else (hit, n, want)


def replay(n_req, prompt, out, chunk_s, fc=1.0, fd=1.0, cache=True, budget=8192, blk=16, arrive=0.014,
           w_s=0.0104, oh_s=0.0031, kv_bw=2.85e12, pool_tokens=POOL_TOKENS):
    free = pool_tokens // blk
    reqs = [dict(done=0, gen=0, blocks=0, t_arr=(i + 1) * arrive, ttft=None, toks=[]) for i in range(n_req)]
    waiting, running = [], []
    nxt, t, finished, preempted, recomputed = 0, 0.0, 0, 0, 0
    steps = {"prefill": 0, "decode_only": 0}
    while finished < n_req:
        while nxt < n_req and reqs[nxt]["t_arr"] <= t:
            waiting.append(reqs[nxt])
            nxt += 1
        if not running and not waiting:
            t = reqs[nxt]["t_arr"]
            continue
        tokb, sched, preempted_now = budget, [], False
        for r in list(running):
            if r not in running:
                continue
            n = min(prompt + r["gen"] - r["done"], tokb)
            if n <= 0:
                continue
            want = -(-(r["done"] + n) // blk) - r["blocks"]
            while want > free:
                victim = running.pop()  # FCFS: the last admitted, `self.running.pop()`
                free += victim["blocks"]
                preempted += 1
                preempted_now = True
                victim.update(cached=victim["blocks"] if cache else 0, lost=victim["done"], blocks=0, done=0)
                sched = [s for s in sched if s[0] is not victim]
                waiting.insert(0, victim)
                if victim is r:
                    break
            if r not in running:
                break  # it preempted itself: no more running requests this step
            free -= want
            r["blocks"] += want
            sched.append((r, n))
            tokb -= n
        while not preempted_now and waiting and tokb > 0:
            r = waiting[0]
            got = _admit(r, prompt, blk, tokb, free)
            if got is None:
                break
            hit, n, want = got
            waiting.pop(0)
            free -= want
            recomputed += max(0, r.get("lost", 0) - hit)  # tokens computed before a preemption, computed again
            r.update(blocks=want, done=hit, cached=0, lost=0)
            running.append(r)
            sched.append((r, n))
            tokb -= n
        prefill = sum(n for r, n in sched if r["done"] < prompt + r["gen"] - 1)
        kv = sum(r["done"] for r, _ in sched) * KV_BYTES_PER_TOKEN / kv_bw
        steps["prefill" if prefill else "decode_only"] += 1
        t += (fc * chunk_s * prefill / 8192 if prefill else fd * w_s) + fd * (kv + oh_s)
        for r, n in sched:
            r["done"] += n
            if r["done"] >= prompt + r["gen"]:
                r["gen"] += 1
                r["toks"].append(t)
                r["ttft"] = r["ttft"] if r["ttft"] is not None else t
                if r["gen"] >= out:
                    running.remove(r)
                    free += r["blocks"]
                    r["blocks"] = 0
                    finished += 1
    ttft = sorted(r["ttft"] for r in reqs)
    tpot = [(r["toks"][-1] - r["toks"][0]) / (out - 1) for r in reqs]
    itl = sorted(b - a for r in reqs for a, b in zip(r["toks"], r["toks"][1:]))
    return {
        "duration_s": round(t, 1),
        "ttft_mean_s": round(statistics.mean(ttft), 1),
        "ttft_p99_s": round(ttft[int(0.99 * n_req) - 1], 1),
        "tpot_median_ms": round(1e3 * statistics.median(tpot)),
        "itl_median_ms": round(1e3 * itl[len(itl) // 2], 1),
        "itl_p99_ms": round(1e3 * itl[int(0.99 * len(itl))], 1),
        "prefill_steps": steps["prefill"],
        "decode_only_steps": steps["decode_only"],
        "preemptions": preempted,
        "recomputed_tokens": recomputed,
    }


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--no-cache"]
    fc, fd = (float(args[0]), float(args[1])) if len(args) == 2 else (1.0, 1.0)
    for row, (n_req, prompt, out, chunk_s) in ROWS.items():
        print(row, replay(n_req, prompt, out, chunk_s, fc, fd, cache="--no-cache" not in sys.argv))
