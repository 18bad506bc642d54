#!/usr/bin/env python3
"""
SkyPilot as the oracle for the SkyPilot tasks (sky.yaml) that `vramplan launch` writes for rented plans.

Creates a virtual environment in a scratch folder, installs the pinned SkyPilot release, and loads every
DIR/*/sky.yaml with SkyPilot's own loader (sky.Task.from_yaml: the task schema, then Resources). For each task
it records what SkyPilot read (accelerators, spot, disk, nodes, ports, cloud); it also records the keys
SkyPilot's task and resources schemas accept and the node variables it sets (sky/skylet/constants.py), so the
offline test (test/launch/skypilot.test.ts) checks every written task against them.

Usage (from the repository root):
  npx tsx scripts/check-launch-libs/sky-write.ts /tmp/vramplan-sky/folders
  npx tsx scripts/check-launch-libs/write-folders.ts /tmp/vramplan-libs/folders   # scenario plans that rent
  python3 scripts/check-launch-libs/sky.py --folders /tmp/vramplan-sky/folders \
    --folders /tmp/vramplan-libs/folders --work /tmp/vramplan-sky
Writes test/fixtures/launch-libs/skypilot.json. SkyPilot downloads its accelerator catalog at run time
(raw.githubusercontent.com); where that is out of reach, --accelerators-csv names a copy of
skypilot-org/skypilot-catalog catalogs/v8/common/accelerators.csv (--catalog-source: where it was read), and the
fixture records its names and clouds, against which the test checks the GPU table.
"""
from __future__ import annotations

import argparse
import ast
import csv
import datetime as dt
import json
import subprocess
import sys
import venv
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
FIXTURE = REPO / "test" / "fixtures" / "launch-libs" / "skypilot.json"
# The release src/core/launch/skypilot.ts follows (SKYPILOT_VERSION).
SKYPILOT_PIN = "skypilot==0.14.1"

# Runs inside the SkyPilot environment: argv[1:] are folder directories; prints one JSON object.
PROBE = r'''
import json, sys
from pathlib import Path
import sky
from sky.skylet import constants
from sky.utils import schemas

def resources_of(task):
    (r,) = list(task.resources)
    return {
        "cloud": None if r.cloud is None else str(r.cloud),
        "accelerators": r.accelerators,
        "use_spot": r.use_spot,
        "disk_size": r.disk_size,
        "ports": r.ports,
    }

tasks, errors = {}, {}
for f in sorted(f for d in sys.argv[1:] for f in Path(d).glob("*/sky.yaml")):
    try:
        t = sky.Task.from_yaml(str(f))
        tasks[f.parent.name] = {
            "num_nodes": t.num_nodes,
            "workdir": t.workdir,
            "setup": t.setup,
            "envs": t.envs,
            "resources": resources_of(t),
        }
    except Exception as e:  # a task SkyPilot refuses is the finding
        errors[f.parent.name] = f"{type(e).__name__}: {e}"
print(json.dumps({
    "skypilot": sky.__version__,
    "taskKeys": sorted(schemas.get_task_schema()["properties"].keys()),
    "resourcesKeys": sorted(schemas._get_single_resources_schema()["properties"].keys()),
    "nodeVariables": sorted([constants.SKYPILOT_NODE_RANK, constants.SKYPILOT_NODE_IPS,
                             constants.SKYPILOT_NUM_GPUS_PER_NODE, constants.SKYPILOT_NUM_NODES]),
    "tasks": tasks,
    "errors": errors,
}))
'''


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--folders", required=True, type=Path, action="append",
                    help="a directory of launch folders (repeat for more: e.g. write-folders.ts output too)")
    ap.add_argument("--work", default=Path("/tmp/vramplan-sky"), type=Path)
    ap.add_argument("--accelerators-csv", type=Path)
    ap.add_argument("--catalog-source", default="")
    args = ap.parse_args()
    env = args.work / "venv-skypilot"
    py = env / "bin" / "python"
    if not py.exists():
        venv.EnvBuilder(with_pip=True, clear=True).create(env)
    subprocess.run([str(py), "-m", "pip", "install", "-q", SKYPILOT_PIN], check=True)
    out = subprocess.run([str(py), "-c", PROBE, *map(str, args.folders)], check=True, capture_output=True,
                         text=True).stdout
    result = json.loads(out.strip().splitlines()[-1])
    result = {"checked": dt.date.today().isoformat(), "pin": SKYPILOT_PIN, **result}
    if args.accelerators_csv:
        with args.accelerators_csv.open() as f:
            rows = {r["AcceleratorName"]: ast.literal_eval(r["Clouds"]) for r in csv.DictReader(f)}
        result["catalog"] = {"source": args.catalog_source, "accelerators": rows}
    FIXTURE.write_text(json.dumps(result, indent=1, sort_keys=False) + "\n")
    print(f"{len(result['tasks'])} tasks loaded by SkyPilot {result['skypilot']}, "
          f"{len(result['errors'])} refused; wrote {FIXTURE.relative_to(REPO)}")
    for name, err in result["errors"].items():
        print(f"  {name}: {err}")
    return 1 if result["errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
