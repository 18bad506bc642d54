"""The LoRA parameters Unsloth adapts on each catalog VLM wrapper, from unsloth_zoo's own get_peft_regex (no GPU).

FastVisionModel.get_peft_model (unsloth 2026.10.9 models/vision.py) builds its target regex with unsloth_zoo
2026.10.9 peft_utils.get_peft_regex when target_modules is None, as Unsloth's vision notebooks leave it, from the
finetune_vision_layers / finetune_language_layers / finetune_attention_modules / finetune_mlp_modules flags.
Each catalog config whose model_type is a VLM wrapper (src/core/engines/architectures.ts VLM_WRAPPERS) is built on
the meta device through AutoModelForImageTextToText (what FastModel loads it with) at the transformers Unsloth is
pinned to, the regex is applied with re.fullmatch (PEFT's matcher for a string target_modules), and r x (in + out)
is summed over the nn.Linear modules it selects, r = 16, with and without the vision layers.
test/engines/unsloth-vlm.test.ts holds the estimate's count to it offline.

  python unsloth_vlm_regex.py --zoo <unzipped unsloth_zoo-2026.10.9 wheel> --out test/fixtures/launch-libs/unsloth-vlm-regex.json
  (a venv with torch and launch.ts UNSLOTH_PINS transformers; unsloth_zoo's package __init__ is not run: it needs a GPU)
"""
import argparse
import glob
import importlib
import json
import os
import re
import sys
import types

import torch
import transformers
from transformers import AutoConfig, AutoModelForImageTextToText

WRAPPERS = {"qwen3_vl", "qwen3_vl_moe", "qwen2_5_vl", "qwen2_vl", "mistral3", "llava", "llava_next", "glm4v", "glm4v_moe"}
R = 16

p = argparse.ArgumentParser()
p.add_argument("--zoo", required=True)
p.add_argument("--out", required=True)
p.add_argument("--catalog", default=os.path.join(os.path.dirname(__file__), "../../catalogs/models"))
a = p.parse_args()

# Import unsloth_zoo.peft_utils without the package __init__ (which probes the GPU).
pkg = types.ModuleType("unsloth_zoo")
pkg.__path__ = [os.path.join(a.zoo, "unsloth_zoo")]
sys.modules["unsloth_zoo"] = pkg
peft_utils = importlib.import_module("unsloth_zoo.peft_utils")

models = {}
for path in sorted(glob.glob(os.path.join(a.catalog, "*.json"))):
    config = dict(json.load(open(path))["config"])
    model_type = config.pop("model_type")
    if model_type not in WRAPPERS:
        continue
    with torch.device("meta"):
        model = AutoModelForImageTextToText.from_config(AutoConfig.for_model(model_type, **config))
    linears = {n: m for n, m in model.named_modules() if isinstance(m, torch.nn.Linear)}
    row = {"modelType": model_type, "class": type(model).__name__}
    for key, vision in (("text", False), ("withVision", True)):
        regex = peft_utils.get_peft_regex(
            model,
            finetune_vision_layers=vision,
            finetune_language_layers=True,
            finetune_attention_modules=True,
            finetune_mlp_modules=True,
        )
        hit = [n for n in linears if re.fullmatch(regex, n)]
        row[key] = sum(R * (linears[n].in_features + linears[n].out_features) for n in hit)
        row[key + "Left"] = sorted({re.sub(r"\.\d+\.", ".N.", n) for n in linears if n not in hit})
    models[os.path.basename(path)[:-5]] = row

with open(a.out, "w") as f:
    json.dump({"what": "scripts/check-launch-libs/unsloth_vlm_regex.py", "transformers": transformers.__version__,
               "unsloth_zoo": "2026.10.9", "rank": R, "models": models}, f, indent=1)
    f.write("\n")
