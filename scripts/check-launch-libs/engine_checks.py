"""
The engine checks check.py runs beside the Hugging Face construction, each in the engine's own installed
environment (a venv given on the command line), each reading the written files the way the engine does:

  torchtitan  ConfigManager.parse_args on the recipe module (torchtitan_vramplan.py)
  torchtune   `tune validate` on torchtune.yaml
  axolotl     axolotl's own config validation (axolotl_check.py) on axolotl.yaml
  litgpt      LitGPT's CLI parser (jsonargparse) on the written command and litgpt.yaml (litgpt_check.py)
  vllm        vLLM's CLI parser and engine arguments on `vllm serve ...` (serve_args.py)
  sglang      SGLang's prepare_server_args on `python -m sglang.launch_server ...` (serve_args.py)
  llama.cpp   llama-server's option table from llama.cpp's common/arg.cpp (llama_cpp.py; no install)
  unsloth     TRL's configs and PEFT's LoraConfig under Unsloth's trainers on unsloth-args.json, in Unsloth's pins
              without unsloth (its import needs a CUDA device; unsloth_check.py)

Each check's result is kept in WORK/checks/<engine>.json with a digest of the files it read: a later run
without that engine's venv reuses it while those files are unchanged (and says so in the report).
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
import tarfile
from pathlib import Path

HERE = Path(__file__).resolve().parent

# The files each engine's check reads in a folder.
FILES = {
    "torchtitan": ["torchtitan_vramplan.py"],
    "torchtune": ["torchtune.yaml"],
    "axolotl": ["axolotl.yaml"],
    "litgpt": ["litgpt.yaml", "launch.sh"],
    "vllm": ["serve.sh"],
    "sglang": ["serve.sh"],
    "llama.cpp": ["serve.sh"],
    "unsloth": ["unsloth-args.json"],
}
# The engine a folder's file belongs to (serve.sh names its server).
SERVER_MARK = {"vllm": "vllm serve", "sglang": "sglang.launch_server", "llama.cpp": "llama-server"}
# llama-server's option table: PyPI's llama-cpp-python sdist vendors llama.cpp's sources (vendor/llama.cpp) and
# names the commit in its CHANGELOG.md ("update llama.cpp to ggml-org/llama.cpp@<commit>").
LLAMA_CPP_PYTHON = "0.3.36"

TITAN_READ = (
    # torchtitan's own reading of the recipe: ConfigManager imports it by module name (launch.sh puts the folder
    # on PYTHONPATH) and tyro rebuilds Trainer.Config from it, running every __post_init__ check
    # (torchtitan/config/manager.py).
    # No GPU here: the FP8 / MX converters' __init__ asks the device's compute capability (float8.py, mx.py:
    # has_cuda_capability(8, 9) / (10, 0)); it answers as the GPU the plan names would, so the converter is built.
    "import torchtitan.components.quantization.float8 as f8, torchtitan.components.quantization.mx as mx\n"
    "f8.has_cuda_capability = mx.has_cuda_capability = lambda major, minor: True\n"
    "from torchtitan.config.manager import ConfigManager\n"
    "c = ConfigManager().parse_args(['--module', 'torchtitan_vramplan', '--config', 'vramplan'])\n"
    "print(c.checkpoint.initial_load_path, c.training.steps)\n"
)


def belongs(engine: str, d: Path) -> bool:
    files = FILES[engine]
    if not all((d / f).exists() for f in files[:1]):
        return False
    if engine in SERVER_MARK:
        return SERVER_MARK[engine] in (d / "serve.sh").read_text()
    return True


def digest(engine: str, folders: Path) -> str:
    h = hashlib.sha256()
    for d in sorted(p for p in folders.iterdir() if p.is_dir() and belongs(engine, p)):
        for f in FILES[engine]:
            if (d / f).exists():
                h.update(f"{d.name}/{f}\n".encode())
                h.update((d / f).read_bytes())
    return h.hexdigest()[:16]


def versions_of(env: Path, *dists: str) -> str:
    """`dist version` of each distribution installed in the venv `env`."""
    code = "import importlib.metadata as m, sys; print(', '.join(f'{d} {m.version(d)}' for d in sys.argv[1:]))"
    r = subprocess.run([str(env / "bin" / "python"), "-c", code, *dists], capture_output=True, text=True)
    return r.stdout.strip() or "versions unknown"


def run_check(folder: Path, file: str, built_with: str, cmd: list[str]) -> dict:
    env = {**os.environ, "PYTHONPATH": str(folder)}
    r = subprocess.run(cmd, cwd=folder, capture_output=True, text=True, env=env)
    row = {"folder": folder.name, "file": file, "with": built_with, "ok": r.returncode == 0}
    if r.returncode != 0:
        err = [l for l in (r.stderr or r.stdout).splitlines() if l.strip()]
        row["error"] = " ".join(err[-3:])[:600]
    return row


def in_venv(venv: Path, script: str, *args: str) -> dict:
    """Runs a sibling script with the venv's Python; it writes JSON to its last argument."""
    r = subprocess.run([str(venv / "bin" / "python"), str(HERE / script), *args], capture_output=True, text=True,
                       cwd=HERE)
    if r.returncode != 0:
        raise SystemExit(f"{script} failed:\n{r.stderr[-4000:]}")
    return json.loads(Path(args[-1]).read_text())


def llama_cpp_table(work: Path) -> tuple[Path, str]:
    """arg.cpp of the llama.cpp that llama-cpp-python LLAMA_CPP_PYTHON vendors, and that commit."""
    d = work / "llama-cpp"
    d.mkdir(parents=True, exist_ok=True)
    sdist = d / f"llama_cpp_python-{LLAMA_CPP_PYTHON}.tar.gz"
    if not sdist.exists():
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:", "-d", str(d),
                        f"llama-cpp-python=={LLAMA_CPP_PYTHON}"], check=True, capture_output=True)
    root = f"llama_cpp_python-{LLAMA_CPP_PYTHON}"
    with tarfile.open(sdist) as t:
        arg = t.extractfile(f"{root}/vendor/llama.cpp/common/arg.cpp").read()
        changelog = t.extractfile(f"{root}/CHANGELOG.md").read().decode()
    (d / "arg.cpp").write_bytes(arg)
    m = re.search(r"ggml-org/llama\.cpp@([0-9a-f]+)", changelog)
    commit = m.group(1) if m else "unknown"
    return d / "arg.cpp", f"llama.cpp {commit}, vendored by llama-cpp-python {LLAMA_CPP_PYTHON}"


def run_engine(engine: str, venv: Path | None, folders: Path, work: Path) -> dict | None:
    """{engine, digest, versions, rows, table?, reused?} for one engine, or None where it has no folder or no
    venv and no earlier result on the same files."""
    ds = [d for d in sorted(folders.iterdir()) if d.is_dir() and belongs(engine, d)]
    if not ds:
        return None
    dg = digest(engine, folders)
    cache = work / "checks" / f"{engine}.json"
    if venv is None and engine != "llama.cpp":
        if cache.exists():
            old = json.loads(cache.read_text())
            if old["digest"] == dg:
                return {**old, "reused": True}
        return None
    out: dict = {"engine": engine, "digest": dg}
    tmp = work / "checks" / f"{engine}.out.json"
    tmp.parent.mkdir(parents=True, exist_ok=True)
    if engine == "torchtitan":
        out["versions"] = versions_of(venv, "torchtitan", "torch")
        out["rows"] = [run_check(d, "torchtitan_vramplan.py", f"torchtitan ConfigManager.parse_args ({out['versions']})",
                                 [str(venv / "bin" / "python"), "-c", TITAN_READ]) for d in ds]
    elif engine == "torchtune":
        out["versions"] = versions_of(venv, "torchtune", "torch")
        out["rows"] = [run_check(d, "torchtune.yaml", f"tune validate ({out['versions']})",
                                 [str(venv / "bin" / "tune"), "validate", "torchtune.yaml"]) for d in ds]
    elif engine in ("vllm", "sglang"):
        res = in_venv(venv, "serve_args.py", engine, str(folders), str(tmp))
        out["versions"] = versions_of(venv, engine, "torch", "transformers")
        out["rows"] = res["checks"]
        out["table"] = {"version": res["version"], "options": res["options"]}
    elif engine == "axolotl":
        res = in_venv(venv, "axolotl_check.py", str(folders), str(tmp))
        out["versions"] = versions_of(venv, "axolotl", "torch", "transformers", "trl", "peft")
        out["rows"] = res["checks"]
        out["table"] = {"version": res["version"], "keys": res["keys"]}
    elif engine == "unsloth":
        res = in_venv(venv, "unsloth_check.py", str(folders), str(tmp))
        out["versions"] = versions_of(venv, "trl", "peft", "transformers", "torch")
        out["rows"] = res["checks"]
        out["table"] = {"version": res["version"], "keys": res["keys"]}
    elif engine == "litgpt":
        res = in_venv(venv, "litgpt_check.py", str(folders), str(tmp))
        out["versions"] = versions_of(venv, "litgpt", "torch", "lightning", "jsonargparse")
        out["rows"] = res["checks"]
        out["table"] = {"version": res["version"], "keys": res["keys"]}
    else:  # llama.cpp: the option table of its source, no install
        arg, source = llama_cpp_table(work)
        subprocess.run([sys.executable, str(HERE / "llama_cpp.py"), str(arg), str(folders), str(tmp), source],
                       check=True, capture_output=True, cwd=HERE)
        res = json.loads(tmp.read_text())
        out["versions"] = source
        out["rows"] = res.pop("checks")
        out["table"] = res
    if engine in ("vllm", "sglang", "axolotl", "litgpt", "unsloth"):
        out["rows"] = [{**r, "with": f"{r['with']} ({out['versions']})"} for r in out["rows"]]
    cache.write_text(json.dumps(out, indent=1))
    return out
