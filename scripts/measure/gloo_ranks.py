"""Shared by the zero3-*.py measurements: run one configuration on gloo ranks on this CPU, and write the result."""

import json
import os
import subprocess
import sys


def run_ranks(cmd, world, port, label):
    """Run `cmd` once per rank (DeepSpeed on its CPU accelerator, one thread each); return rank 0's last JSON line."""
    procs = []
    for rank in range(world):
        env = dict(os.environ, DS_ACCELERATOR="cpu", MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
        env.update(RANK=str(rank), LOCAL_RANK=str(rank), WORLD_SIZE=str(world), OMP_NUM_THREADS="1")
        procs.append(subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    outs = [p.communicate() for p in procs]
    out, err = outs[0]
    lines = [l for l in out.splitlines() if l.startswith("{")]
    if any(p.returncode != 0 for p in procs) or not lines:
        sys.stderr.write(err[-4000:])
        raise SystemExit(f"{label} failed")
    return json.loads(lines[-1])


def library_versions():
    """The versions of the libraries the measurements run (torch, DeepSpeed, transformers, PEFT)."""
    import deepspeed
    import peft
    import torch
    import transformers

    return {
        "torch": torch.__version__,
        "deepspeed": deepspeed.__version__,
        "transformers": transformers.__version__,
        "peft": peft.__version__,
    }


def write_json(doc, out):
    """The result as indented JSON: into `out` with a final newline, or on stdout."""
    text = json.dumps(doc, indent=1)
    if out:
        with open(out, "w") as f:
            f.write(text + "\n")
    else:
        print(text)
