"""Trainable parameters PEFT creates for LoRA on a transformers 5 MoE (fused 3-D experts), on the meta device.

Each catalog config is built with empty weights (AutoModelForCausalLM.from_config under accelerate's
init_empty_weights) and adapted with the lora_config the HF launch folder writes (r 16, target_parameters
experts.gate_up_proj / experts.down_proj), with target_modules 'all-linear' and with the seven projections by name.
PEFT >= 0.21 remaps a v4-style config on v5 models (peft utils/transformers_weight_conversion.py
_convert_peft_config_moe): the counts and the rank of each ParamWrapper are recorded.

  python peft_moe_count.py --out test/fixtures/launch-libs/peft-moe-count.json   (a venv of trainer.ts HF_PINS)
"""
import argparse
import json
import os

from peft import LoraConfig, get_peft_model

from catalog_meta import catalog_config, meta_causal_lm, versions

p = argparse.ArgumentParser()
p.add_argument("--out", required=True)
p.add_argument("--catalog", default=os.path.join(os.path.dirname(__file__), "../../catalogs/models"))
a = p.parse_args()

MODELS = ["qwen3-30b-a3b", "mixtral-8x7b-v0.1", "gpt-oss-20b", "olmoe-1b-7b-0924", "deepseek-v2-lite"]
NAMES = {"mixtral": ["q_proj", "k_proj", "v_proj", "o_proj", "w1", "w3", "w2"]}
SEVEN = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]
EXPERTS = ["experts.gate_up_proj", "experts.down_proj"]
R = 16

out = {"what": "scripts/check-launch-libs/peft_moe_count.py, meta device",
       "versions": versions(),
       "rank": R, "models": {}}
for mid in MODELS:
    mt, cfg = catalog_config(a.catalog, mid)
    res = {"modelType": mt}
    for label, targets in (("all-linear", "all-linear"), ("names", NAMES.get(mt, SEVEN))):
        model = meta_causal_lm(cfg)
        lc = LoraConfig(r=R, lora_alpha=2 * R, lora_dropout=0.0, target_modules=targets, bias="none",
                        task_type="CAUSAL_LM", target_parameters=EXPERTS)
        try:
            pm = get_peft_model(model, lc)
        except Exception as e:  # noqa: BLE001 - recorded as the result
            res[label] = {"error": f"{type(e).__name__}: {str(e)[:200]}"}
            continue
        trainable, _ = pm.get_nb_trainable_parameters()
        layer = {}
        for n, m in pm.named_modules():
            if hasattr(m, "lora_A") and "default" in getattr(m, "lora_A", {}) and ".layers.1." in n:
                key = n.split(".layers.1.", 1)[1].replace(".base_layer", "")
                key = f"{key}.{m.parameter_name}" if type(m).__name__ == "ParamWrapper" else key
                layer[key] = {"r": m.r["default"], "A": list(m.lora_A["default"].weight.shape),
                              "B": list(m.lora_B["default"].weight.shape)}
        res[label] = {"trainable": trainable, "layer1": dict(sorted(layer.items()))}
        print(mid, label, trainable, flush=True)
    out["models"][mid] = res
with open(a.out, "w") as f:
    json.dump(out, f, indent=2)
    f.write("\n")
