"""
Run inside the installed Hugging Face environment by check.py: builds every Hugging Face file of the launch
folders with the library that reads it, and writes JSON {versions, keys, checks, skipped} to the file given
(libraries print to stdout on import). Usage: construct.py FOLDERS OUT.json
CPU only: TrainingArguments gets use_cpu=True (bf16 on a machine without a GPU raises otherwise); the
DeepSpeed file named by hf-args.json is built by DeepSpeed's own classes instead of through the Trainer.
"""
from __future__ import annotations

import contextlib
import dataclasses
import importlib
import inspect
import io
import json
import sys
import traceback
from pathlib import Path

import yaml

TRL_CLASSES = {
    "sft": "SFTConfig",
    "dpo": "DPOConfig",
    "grpo": "GRPOConfig",
    "orpo": "ORPOConfig",
    "kto": "KTOConfig",
    "cpo": "CPOConfig",
}


def trl_class(name: str):
    import trl

    with contextlib.suppress(Exception):
        return getattr(trl, name)
    for mod in ("trl.experimental", f"trl.experimental.{name[:-6].lower()}"):
        with contextlib.suppress(Exception):
            return getattr(importlib.import_module(mod), name)
    return None


def fields(cls) -> list[str]:
    return sorted(f.name for f in dataclasses.fields(cls))


def versions() -> dict:
    from importlib.metadata import PackageNotFoundError, version

    out = {}
    for dist in ("torch", "transformers", "trl", "peft", "accelerate", "datasets", "bitsandbytes", "deepspeed",
                 "liger-kernel", "kernels"):
        with contextlib.suppress(PackageNotFoundError):
            out[dist] = version(dist)
    return out


def accepted_keys() -> dict:
    import accelerate.commands.config.config_args as cfgargs
    from accelerate.commands.launch import launch_command_parser
    from peft import LoraConfig
    from transformers import BitsAndBytesConfig, TrainingArguments

    keys = {"TrainingArguments": fields(TrainingArguments), "LoraConfig": fields(LoraConfig)}
    for cls in TRL_CLASSES.values():
        c = trl_class(cls)
        if c is not None:
            keys[cls] = fields(c)
    keys["BitsAndBytesConfig"] = sorted(
        p for p in inspect.signature(BitsAndBytesConfig.__init__).parameters if p not in ("self", "kwargs")
    )
    keys["accelerate.ClusterConfig"] = fields(cfgargs.ClusterConfig)
    keys["accelerate launch"] = sorted({a.dest for a in launch_command_parser()._actions})
    with contextlib.suppress(Exception):
        from deepspeed.runtime.zero.config import DeepSpeedZeroConfig

        names = set()
        for n, f in DeepSpeedZeroConfig.model_fields.items():
            names.add(f.alias or n)
        keys["deepspeed zero_optimization"] = sorted(names)
    return keys


def check(rows: list, folder: str, file: str, built_with: str, fn) -> None:
    sink = io.StringIO()
    try:
        with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
            fn()
        rows.append({"folder": folder, "file": file, "with": built_with, "ok": True})
    except Exception as e:  # the library's own refusal is the finding
        msg = f"{type(e).__name__}: {e}"
        rows.append({"folder": folder, "file": file, "with": built_with, "ok": False, "error": msg[:600]})
        traceback.print_exc(file=sys.stderr)


def hf_args(rows: list, d: Path) -> None:
    import torch
    from peft import LoraConfig
    from transformers import BitsAndBytesConfig

    a = json.loads((d / "hf-args.json").read_text())
    name = a.get("trainer", "sft")
    block = a[f"{name}_config"]
    cls = trl_class(TRL_CLASSES[name])
    if cls is None:
        rows.append({"folder": d.name, "file": "hf-args.json", "with": TRL_CLASSES[name], "ok": False,
                     "error": f"trl has no {TRL_CLASSES[name]}"})
    else:
        cfg = {k: v for k, v in block.items() if k != "deepspeed"}
        check(rows, d.name, f"hf-args.json {name}_config", f"trl.{cls.__name__}(use_cpu=True)",
              lambda: cls(**cfg, use_cpu=True))
    if a.get("lora_config"):
        check(rows, d.name, "hf-args.json lora_config", "peft.LoraConfig", lambda: LoraConfig(**a["lora_config"]))
    if a.get("bnb_config"):
        bnb = dict(a["bnb_config"])
        for k in ("bnb_4bit_compute_dtype", "bnb_4bit_quant_storage"):
            if k in bnb:
                bnb[k] = getattr(torch, bnb[k])
        check(rows, d.name, "hf-args.json bnb_config", "transformers.BitsAndBytesConfig",
              lambda: BitsAndBytesConfig(**bnb))
    mk = a.get("model_init_kwargs", {})
    check(rows, d.name, "hf-args.json model_init_kwargs.dtype", "getattr(torch, dtype)",
          lambda: getattr(torch, mk["dtype"]))


def accelerate_yaml(rows: list, d: Path, launch_dests: set) -> None:
    from accelerate.commands.config.config_args import load_config_from_file

    def build():
        cfg = load_config_from_file(str(d / "accelerate.yaml"))
        raw = yaml.safe_load((d / "accelerate.yaml").read_text())
        # accelerate launch copies fsdp_config / deepspeed_config keys onto its own arguments; others are dropped.
        unknown = [k for k in raw.get("fsdp_config", {}) if k not in launch_dests]
        unknown += [k for k in raw.get("deepspeed_config", {}) if k not in launch_dests]
        if unknown:
            raise KeyError(f"not accelerate launch arguments: {unknown}")
        return cfg

    check(rows, d.name, "accelerate.yaml", "accelerate load_config_from_file + launch parser", build)


def deepspeed_json(rows: list, d: Path) -> None:
    def build():
        from deepspeed.runtime.zero.config import DeepSpeedZeroConfig
        from transformers.integrations.deepspeed import HfDeepSpeedConfig

        cfg = json.loads((d / "deepspeed.json").read_text())
        HfDeepSpeedConfig(cfg)
        DeepSpeedZeroConfig(**cfg.get("zero_optimization", {}))

    check(rows, d.name, "deepspeed.json", "transformers HfDeepSpeedConfig + deepspeed DeepSpeedZeroConfig", build)


def main() -> None:
    root = Path(sys.argv[1])
    keys = accepted_keys()
    dests = set(keys["accelerate launch"])
    rows: list = []
    skipped: set = set()
    have_ds = importlib.util.find_spec("deepspeed") is not None
    for d in sorted(p for p in root.iterdir() if p.is_dir()):
        if (d / "hf-args.json").exists():
            hf_args(rows, d)
        if (d / "accelerate.yaml").exists():
            accelerate_yaml(rows, d, dests)
        if (d / "deepspeed.json").exists():
            if have_ds:
                deepspeed_json(rows, d)
            else:
                skipped.add("deepspeed.json: deepspeed is not installed in the constructing environment")
        for f, why in (
            ("axolotl.yaml", "axolotl.yaml: axolotl installs its own stack (requirements-axolotl.txt): check.py --axolotl-venv"),
            ("unsloth-args.json", "unsloth-args.json from_pretrained: FastLanguageModel needs a CUDA device; not built"),
            ("torchtune.yaml", "torchtune.yaml: torchtune's own environment: check.py --tune-venv"),
            ("torchtitan_vramplan.py", "torchtitan_vramplan.py: torchtitan's own environment: check.py --titan-venv"),
            ("litgpt.yaml", "litgpt.yaml: LitGPT's own environment: check.py --litgpt-venv"),
            ("serve.sh", "serve.sh: the servers' own environments: check.py --vllm-venv, --sglang-venv"),
        ):
            if (d / f).exists():
                skipped.add(why)
    Path(sys.argv[2]).write_text(
        json.dumps({"versions": versions(), "keys": keys, "checks": rows, "skipped": sorted(skipped)})
    )


if __name__ == "__main__":
    main()
