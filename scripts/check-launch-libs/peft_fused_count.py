"""Trainable parameters PEFT creates for LoRA on text models whose checkpoints fuse q/k/v or gate/up, on the meta device.

Each catalog config is built with empty weights (AutoModelForCausalLM.from_config under accelerate's
init_empty_weights) and adapted with r 16 on the module names the HF launch folder writes for `q,v`
(src/core/launch/modules.ts: qkv_proj, c_attn, query_key_value, q_proj/v_proj) and with 'all-linear'.

  python peft_fused_count.py --out test/fixtures/launch-libs/peft-fused-count.json   (a venv of trainer.ts HF_PINS)
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

MODELS = ["phi-3-mini-4k-instruct", "phi-4", "gpt2", "starcoder", "gpt-neox-20b", "falcon-7b", "bloom-7b1",
          "glm-4-9b-0414"]
QV = {"phi3": ["qkv_proj"], "gpt2": ["c_attn"], "gpt_bigcode": ["c_attn"], "gpt_neox": ["query_key_value"],
      "falcon": ["query_key_value"], "bloom": ["query_key_value"], "glm4": ["q_proj", "v_proj"]}
R = 16

out = {"what": "scripts/check-launch-libs/peft_fused_count.py, meta device",
       "versions": versions(),
       "rank": R, "models": {}}
for mid in MODELS:
    mt, cfg = catalog_config(a.catalog, mid)
    res = {"modelType": mt}
    for label, targets in (("q,v", QV[mt]), ("all-linear", "all-linear")):
        model = meta_causal_lm(cfg)
        lc = LoraConfig(r=R, lora_alpha=2 * R, lora_dropout=0.0, target_modules=targets, bias="none",
                        task_type="CAUSAL_LM")
        trainable, _ = get_peft_model(model, lc).get_nb_trainable_parameters()
        res[label] = {"targetModules": targets, "trainable": trainable}
        print(mid, label, trainable, flush=True)
    out["models"][mid] = res
with open(a.out, "w") as f:
    json.dump(out, f, indent=2)
    f.write("\n")
