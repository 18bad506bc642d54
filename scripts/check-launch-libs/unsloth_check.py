"""
Run by check.py in an environment of Unsloth's pins without unsloth itself (Unsloth's import needs a CUDA device):
the TRL and PEFT classes under Unsloth's trainers build the blocks of every unsloth-args.json.

  <trainer>_config  TRL's SFTConfig / DPOConfig / GRPOConfig at the pinned TRL (UnslothSFTConfig and the other
                    trainers' configs subclass them: unsloth/models/rl.py), with use_cpu=True (no GPU here)
  get_peft_model    its LoRA keys as PEFT's LoraConfig (r, target_modules, lora_alpha, lora_dropout, bias);
                    use_gradient_checkpointing, random_state and finetune_vision_layers are FastLanguageModel.get_peft_model's own
  from_pretrained   not built (FastLanguageModel needs the CUDA device)

Records the config classes' fields for the offline test. Usage: unsloth_check.py FOLDERS OUT.json
"""
from __future__ import annotations

import contextlib
import dataclasses
import io
import json
import sys
import traceback
from importlib.metadata import version
from pathlib import Path

CLASSES = {"sft": "SFTConfig", "dpo": "DPOConfig", "grpo": "GRPOConfig"}
# FastLanguageModel.get_peft_model's own keyword arguments, beside LoraConfig's.
UNSLOTH_PEFT_ONLY = {"use_gradient_checkpointing", "random_state", "use_rslora_scaling", "max_seq_length",
                     "finetune_vision_layers"}


def build(rows: list, folder: str, file: str, built_with: str, fn) -> None:
    sink = io.StringIO()
    try:
        with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
            fn()
        rows.append({"folder": folder, "file": file, "with": built_with, "ok": True})
    except Exception as e:  # the library's own refusal is the finding
        traceback.print_exc(file=sys.stderr)
        rows.append({"folder": folder, "file": file, "with": built_with, "ok": False, "error": f"{type(e).__name__}: {e}"[:600]})


def main() -> None:
    import trl
    from peft import LoraConfig

    folders, out = Path(sys.argv[1]), Path(sys.argv[2])
    rows: list = []
    for d in sorted(p for p in folders.iterdir() if (p / "unsloth-args.json").exists()):
        a = json.loads((d / "unsloth-args.json").read_text())
        name = a.get("trainer", "sft")
        cls = getattr(trl, CLASSES[name])
        block = a[f"{name}_config"]
        build(rows, d.name, f"unsloth-args.json {name}_config", f"trl.{cls.__name__}(use_cpu=True)",
              lambda: cls(**block, use_cpu=True))
        peft = a.get("get_peft_model")
        if peft:
            lora = {k: v for k, v in peft.items() if k not in UNSLOTH_PEFT_ONLY}
            build(rows, d.name, "unsloth-args.json get_peft_model", "peft.LoraConfig", lambda: LoraConfig(**lora))
    keys = {c: sorted(f.name for f in dataclasses.fields(getattr(trl, c))) for c in CLASSES.values()}
    keys["LoraConfig"] = sorted(f.name for f in dataclasses.fields(LoraConfig)) + sorted(UNSLOTH_PEFT_ONLY)
    out.write_text(json.dumps({"version": f"trl {version('trl')}, peft {version('peft')}", "keys": keys,
                               "checks": rows}, indent=1))


if __name__ == "__main__":
    main()
