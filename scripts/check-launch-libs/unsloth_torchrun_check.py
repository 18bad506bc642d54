"""
Unsloth's own launch code on the env that launch writes for several GPUs (no GPU, no torch needed):

  fsdp2_launch.py   unsloth_fsdp2_native_requested() and fsdp_version_from_env() under the torchrun block's env
                    with WORLD_SIZE = nproc_per_node x nnodes: native FSDP2 exactly when UNSLOTH_FSDP2 is set
                    (torch-free by design: "FSDP launch detection from the launcher env only").
  fsdp2_perf.py     plan_fsdp2_layout() on a stand-in model (frozen base + trainable adapters) with a minimal torch
                    stand-in: UNSLOTH_FSDP2_LAYOUT=fit gives frozen weights replicated and reshard_after_forward
                    False (the plan's --zero 2), sharded gives neither (--zero 3). The layout code reads only
                    parameter sizes and, when forced, no device.

Usage: unsloth_torchrun_check.py UNSLOTH_PACKAGE_DIR FOLDER...   (UNSLOTH_PACKAGE_DIR: an unpacked unsloth
wheel's `unsloth/`, e.g. from `pip download unsloth==2026.10.9 --no-deps`). Prints one line per folder; exit 1 on
a mismatch.
"""
from __future__ import annotations

import importlib.util
import json
import os
import sys
import types
from pathlib import Path

ZERO_OF_LAYOUT = {"fit": 2, "sharded": 3}


def load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def torch_stand_in() -> None:
    """Just what fsdp2_perf.py touches at import and in a forced layout."""
    if "torch" in sys.modules:
        return
    t = types.ModuleType("torch")
    t.device = lambda d: types.SimpleNamespace(type=str(d).split(":")[0], index=None)
    t.cuda = types.SimpleNamespace(current_device=lambda: 0)
    t._C = types.SimpleNamespace()
    sys.modules["torch"] = t


class Param:
    def __init__(self, n: int, size: int, trainable: bool):
        self.n, self.size, self.requires_grad = n, size, trainable

    def numel(self):
        return self.n

    def element_size(self):
        return self.size

    def is_floating_point(self):
        return True


class Model:
    def parameters(self):
        return [Param(1000, 2, False), Param(1000, 2, False), Param(10, 4, True)]


def main() -> int:
    pkg = Path(sys.argv[1])
    launch = load(pkg / "fsdp2_launch.py", "unsloth_fsdp2_launch")
    torch_stand_in()
    perf = load(pkg / "models" / "fsdp2_perf.py", "unsloth_fsdp2_perf")
    bad = 0
    for folder in map(Path, sys.argv[2:]):
        args = json.loads((folder / "unsloth-args.json").read_text())
        block = args.get("torchrun")
        if not block:
            print(f"{folder.name}: one GPU (no torchrun block)")
            continue
        saved = dict(os.environ)
        try:
            os.environ["WORLD_SIZE"] = str(block["nproc_per_node"] * block["nnodes"])
            os.environ.update(block["env"])
            native = launch.unsloth_fsdp2_native_requested()
            layout = block["env"].get("UNSLOTH_FSDP2_LAYOUT")
            ok = native == bool(block["env"].get("UNSLOTH_FSDP2")) and launch.fsdp_version_from_env() == (2 if native else 0)
            got = "DDP"
            if native:
                lay = perf.plan_fsdp2_layout(Model())
                want_fit = ZERO_OF_LAYOUT[layout] == 2
                ok = ok and lay.fits == want_fit and lay.replicate_frozen == want_fit
                ok = ok and lay.reshard_after_forward == (not want_fit)
                got = f"FSDP2 fits={lay.fits} replicate_frozen={lay.replicate_frozen} reshard_after_forward={lay.reshard_after_forward}"
            print(f"{folder.name}: {'ok' if ok else 'MISMATCH'} ({got})")
            bad += not ok
        finally:
            os.environ.clear()
            os.environ.update(saved)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
