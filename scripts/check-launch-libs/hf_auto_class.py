"""The class each HF launch script loads every catalog model with, as transformers itself resolves it (no torch needed).

train.py (src/core/engines/hf/trainer.ts MODEL_LOADING) loads a config with a vision_config through
AutoModelForImageTextToText and any other through AutoModelForCausalLM; generate.py (engines/vllm/launch.ts) loads
AutoModelForCausalLM. Each catalog config is rebuilt with AutoConfig.for_model and looked up in the auto mappings
(MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES, MODEL_FOR_CAUSAL_LM_MAPPING_NAMES, models/auto/modeling_auto.py);
a class of None is a model the script cannot load. test/engines/hf-auto-class.test.ts holds the HF model_type tables
(engines/hf/architectures.ts) to it offline.

  python hf_auto_class.py --out test/fixtures/launch-libs/hf-auto-class.json   (a venv with trainer.ts HF_PINS transformers)
"""
import argparse
import glob
import json
import os

import transformers
from transformers import AutoConfig
from transformers.models.auto.modeling_auto import (
    MODEL_FOR_CAUSAL_LM_MAPPING_NAMES as CAUSAL,
    MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES as IMAGE_TEXT,
)

p = argparse.ArgumentParser()
p.add_argument("--out", required=True)
p.add_argument("--catalog", default=os.path.join(os.path.dirname(__file__), "../../catalogs/models"))
a = p.parse_args()

models = {}
for path in sorted(glob.glob(os.path.join(a.catalog, "*.json"))):
    config = dict(json.load(open(path))["config"])
    model_type = config.pop("model_type")
    row = {"modelType": model_type}
    try:
        vision = hasattr(AutoConfig.for_model(model_type, **config), "vision_config")
    except Exception as e:  # a config class that refuses the catalog's fields: read the field from the dict
        row["configError"] = f"{type(e).__name__}: {e}"[:200]
        vision = "vision_config" in config
    row["visionConfig"] = vision
    row["trainPy"] = (IMAGE_TEXT if vision else CAUSAL).get(model_type)
    row["generatePy"] = CAUSAL.get(model_type)
    models[os.path.basename(path)[:-5]] = row

with open(a.out, "w") as f:
    json.dump({"what": "scripts/check-launch-libs/hf_auto_class.py", "transformers": transformers.__version__,
               "models": models}, f, indent=1)
    f.write("\n")
