#!/usr/bin/env python3
"""The CPU cost of SGLang's waiting-queue rebuild after each prefill admission, timed on the CPU.

SGLang's Scheduler.get_new_batch_prefill (python/sglang/srt/managers/scheduler.py) ends every admission with

    self.waiting_queue = [x for x in self.waiting_queue if x not in set(can_run_list)]

in the sglang 0.4.3.post2 wheel (line 975) and the 0.5.5.post1 wheel (line 1837): `set(can_run_list)` is evaluated
once per waiting request, so a prefill step that admits C requests with W waiting builds W sets of C. Later releases
build it once (`can_run_set = set(can_run_list)`). `Req` (managers/schedule_batch.py) defines neither __hash__ nor
__eq__, so the set hashes by identity, as the stand-in class here does; nothing else of the engine is needed to time
the line. Times: process CPU time (time.process_time), the best of REPS runs, per waiting request, in microseconds;
then a least-squares line per waiting request: a + b x C.

Usage: python3 scripts/measure/sglang_waiting_queue_rebuild.py --out out.json
"""

import argparse
import json
import os
import platform
import time

REPS = 7
WAITING = (1000, 10000, 25000)
ADMITTED = (1, 4, 14, 32, 64)


class Req:
    """Stands in for sglang's Req: identity hash, no __eq__."""

    def __init__(self, i):
        self.rid = str(i)


def per_waiting_us(waiting, admitted):
    queue = [Req(i) for i in range(waiting)]
    can_run_list = queue[:admitted]
    best = float("inf")
    for _ in range(REPS):
        t0 = time.process_time()
        rest = [x for x in queue if x not in set(can_run_list)]
        best = min(best, time.process_time() - t0)
        assert len(rest) == waiting - admitted
    return best / waiting * 1e6


def fit(points):
    n = len(points)
    mx = sum(c for c, _ in points) / n
    my = sum(y for _, y in points) / n
    b = sum((c - mx) * (y - my) for c, y in points) / sum((c - mx) ** 2 for c, _ in points)
    return my - b * mx, b


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    results = [
        {"waiting": w, "admitted": c, "per_waiting_us": round(per_waiting_us(w, c), 4)}
        for w in WAITING
        for c in ADMITTED
    ]
    a, b = fit([(r["admitted"], r["per_waiting_us"]) for r in results])
    out = {
        "script": "scripts/measure/sglang_waiting_queue_rebuild.py",
        "what": "process CPU time per waiting request of `[x for x in waiting_queue if x not in set(can_run_list)]` "
        "(sglang 0.4.3.post2 and 0.5.5.post1 managers/scheduler.py get_new_batch_prefill) with W waiting and C admitted "
        "requests, best of the runs, in microseconds; fit: per waiting request = a + b x C",
        "engine_lines": {
            "0.4.3.post2": "python/sglang/srt/managers/scheduler.py:975-977",
            "0.5.5.post1": "python/sglang/srt/managers/scheduler.py:1837-1839",
        },
        "python": platform.python_version(),
        "cpu": platform.machine(),
        "logical_cpus": os.cpu_count(),
        "load_average_1m": round(os.getloadavg()[0], 2),
        "reps": REPS,
        "results": results,
        "fit_us": {"per_waiting": round(a, 4), "per_waiting_per_admitted": round(b, 5)},
    }
    with open(args.out, "w") as f:
        json.dump(out, f, indent=2)
        f.write("\n")


if __name__ == "__main__":
    main()
