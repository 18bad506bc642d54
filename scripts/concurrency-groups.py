# Signed errors of the vLLM and SGLang serving rows by requests in flight, with and without chosen sources, and each
# concurrency sweep's step growth per added request, measured against estimated.
#
# Run from the repository root after a build:
#   node dist/cli.js validate --throughput --json > /tmp/vt.json
#   python3 scripts/concurrency-groups.py /tmp/vt.json [--exclude sglcookbook,gpuconc,llmd1233,llmd139,recipes431]
# Rows are grouped by engine (the case's `framework`), scored metric (`tpot_s`, `output_tokens_per_s`) and band of
# `batch` (1, 2-8, 9-32, 33-128, >128); out-of-sample rows only. A sweep is the rows whose ids differ only in their
# trailing `-c<N>`; its slope is the TPOT's growth a request between neighbouring concurrencies (measured / estimated,
# µs). Error > 0: the estimate is faster than measured (docs/time-model.md "Moderate concurrency: by source").
import json
import re
import statistics
import sys

METRICS = ("tpot_s", "output_tokens_per_s")


def band(b):
    return "1" if b <= 1 else "2-8" if b <= 8 else "9-32" if b <= 32 else "33-128" if b <= 128 else ">128"


def main():
    args = sys.argv[1:]
    exclude = ()
    if "--exclude" in args:
        i = args.index("--exclude")
        exclude = tuple(s for s in args[i + 1].split(",") if s)
        del args[i : i + 2]
    rows = json.load(open(args[0] if args else "/tmp/vt.json"))["rows"]
    cases = {c["id"]: c for c in json.load(open("calibration/throughput.json"))}
    groups, sweeps = {}, {}
    for r in rows:
        c = cases[r["id"]]
        if r["inSample"] or c.get("framework") not in ("vllm", "sglang") or c.get("metric") not in METRICS:
            continue
        if not c.get("batch") or r["id"].startswith(exclude):
            continue
        key = (c["framework"], c["metric"], band(c["batch"]))
        groups.setdefault(key, []).append(r["error"] * 100)
        if c["metric"] == "tpot_s":
            sweeps.setdefault(re.sub(r"-c\d+$", "", r["id"]), []).append(
                (c["batch"], r["measured"] * 1e3, r["estimated"] * 1e3)
            )
    print("engine  metric               band    rows  signed median %  errors %")
    for k in sorted(groups):
        e = sorted(groups[k])
        cells = ", ".join(f"{x:+.1f}" for x in e)
        print(f"{k[0]:7s} {k[1]:20s} {k[2]:7s} {len(e):4d}  {statistics.median(e):+14.1f}  {cells}")
    print("\nsweep: in flight: measured / estimated TPOT ms; slope µs a request, measured / estimated")
    for name, pts in sorted(sweeps.items()):
        if len(pts) < 2:
            continue
        pts.sort()
        cells = " | ".join(f"{b}: {m:.2f}/{e:.2f}" for b, m, e in pts)
        slopes = ", ".join(
            f"{(m1 - m0) / (b1 - b0) * 1e3:.0f}/{(e1 - e0) / (b1 - b0) * 1e3:.0f}"
            for (b0, m0, e0), (b1, m1, e1) in zip(pts, pts[1:])
        )
        print(f"{name}: {cells}\n    slope {slopes}")


if __name__ == "__main__":
    main()
