#!/usr/bin/env python3
"""
The real libraries as the oracle for vramplan's launch folders.

For every environment a folder names (each requirements*.txt, grouped by identical pins) this creates a
virtual environment in a scratch folder and runs `pip install --dry-run --report` on it: the resolver is
the dependency check. For the environments it can install on a CPU-only machine (--construct, the Hugging
Face stack by default) it installs the pins and builds every written config with the library's own code:
TRL's SFTConfig/DPOConfig/GRPOConfig/... from hf-args.json, PEFT's LoraConfig, transformers'
BitsAndBytesConfig, Accelerate's config loader and launch parser on accelerate.yaml, DeepSpeed's config
classes on deepspeed.json. Each other engine's files are read by the engine itself in a venv of its own pins
(engine_checks.py: torchtitan, torchtune, axolotl, LitGPT, vLLM, SGLang, Unsloth's TRL/PEFT classes; llama-server's
option table needs no install). It records what the offline test needs as fixtures (each library's accepted keys
and options at the pinned version, every resolved set) and writes a dated report.

Usage (from the repository root):
  npx tsx scripts/check-launch-libs/write-folders.ts /tmp/vramplan-libs/folders
  python3 scripts/check-launch-libs/check.py --folders /tmp/vramplan-libs/folders --work /tmp/vramplan-libs
Options: --construct hf (environments to install and construct; 'none' for resolution only),
  --jobs N (resolutions at once), --reuse (keep resolutions already in the fixture for unchanged pin sets),
  --hf-venv, --titan-venv, --tune-venv, --axolotl-venv, --litgpt-venv, --vllm-venv, --sglang-venv, --unsloth-venv
  (installed environments; an engine without one reuses its last result in WORK while its files are unchanged).
"""
from __future__ import annotations

import argparse
import concurrent.futures as cf
import datetime as dt
import hashlib
import json
import os
import subprocess
import sys
import venv
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "test" / "fixtures" / "launch-libs"
CONSTRUCT_PY = Path(__file__).with_name("construct.py")
sys.path.insert(0, str(Path(__file__).parent))
import engine_checks  # noqa: E402  (a sibling module)

# The engines check.py checks beside the Hugging Face construction, and the option naming each one's venv.
ENGINES = {"torchtitan": "titan_venv", "torchtune": "tune_venv", "axolotl": "axolotl_venv",
           "litgpt": "litgpt_venv", "vllm": "vllm_venv", "sglang": "sglang_venv", "llama.cpp": None,
           "unsloth": "unsloth_venv"}


def pins_of(path: Path) -> list[str]:
    """The requirement lines of a requirements file (comments and blanks dropped), in file order."""
    out = []
    for line in path.read_text().splitlines():
        s = line.split("#", 1)[0].strip()
        if s:
            out.append(s)
    return out


def env_key(pins: list[str]) -> str:
    return hashlib.sha256("\n".join(sorted(p.lower() for p in pins)).encode()).hexdigest()[:16]


def kind_of(pins: list[str]) -> str:
    """The environment's engine, from the package that defines it."""
    names = [p.split("==")[0].split("[")[0].lower() for p in pins]
    for k in ("axolotl", "unsloth", "torchtune", "torchtitan", "litgpt", "sglang", "gguf", "vllm"):
        if k in names:
            if k == "vllm" and "trl" in names:
                return "hf-trl+vllm"
            return {"gguf": "llama.cpp"}[k] if k == "gguf" else k
    if "trl" in names:
        return "hf"
    if "transformers" in names:
        return "hf-generate"
    return "other"


def environments(folders: Path) -> dict[str, dict]:
    envs: dict[str, dict] = {}
    for req in sorted(folders.glob("*/requirements*.txt")):
        pins = pins_of(req)
        key = env_key(pins)
        e = envs.setdefault(key, {"key": key, "pins": pins, "kind": kind_of(pins), "files": []})
        e["files"].append(f"{req.parent.name}/{req.name}")
    return envs


def make_venv(path: Path) -> Path:
    py = path / "bin" / "python"
    if not py.exists():
        venv.EnvBuilder(with_pip=True, clear=True).create(path)
        # pip >= 23 reads wheel metadata from the index (PEP 658): the dry run downloads no wheels.
        subprocess.run([str(py), "-m", "pip", "install", "-q", "--upgrade", "pip"], check=False)
    return py


def requirement(pin: str) -> tuple[str, frozenset, str]:
    """name, extras, version of an exact pin `name[extra]==version`."""
    spec, _, version = pin.partition("==")
    name, _, extras = spec.partition("[")
    return name.strip().lower().replace("_", "-"), frozenset(x.strip() for x in extras.rstrip("]").split(",") if x.strip()), version.strip()


def implied_by(small: list[str], big: list[str]) -> bool:
    """Every pin of `small` is in `big` at the same version with no more extras: a resolution of `big`,
    restricted to what `small` needs, resolves `small` (exact pins; extras only add requirements)."""
    have = {n: (x, v) for n, x, v in map(requirement, big)}
    for n, x, v in map(requirement, small):
        if n not in have or have[n][1] != v or not x <= have[n][0]:
            return False
    return True


def resolve(e: dict, work: Path) -> dict:
    """pip's resolver on the pin set, in a fresh virtual environment of its own (metadata only)."""
    d = work / "envs" / e["key"]
    d.mkdir(parents=True, exist_ok=True)
    (d / "requirements.txt").write_text("\n".join(e["pins"]) + "\n")
    report = d / "report.json"
    out = {"key": e["key"], "kind": e["kind"], "pins": e["pins"], "files": e["files"]}
    if report.exists():  # resolved in an earlier run of this work folder (same pins: same key)
        r = subprocess.CompletedProcess([], 0, "", "")
    else:
        py = make_venv(d / "venv")
        r = subprocess.run(
            [str(py), "-m", "pip", "install", "--dry-run", "--ignore-installed", "--quiet",
             "--report", str(report), "-r", str(d / "requirements.txt")],
            capture_output=True, text=True,
        )
    if r.returncode == 0 and report.exists():
        rep = json.loads(report.read_text())
        out["status"] = "resolved"
        out["resolved"] = {
            i["metadata"]["name"].lower(): i["metadata"]["version"] for i in rep.get("install", [])
        }
    else:
        out["status"] = "conflict"
        err = [l for l in (r.stderr or r.stdout).splitlines() if l.strip()]
        out["error"] = "\n".join(err[-6:])
    return out


def construct(hf_python: Path, folders: Path, work: Path) -> dict:
    """Runs construct.py in the installed Hugging Face environment: per folder, each file built by its library."""
    out = work / "constructed.json"
    r = subprocess.run([str(hf_python), str(CONSTRUCT_PY), str(folders), str(out)], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"construct.py failed:\n{r.stderr[-4000:]}")
    return json.loads(out.read_text())


def folder_summary(envs: list[dict], checks: list[dict]) -> list[str]:
    """One row per folder: do its requirement sets resolve, and which files did the libraries read, how many refused."""
    folders: dict[str, dict] = {}
    for e in envs:
        for f in e["files"]:
            d = folders.setdefault(f.split("/")[0], {"sets": [], "files": set(), "failed": 0})
            d["sets"].append(e["status"] == "resolved")
    for c in checks:
        d = folders.setdefault(c["folder"], {"sets": [], "files": set(), "failed": 0})
        d["files"].update(f.split(" ")[0] for f in c["file"].split(" + "))
        d["failed"] += 0 if c["ok"] else 1
    out = ["", "## Per folder", "",
           "| folder | requirement sets resolve | files the libraries read | refused |", "|---|---|---|---|"]
    for name, d in sorted(folders.items()):
        res = "yes" if d["sets"] and all(d["sets"]) else "**no**" if d["sets"] else "none"
        out.append(f"| {name} | {res} | {', '.join(sorted(d['files'])) or '-'} | {d['failed']} |")
    return out


def report_md(date: str, envs: list[dict], built: dict | None, construct_env: str | None) -> str:
    lines = [
        f"# Launch folders against the real libraries ({date})",
        "",
        "Written by `scripts/check-launch-libs/check.py` over the folders of",
        "`scripts/check-launch-libs/folders.ts` (the first plan of every shipped scenario and one plan per engine and",
        "job kind). Resolution: `pip install --dry-run --report` on each distinct requirements file, in a fresh",
        "virtual environment (Python " + sys.version.split()[0] + ", Linux x86-64, CPU only).",
        "",
        "## Resolution",
        "",
        "A set whose every pin another resolved set holds at the same version (with no more extras) resolves",
        "within it: the larger set's resolution, restricted to what the smaller needs, is one for the smaller.",
        "Each such row names the set it resolved within (`key`); `--all` resolves every set on its own.",
        "",
        "| environment | key | pins | resolves | folders |",
        "|---|---|---|---|---|",
    ]
    for e in sorted(envs, key=lambda e: (e["kind"], e["key"])):
        if e["status"] == "resolved":
            status = f"yes (within {e['implied_by']})" if e.get("implied_by") else "yes"
        else:
            status = "**no**: " + (e.get("error", "").splitlines() or [""])[-1][:200]
        folders = sorted({f.split("/")[0] for f in e["files"]})
        lines.append(f"| {e['kind']} | {e['key']} | {' '.join(e['pins'])} | {status} | {', '.join(folders)} |")
    summary_at = len(lines)
    lines += [
        "",
        "## Pins against today's releases (PyPI, 2026-12-06)",
        "",
        "No pin moved. Newer than a pin on PyPI:",
        "",
        "| package | pinned | newest | kept because |",
        "|---|---|---|---|",
        "| vllm | 0.33.0 | 0.34.0 | its wheel's Requires-Dist flashinfer-python==0.7.3 is not on PyPI (0.7.2.post1 and 0.7.4 are): pip cannot resolve vllm==0.34.0 |",
        "| accelerate | 1.15.0 | 1.16.0 | every written accelerate.yaml loads and its launcher takes every key (its parser drops fp8_opt_level, never written), but utils/fsdp_utils.py changed where the FSDP rules cite it (FSDP2 optimizer state through _unwrap_optimizer, rank 0's full-state-dict broadcast rewritten): rule fsdp-offload-sharded-save (<=1.15.0) not re-read |",
        "| transformers | 5.14.1 | 5.25.0 | below |",
        "| trl | 1.9.0 | 1.16.0 | below |",
        "| datasets | 4.8.4 | 5.2.0 | below |",
        "| kernels | 0.15.2 | 0.19.1 | below |",
        "| lightning | 2.6.5 | 2.6.6 | below (LitGPT) |",
        "",
        "Already the newest on PyPI: sglang 0.5.23, peft 0.21.2, deepspeed 0.19.8, bitsandbytes 0.50.2, axolotl 0.19.0,",
        "liger-kernel 0.8.5, litgpt 0.5.13, torchtune 0.6.1, torchtitan 0.3.0 (torch 2.15.0, torchao 0.18.0), unsloth and",
        "unsloth_zoo 2026.10.9, llama-cpp-python 0.3.36, gguf 0.19.0, huggingface-hub 2.4.0, vllm-bnb-plugin 0.0.3.",
        "",
        "## Held below the newest release, and why",
        "",
        "- transformers 5.14.1 and TRL 1.9.0 (as read on 2026-12-02): TRL 1.16.0 with transformers 5.24.0 builds every",
        "  written config too, but the trainer behaviour vramplan encodes was read at these tags. TRL 1.16.0 differs where",
        "  it matters: dpo_trainer.py and grpo_trainer.py carry a new refusal of a PEFT adapter on lm_head (\"the",
        "  log-probabilities are computed from lm_head.weight directly\"), dpo_trainer.py no longer has 1.9.0's refusal of",
        "  the Liger DPO loss with precompute_ref_log_probs, GRPOConfig defaults max_completion_length 512 (was 256) and",
        "  use_bias_correction_kl true, SFT/DPO/GRPO pad_to_multiple_of 'auto'; TrainingArguments drops warmup_ratio and",
        "  logging_dir (neither written). TRL 1.16.0's vllm extra is vllm>=0.22.0,<=0.31.0, and vllm 0.31.0 requires",
        "  transformers>=5.10.4,<5.18.0: its GRPO rollout set would be torch 2.13.0, vllm 0.31.0, transformers 5.17.0.",
        "- datasets 4.8.4 (5.2.0): train.py's load_dataset is not run here; axolotl 0.19.0 pins 4.8.4 too.",
        "- kernels 0.15.2: the hub FlashAttention build lookup is not run without a GPU; the kernels-hub",
        "  FlashAttention builds stop at torch 2.12, which also holds torch at 2.12.1.",
        "- axolotl 0.19.0 requires torch>=2.11.0,<=2.13.0 and pins transformers 5.16.1, trl 1.9.0, peft 0.20.0,",
        "  accelerate 1.13.0, bitsandbytes 0.50.2, datasets 4.8.4, kernels>=0.16,<0.17 (its wheel's Requires-Dist): its",
        "  folders install it apart (requirements-axolotl.txt).",
        "- unsloth 2026.10.9 requires transformers<=5.17.0 and trl<=1.15.0; its launcher's keys were read at TRL",
        "  0.24.0. vllm 0.19.1 (fast_inference) requires torch==2.10.0 and excludes transformers 5.5.0, so the GRPO",
        "  environment pins transformers 5.5.4.",
        "- torchtune 0.6.1 (its last release) imports torchao APIs removed in torchao 0.16: torch 2.6.0 and torchao",
        "  0.10.0, the versions its CI ran.",
        "- litgpt 0.5.13's extra requires bitsandbytes>=0.45.2,<0.50 (0.49.2) and jsonargparse<=4.41; torch 2.8.0 is",
        "  its GPU CI's, lightning 2.6.5 the newest release before it (2.6.6 on PyPI).",
        "- vllm 0.33.0 requires torch==2.14.0 and transformers>=5.16.1,<5.21.0; it carries no bitsandbytes",
        "  quantization, which vllm-bnb-plugin 0.0.3 registers (bitsandbytes>=0.48.1).",
        "- llama.cpp: llama-server comes from the floating `server-cuda` image; its options are checked against the",
        "  llama.cpp source PyPI's llama-cpp-python vendors (named in each row), the memory rules cite 25d5b0c5.",
        "",
        "## Where a CPU stops",
        "",
        "- vLLM: the CLI parser, validate_parsed_serve_args, AsyncEngineArgs.from_cli_args, CacheConfig and the",
        "  quantization registry run; SpeculativeConfig (--speculative-config), the LoRA config and the model config",
        "  need the checkpoint's config.json from the Hub and the CUDA platform, and are not built.",
        "- SGLang: prepare_server_args (argparse, ServerArgs.__post_init__) runs; the scheduler, the speculative worker",
        "  and the LoRA manager start with the model on a GPU.",
        "- torchtitan: the FP8/MX converters ask the device's compute capability (float8.py has_cuda_capability(8, 9));",
        "  the check answers as the planned GPU would, so the converter is built and the linears are not swapped.",
        "- Unsloth: FastLanguageModel.from_pretrained (unsloth_tiled_mlp, the 4-bit load) needs a CUDA device.",
        "- transformers generate: generate.py's from_pretrained + load_adapter ran on a tiny Llama and a saved PEFT",
        "  adapter on the CPU (device_map cpu); generate itself was not run on the planned model.",
        "- torchtune: `tune validate` instantiates no model; torchao's AdamW8bit over FSDP2 DTensors needs the GPUs.",
    ]
    if built is not None:
        lines += [
            "",
            f"## Construction with the libraries' own classes ({construct_env})",
            "",
            "Versions: " + ", ".join(f"{k} {v}" for k, v in sorted(built["versions"].items())) + ".",
            "",
            "| folder | file | built with | result |",
            "|---|---|---|---|",
        ]
        lines[summary_at:summary_at] = folder_summary(envs, built["checks"])
        for row in built["checks"]:
            res = "ok" if row["ok"] else "**failed**: " + row["error"][:200].replace("|", "/").replace("\n", " ")
            lines.append(f"| {row['folder']} | {row['file']} | {row['with']} | {res} |")
        skipped = built.get("skipped", [])
        if skipped:
            lines += ["", "Not constructed here:", ""]
            lines += [f"- {s}" for s in skipped]
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--folders", required=True, type=Path)
    ap.add_argument("--work", required=True, type=Path)
    ap.add_argument("--construct", default="hf", choices=["hf", "none"])
    ap.add_argument("--hf-venv", type=Path, help="an existing venv with the HF pins installed (else made)")
    ap.add_argument("--titan-venv", type=Path, help="a venv with the torchtitan pins installed")
    ap.add_argument("--tune-venv", type=Path, help="a venv with the torchtune pins installed")
    ap.add_argument("--axolotl-venv", type=Path, help="a venv with requirements-axolotl.txt installed")
    ap.add_argument("--litgpt-venv", type=Path, help="a venv with the LitGPT pins installed")
    ap.add_argument("--vllm-venv", type=Path, help="a venv with the vLLM pins (the nf4 set) installed")
    ap.add_argument("--sglang-venv", type=Path, help="a venv with the SGLang pins installed")
    ap.add_argument("--unsloth-venv", type=Path, help="a venv with the Unsloth pins but unsloth installed")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--reuse", action="store_true")
    ap.add_argument("--all", action="store_true", help="resolve every set, also those a larger set implies")
    ap.add_argument("--date", default=dt.date.today().isoformat())
    a = ap.parse_args()
    a.work.mkdir(parents=True, exist_ok=True)
    envs = environments(a.folders)
    known = {}
    resolved_file = FIXTURES / "resolved.json"
    if a.reuse and resolved_file.exists():
        known = {e["key"]: e for e in json.loads(resolved_file.read_text())["environments"]}
    todo = [e for e in envs.values() if e["key"] not in known]
    results = [
        {**known[e["key"]], "files": e["files"]} for e in envs.values() if e["key"] in known
    ]
    # Largest sets first; a set whose pins another set holds (same versions, no more extras) is resolved
    # only when that set does not resolve (--all resolves every set on its own).
    todo.sort(key=lambda e: -len(e["pins"]))
    maximal = [e for e in todo if a.all or not any(
        o is not e and len(o["pins"]) >= len(e["pins"]) and implied_by(e["pins"], o["pins"])
        and not implied_by(o["pins"], e["pins"]) for o in todo)]
    done: dict[str, dict] = {}
    with cf.ThreadPoolExecutor(max_workers=a.jobs) as pool:
        for res in pool.map(lambda e: resolve(e, a.work), maximal):
            print(f"{res['status']:9} {res['kind']:12} {' '.join(res['pins'])}", file=sys.stderr)
            done[res["key"]] = res
    for e in todo:
        if e["key"] in done:
            continue
        sup = next((done[o["key"]] for o in maximal if o["key"] in done and done[o["key"]]["status"] == "resolved"
                    and implied_by(e["pins"], o["pins"])), None)
        if sup is not None:
            done[e["key"]] = {"key": e["key"], "kind": e["kind"], "pins": e["pins"], "files": e["files"],
                              "status": "resolved", "implied_by": sup["key"], "resolved": sup["resolved"]}
        else:
            res = resolve(e, a.work)
            print(f"{res['status']:9} {res['kind']:12} {' '.join(res['pins'])}", file=sys.stderr)
            done[e["key"]] = res
    results += list(done.values())
    built = None
    construct_env = None
    if a.construct == "hf":
        hf = next((e for e in results if e["kind"] == "hf" and e["status"] == "resolved"
                   and any(p.startswith("peft==") for p in e["pins"])), None)
        if hf is None:
            raise SystemExit("no resolvable Hugging Face environment to construct in")
        if a.hf_venv:
            py = a.hf_venv / "bin" / "python"
        else:
            py = make_venv(a.work / "hf-venv")
            subprocess.run([str(py), "-m", "pip", "install", *hf["pins"]], check=True)
        construct_env = " ".join(hf["pins"]) if not a.hf_venv else "an installed venv of the Hugging Face pins (versions below)"
        built = construct(py, a.folders, a.work)
        engines = {}
        for name, opt in ENGINES.items():
            res = engine_checks.run_engine(name, getattr(a, opt) if opt else None, a.folders, a.work)
            if res is None:
                continue
            engines[name] = res
            note = " (run before on these same files)" if res.get("reused") else ""
            built["checks"] += [{**r, "with": r["with"] + note} for r in res["rows"]]
        checked_files = {f for n in engines for f in engine_checks.FILES[n][:1]}
        # serve.sh is checked per server: a skip line stays while any server was not checked
        servers = {"vllm", "sglang", "llama.cpp"}
        built["skipped"] = [x for x in built["skipped"] if x.split(":")[0] not in checked_files
                            or (x.startswith("serve.sh") and not servers <= set(engines))]
    FIXTURES.mkdir(parents=True, exist_ok=True)
    resolved_file.write_text(json.dumps(
        {"checked": a.date, "python": sys.version.split()[0],
         "environments": sorted(({k: v for k, v in e.items() if k != "files"} for e in results),
                                key=lambda e: (e["kind"], e["key"]))}, indent=1) + "\n")
    if built is not None:
        (FIXTURES / "accepted-keys.json").write_text(json.dumps(
            {"checked": a.date, "versions": built["versions"], "keys": built["keys"]}, indent=1) + "\n")
        tables = FIXTURES / "engine-args.json"
        old = json.loads(tables.read_text()) if tables.exists() else {}
        new = {n: {"versions": e["versions"], **e["table"]} for n, e in engines.items() if e.get("table")}
        keep = {n: t for n, t in old.get("engines", {}).items() if n not in new}
        tables.write_text(json.dumps({"checked": a.date, "engines": dict(sorted({**keep, **new}.items()))},
                                     indent=1) + "\n")
    out = REPO / "docs" / f"launch-libs-{a.date}.md"
    out.write_text(report_md(a.date, results, built, construct_env))
    bad = [e for e in results if e["status"] != "resolved"]
    failed = [c for c in (built or {}).get("checks", []) if not c["ok"]]
    print(f"{len(results)} environments, {len(bad)} not resolving; "
          f"{len((built or {}).get('checks', []))} constructions, {len(failed)} failed; report {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
