/**
 * vramplan_probe.py, written into every launch folder: the run probe that records measured.json for
 * `vramplan check` (docs/check.md). Python 3.8+ standard library only; torch and transformers are imported
 * only inside attach_probe, which runs in the training process that already imports them.
 *
 * Cost to the run: `run` and `serve` are separate processes (the run only gains a pipe to copy its output
 * through, and nvidia-smi is queried every SAMPLE_SECONDS from the probe process); attach_probe adds one
 * time.perf_counter() call per optimizer step and reads torch's peak counters once, at the end of training
 * (torch.cuda.max_memory_allocated / max_memory_reserved are host-side counters of the caching allocator:
 * https://pytorch.org/docs/stable/generated/torch.cuda.max_memory_allocated.html), so it never synchronizes
 * the GPU. A perf_counter call costs well under a microsecond against steps of tens of milliseconds or more.
 */
export const PROBE_FILE = 'vramplan_probe.py';

export const PROBE_PY = String.raw`"""Run probe written by vramplan: records what a launched run used and how fast it went, into
measured.json beside vramplan-plan.json, for 'vramplan check <this folder>'. It reads counters only;
the run's command, arguments, environment and outputs are unchanged.

  python3 vramplan_probe.py run -- bash launch.sh     wrap any run: its output is also copied to run.log,
                                                      and the GPUs' used memory is sampled (device peak)
  python3 vramplan_probe.py serve --ports 8000        beside a server under load: scrapes its /metrics
  attach_probe(trainer)                               in a Trainer script: per-rank torch peaks, step times
"""
import argparse
import datetime
import importlib.metadata
import json
import os
import re
import statistics
import subprocess
import sys
import threading
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
MEASURED = os.path.join(HERE, "measured.json")
SCHEMA = "vramplan-measured/1"
# Seconds between samples of the GPUs' used memory: one nvidia-smi query each, in this process, not the run's.
SAMPLE_SECONDS = 2.0


def now():
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def pinned_versions():
    """Installed versions of the packages requirements.txt pins (name -> version, or None if absent)."""
    out = {}
    try:
        with open(os.path.join(HERE, "requirements.txt")) as f:
            lines = f.read().splitlines()
    except OSError:
        return out
    for line in lines:
        m = re.match(r"^\s*([A-Za-z0-9_.\-]+)(\[[^\]]*\])?\s*==", line)
        if not m:
            continue
        try:
            out[m.group(1)] = importlib.metadata.version(m.group(1))
        except importlib.metadata.PackageNotFoundError:
            out[m.group(1)] = None
    return out


def query_gpus():
    """[{index, name, usedBytes, totalBytes}] from nvidia-smi, or [] where it is not there."""
    try:
        text = subprocess.run(
            ["nvidia-smi", "--query-gpu=index,name,memory.used,memory.total", "--format=csv,noheader,nounits"],
            capture_output=True, text=True, timeout=10, check=True,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    gpus = []
    for line in text.splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) == 4 and parts[0].isdigit():
            mib = 1024 * 1024  # nvidia-smi's nounits memory is MiB
            gpus.append({"index": int(parts[0]), "name": parts[1],
                         "usedBytes": int(float(parts[2]) * mib), "totalBytes": int(float(parts[3]) * mib)})
    return gpus


class DeviceSampler:
    """The GPUs' used memory: before the run (other processes' share) and its peak while the run lasts."""

    def __init__(self, before_run=True):
        # Started beside a running server, the memory in use is the server's own: no baseline then.
        self.gpus = {g["index"]: {"index": g["index"], "name": g["name"], "totalBytes": g["totalBytes"],
                                  "baselineBytes": g["usedBytes"] if before_run else 0,
                                  "peakBytes": g["usedBytes"]}
                     for g in query_gpus()}
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.loop, daemon=True)

    def loop(self):
        while not self.stop.wait(SAMPLE_SECONDS):
            for g in query_gpus():
                seen = self.gpus.setdefault(g["index"], {"index": g["index"], "name": g["name"],
                                                         "totalBytes": g["totalBytes"], "baselineBytes": 0,
                                                         "peakBytes": 0})
                seen["peakBytes"] = max(seen["peakBytes"], g["usedBytes"])

    def start(self):
        self.thread.start()

    def finish(self):
        self.stop.set()
        self.thread.join(timeout=15)
        return [self.gpus[i] for i in sorted(self.gpus)]


def visible(gpus):
    """The GPUs CUDA_VISIBLE_DEVICES gives the run (all of them when it is unset)."""
    spec = os.environ.get("CUDA_VISIBLE_DEVICES")
    if not spec:
        return gpus
    wanted = {int(x) for x in spec.split(",") if x.strip().isdigit()}
    return [g for g in gpus if g["index"] in wanted] or gpus


def write_measured(record):
    tmp = MEASURED + ".tmp"
    with open(tmp, "w") as f:
        json.dump(record, f, indent=2)
        f.write("\n")
    os.replace(tmp, MEASURED)
    print(f"vramplan probe: wrote {MEASURED}; next: vramplan check {HERE}", file=sys.stderr)


def copy_stream(src, dst, log, lock):
    for line in iter(src.readline, b""):
        dst.write(line)
        dst.flush()
        with lock:
            log.write(line)


def run(command):
    """Run 'command' as is; copy its stdout and stderr to run.log as they pass; record the device peak."""
    started = now()
    sampler = DeviceSampler()
    sampler.start()
    lock = threading.Lock()
    with open(os.path.join(HERE, "run.log"), "wb") as log:
        proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        copies = [threading.Thread(target=copy_stream, args=(proc.stdout, sys.stdout.buffer, log, lock)),
                  threading.Thread(target=copy_stream, args=(proc.stderr, sys.stderr.buffer, log, lock))]
        for t in copies:
            t.start()
        try:
            code = proc.wait()
        except KeyboardInterrupt:
            code = proc.wait()
        for t in copies:
            t.join()
    write_measured({"schema": SCHEMA, "probe": "run", "startedAt": started, "endedAt": now(),
                    "command": command, "exitCode": code, "gpus": visible(sampler.finish()),
                    "versions": pinned_versions(), "log": "run.log"})
    return code


def serve(ports, seconds, interval):
    """Scrape each server's Prometheus /metrics every 'interval' s into metrics.prom while load runs."""
    started = now()
    sampler = DeviceSampler(before_run=False)
    sampler.start()
    end = time.time() + seconds
    with open(os.path.join(HERE, "metrics.prom"), "w") as out:
        try:
            while True:
                for port in ports:
                    try:
                        with urllib.request.urlopen(f"http://localhost:{port}/metrics", timeout=10) as r:
                            text = r.read().decode("utf-8", "replace")
                    except OSError as e:
                        print(f"vramplan probe: port {port}: {e}", file=sys.stderr)
                        continue
                    out.write(f"# vramplan-scrape port={port} t={time.time():.3f}\n{text}\n")
                    out.flush()
                if time.time() >= end:
                    break
                time.sleep(interval)
        except KeyboardInterrupt:
            pass
    write_measured({"schema": SCHEMA, "probe": "serve", "startedAt": started, "endedAt": now(),
                    "ports": ports, "gpus": visible(sampler.finish()), "versions": pinned_versions(),
                    "metrics": "metrics.prom"})
    return 0


def attach_probe(trainer):
    """Add a callback to a transformers Trainer (TRL, axolotl and Unsloth trainers are ones) that writes
    measured.rank<N>.json at the end of training: torch's allocated and reserved peaks on this rank, and
    the median time between optimizer steps. It reads host-side counters; it never synchronizes the GPU."""
    import torch
    from transformers import TrainerCallback

    class VramplanProbe(TrainerCallback):
        def __init__(self):
            self.ends = []

        def on_step_end(self, args, state, control, **kwargs):
            # Called once per optimizer step, after it (gradient accumulation included).
            self.ends.append(time.perf_counter())

        def on_train_end(self, args, state, control, **kwargs):
            # Intervals between optimizer steps; the first step (warm-up, compilation) is left out.
            gaps = [b - a for a, b in zip(self.ends, self.ends[1:])]
            cuda = torch.cuda.is_available()
            rank = int(os.environ.get("RANK", "0"))
            record = {
                "schema": SCHEMA, "probe": "trainer-callback", "rank": rank,
                "localRank": int(os.environ.get("LOCAL_RANK", "0")),
                "worldSize": int(os.environ.get("WORLD_SIZE", "1")),
                "gpuName": torch.cuda.get_device_name() if cuda else None,
                "allocatedBytes": torch.cuda.max_memory_allocated() if cuda else None,
                "reservedBytes": torch.cuda.max_memory_reserved() if cuda else None,
                "steps": len(self.ends),
                "stepSeconds": statistics.median(gaps) if gaps else None,
                "tokensSeen": getattr(state, "num_input_tokens_seen", 0) or None,
                "versions": pinned_versions(),
            }
            with open(os.path.join(HERE, f"measured.rank{rank}.json"), "w") as f:
                json.dump(record, f, indent=2)
                f.write("\n")

    trainer.add_callback(VramplanProbe())
    return trainer


def main(argv):
    parser = argparse.ArgumentParser(prog="vramplan_probe.py", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="mode", required=True)
    r = sub.add_parser("run", help="run a command unchanged and record it")
    r.add_argument("command", nargs=argparse.REMAINDER)
    s = sub.add_parser("serve", help="scrape servers' /metrics while load runs")
    s.add_argument("--ports", type=int, nargs="+", required=True)
    s.add_argument("--seconds", type=float, default=120.0)
    s.add_argument("--interval", type=float, default=5.0)
    a = parser.parse_args(argv)
    if a.mode == "run":
        command = a.command[1:] if a.command[:1] == ["--"] else a.command
        if not command:
            parser.error("run: give the command after --")
        return run(command)
    return serve(a.ports, a.seconds, a.interval)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
`;

/** The lines a Trainer script runs before trainer.train(): the probe's callback (attach_probe above). */
export const ATTACH_PROBE_PY = `from vramplan_probe import attach_probe  # torch peaks and step times for 'vramplan check' (reads counters only)
attach_probe(trainer)
`;
