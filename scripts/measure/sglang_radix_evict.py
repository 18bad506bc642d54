#!/usr/bin/env python3
"""SGLang 0.4.3.post2's radix-cache eviction per prefill step, timed on the CPU with the wheel's own RadixCache.

When a prefill batch's KV slots do not fit the free pool, ScheduleBatch.alloc_token_slots
(managers/schedule_batch.py) calls RadixCache.evict(num_tokens, ...) (mem_cache/radix_cache.py), which collects every
leaf of the tree (_collect_leaves: a walk of the whole tree), heapifies them by last access time (TreeNode.__lt__), and
pops leaves until num_tokens are freed, each removed by _delete_leaf (a scan of its parent's children for the node).
A burst of distinct prompts that each finish after one token leaves one leaf per prompt under the root, so once the
pool is full every prefill step pays that walk over every cached prompt. This times evict(chunk tokens) on a tree of M
distinct prompts (random token ids, seeded) and the insert a finished request's cache_finished_req does.

The wheel's radix_cache.py is imported from --sglang (an unpacked sglang 0.4.3.post2 wheel). torch and the memory-pool
module are stubbed: the tree's values are Python lists of slot indices rather than tensors (evict, _delete_leaf and
insert only take len() and slices of them), so a tensor's own slicing cost is not counted: a floor.
Times: process CPU time (time.process_time), the median of the timed calls, in milliseconds.

Usage: python3 scripts/measure/sglang_radix_evict.py --sglang <unpacked wheel dir> --out out.json
"""

import argparse
import json
import os
import platform
import random
import statistics
import sys
import time
import types

PROMPT = 600
CHUNK = 8192
TREES = (1000, 4000, 9000)
CALLS = 15


def load_radix_cache(sglang_dir):
    """Loads mem_cache/base_prefix_cache.py and radix_cache.py from the wheel by path, without sglang's __init__."""
    import importlib.util

    if "torch" not in sys.modules:
        sys.modules["torch"] = types.ModuleType("torch")  # only type hints and match_prefix use it; not timed
    for name in ("sglang", "sglang.srt", "sglang.srt.mem_cache"):
        sys.modules.setdefault(name, types.ModuleType(name))
    pool = types.ModuleType("sglang.srt.mem_cache.memory_pool")
    pool.BaseTokenToKVPool = object
    pool.ReqToTokenPool = object
    sys.modules["sglang.srt.mem_cache.memory_pool"] = pool
    mods = {}
    for name in ("base_prefix_cache", "radix_cache"):
        full = "sglang.srt.mem_cache." + name
        path = os.path.join(sglang_dir, "sglang", "srt", "mem_cache", name + ".py")
        spec = importlib.util.spec_from_file_location(full, path)
        mods[name] = importlib.util.module_from_spec(spec)
        sys.modules[full] = mods[name]
        spec.loader.exec_module(mods[name])
    return mods["radix_cache"].RadixCache


def timed(fn):
    t0 = time.process_time()
    fn()
    return (time.process_time() - t0) * 1e3


def measure(RadixCache, leaves, rng):
    cache = RadixCache(None, None, False)
    prompts = [[rng.randrange(151643) for _ in range(PROMPT)] for _ in range(leaves)]
    for i, p in enumerate(prompts):
        cache.insert(p, list(range(i * PROMPT, (i + 1) * PROMPT)))
    evict_ms, insert_ms, evicted = [], [], []
    for _ in range(CALLS):
        freed = []
        evict_ms.append(timed(lambda: cache.evict(CHUNK, freed.append)))
        evicted.append(len(freed))
        # put back as many new prompts as were evicted, as the step's finished requests do
        for _ in range(len(freed)):
            p = [rng.randrange(151643) for _ in range(PROMPT)]
            insert_ms.append(timed(lambda: cache.insert(p, list(range(PROMPT)))))
    return {
        "leaves": leaves,
        "evict_ms": round(statistics.median(evict_ms), 3),
        "insert_ms": round(statistics.median(insert_ms), 4),
        "evicted_per_call": statistics.median(evicted),
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sglang", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    RadixCache = load_radix_cache(args.sglang)
    rng = random.Random(0)
    results = [measure(RadixCache, m, rng) for m in TREES]
    out = {
        "script": "scripts/measure/sglang_radix_evict.py",
        "what": "process CPU time of sglang 0.4.3.post2's RadixCache.evict(8192 tokens) on a tree of M distinct "
        "600-token prompts (the walk of every leaf, the heapify, the pops and _delete_leaf's scans of the root's "
        "children), and of one finished prompt's insert; medians in ms; values as lists (tensor slicing not counted)",
        "engine_lines": {"0.4.3.post2": "python/sglang/srt/mem_cache/radix_cache.py evict, _collect_leaves, _delete_leaf"},
        "python": platform.python_version(),
        "cpu": platform.machine(),
        "logical_cpus": os.cpu_count(),
        "load_average_1m": round(os.getloadavg()[0], 2),
        "prompt_tokens": PROMPT,
        "evict_tokens": CHUNK,
        "calls": CALLS,
        "results": results,
    }
    with open(args.out, "w") as f:
        json.dump(out, f, indent=2)
        f.write("\n")


if __name__ == "__main__":
    main()
