"""Host time of a coalesced ZeRO-3 all-gather's per-rank slicing, on this machine's CPU.

DeepSpeed v0.14.4 gathers a prefetch group of more than one parameter through `_all_gather_dtype`, which slices its
flat buffer once per rank, and `AllGatherCoalescedHandle.wait`, which slices each parameter's part of every rank's
partition (deepspeed/runtime/zero/partition_parameters.py). This runs those two loops as DeepSpeed writes them, on
CPU tensors (a slice is a view: it touches no device), at several rank counts, and reports this thread's CPU time
(`time.thread_time`) per slice from the growth with the rank count. The `record_stream` beside each slice in
`wait` needs a CUDA stream and is not timed here.

    python3 scripts/measure/zero3-slices.py --out calibration/measured/zero3-slices-cpu.json
"""

import argparse
import json
import os
import platform
import statistics
import time

import torch


def buffer_slices(flat_tensor, partition_sz, world_size):
    # _all_gather_dtype (partition_parameters.py, DeepSpeed v0.14.4)
    partitions = []
    for i in range(world_size):
        partitions.append(flat_tensor.narrow(0, partition_sz * i, partition_sz))
    return partitions


def param_slices(partitions, numels, part_numels, world_size):
    # AllGatherCoalescedHandle.wait's split, less its torch.cat and record_stream
    param_offset = 0
    out = []
    for ds_numel, ds_tensor_numel in zip(numels, part_numels):
        parts = []
        for rank in range(world_size):
            param_start = rank * ds_tensor_numel
            if param_start < ds_numel:
                part_to_copy = partitions[rank].narrow(0, param_offset, min(ds_numel - param_start, ds_tensor_numel))
                parts.append(part_to_copy)
        out.append(parts)
        param_offset += ds_tensor_numel
    return out


def cpu_model():
    """The CPU record zero3-host.py writes, loaded from that script beside this one (its name has a hyphen)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("zero3_host", os.path.join(os.path.dirname(__file__), "zero3-host.py"))
    host = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(host)
    return host.cpu_model()


def per_call(fn, reps):
    for _ in range(reps // 10):
        fn()
    t = time.thread_time()
    for _ in range(reps):
        fn()
    return (time.thread_time() - t) / reps


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--params", type=int, default=3, help="parameters in the coalesced group")
    ap.add_argument("--reps", type=int, default=20000)
    ap.add_argument("--trials", type=int, default=5)
    ap.add_argument("--out", default="")
    args = ap.parse_args()
    numel = 4096
    results = {}
    for world in (2, 8, 16):
        part = -(-numel // world)
        flat = torch.empty(part * args.params * world, dtype=torch.bfloat16)
        numels = [numel] * args.params
        parts = [part] * args.params
        partitions = buffer_slices(flat, part * args.params, world)
        b = [per_call(lambda: buffer_slices(flat, part * args.params, world), args.reps) for _ in range(args.trials)]
        p = [per_call(lambda: param_slices(partitions, numels, parts, world), args.reps) for _ in range(args.trials)]
        results[str(world)] = {"buffer_us": statistics.median(b) * 1e6, "params_us": statistics.median(p) * 1e6}
    slices = lambda w: w + args.params * w  # noqa: E731
    lo, hi = results["2"], results["16"]
    per_slice = (hi["buffer_us"] + hi["params_us"] - lo["buffer_us"] - lo["params_us"]) / (slices(16) - slices(2))
    doc = {
        "versions": {"python": platform.python_version(), "torch": torch.__version__},
        "cpu": cpu_model(),
        "method": __doc__.strip().splitlines()[0],
        "params": args.params,
        "reps": args.reps,
        "trials": args.trials,
        "results_us": results,
        "per_slice_us": per_slice,
    }
    text = json.dumps(doc, indent=1)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
