"""
Run inside axolotl's own environment (requirements-axolotl.txt) by check.py: validates every axolotl.yaml of the
folders as `axolotl train` does before loading anything (axolotl.cli.config.load_cfg): the YAML read into a
DictDefault, plugins prepared, then axolotl.utils.config.validate_config with the GPU capabilities, which runs the
pydantic schema (AxolotlConfigWCapabilities) and all its model validators. Unknown top-level keys, which the
schema passes by silently, are refused here. Records the schema's accepted keys (and each plugin's) for the
offline test.

No GPU here: the capabilities are those load_cfg's gpu_capabilities() would report on the planned card as far as
the file tells it: bf16 and tf32 where the file trains in bf16 (sm_80), fp16 otherwise (sm_75), no fp8, and the
world size accelerate.yaml names.

Usage: axolotl_check.py FOLDERS OUT.json
"""
from __future__ import annotations

import contextlib
import io
import json
import sys
import traceback
from importlib.metadata import version
from pathlib import Path

import torch
import yaml


def field_names(model) -> list[str]:
    names = set()
    for n, f in model.model_fields.items():
        names.add(n)
        if f.alias:
            names.add(f.alias)
    return sorted(names)


def accepted_keys() -> list[str]:
    from axolotl.utils.schemas.config import AxolotlConfigWCapabilities

    return field_names(AxolotlConfigWCapabilities)


def plugin_keys() -> dict:
    """The input-args schema of each plugin registered so far (validate_config merges them into the schema)."""
    import importlib

    from axolotl.integrations.base import PluginManager

    out = {}
    for name, plugin in PluginManager.get_instance().plugins.items():
        args = plugin.get_input_args()
        if args:
            mod, cls = args.rsplit(".", 1)
            out[name] = field_names(getattr(importlib.import_module(mod), cls))
    return out


def capabilities(cfg: dict, d: Path) -> tuple[dict, dict]:
    n_gpu = 1
    if (d / "accelerate.yaml").exists():
        n_gpu = int(yaml.safe_load((d / "accelerate.yaml").read_text()).get("num_processes", 1))
    bf16 = cfg.get("bf16") in (True, "auto")
    caps = {"bf16": bf16, "fp8": False, "tf32": bf16, "n_gpu": n_gpu, "compute_capability": "sm_80" if bf16 else "sm_75"}
    return caps, {"torch_version": str(torch.__version__).split("+", maxsplit=1)[0]}


def validate(d: Path, keys: set) -> None:
    from axolotl.cli.config import prepare_plugins
    from axolotl.utils.config import validate_config
    from axolotl.utils.dict import DictDefault

    raw = yaml.safe_load((d / "axolotl.yaml").read_text())
    cfg = DictDefault(raw)
    cfg.axolotl_config_path = str(d / "axolotl.yaml")
    prepare_plugins(cfg)
    plugins = plugin_keys()
    known = keys | {k for p in raw.get("plugins") or [] for k in plugins.get(p, [])}
    unknown = sorted(k for k in raw if k not in known)
    if unknown:
        raise KeyError(f"keys axolotl's schema (with the file's plugins) does not have: {unknown}")
    caps, env = capabilities(raw, d)
    validate_config(cfg, capabilities=caps, env_capabilities=env)


def main() -> None:
    folders, out = Path(sys.argv[1]), Path(sys.argv[2])
    keys = accepted_keys()
    rows = []
    for d in sorted(p for p in folders.iterdir() if (p / "axolotl.yaml").exists()):
        sink = io.StringIO()
        row = {"folder": d.name, "file": "axolotl.yaml", "with": "axolotl validate_config (load_cfg's schema)"}
        try:
            with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
                validate(d, set(keys))
            rows.append({**row, "ok": True})
        except Exception as e:  # the library's own refusal is the finding
            traceback.print_exc(file=sys.stderr)
            rows.append({**row, "ok": False, "error": f"{type(e).__name__}: {e}"[:600]})
    out.write_text(json.dumps({"version": version("axolotl"), "keys": {"config": keys, **plugin_keys()},
                               "checks": rows}, indent=1))


if __name__ == "__main__":
    main()
