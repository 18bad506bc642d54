"""A catalog model's Hugging Face config rebuilt by transformers, and its causal LM on the meta device.

Shared by the PEFT count scripts (peft_moe_count.py, peft_fused_count.py): catalogs/models/<id>.json holds the
checkpoint's config.json under "config"; AutoConfig.for_model rebuilds it with the pinned transformers, and
accelerate's init_empty_weights builds the model without allocating its weights.
"""
import importlib.metadata as md
import json
import os

import torch
from accelerate import init_empty_weights
from transformers import AutoConfig, AutoModelForCausalLM


def versions(libs=("torch", "transformers", "peft")):
    """The installed releases of `libs`, local build tags dropped."""
    return {k: md.version(k).split("+")[0] for k in libs}


def catalog_config(catalog, model_id):
    """(model_type, config) of catalog model `model_id`."""
    entry = json.load(open(os.path.join(catalog, model_id + ".json")))
    cfg_dict = dict(entry["config"])
    model_type = cfg_dict.pop("model_type")
    return model_type, AutoConfig.for_model(model_type, **cfg_dict)


def meta_causal_lm(cfg):
    """The causal LM of `cfg` in bf16 on the meta device."""
    with init_empty_weights():
        return AutoModelForCausalLM.from_config(cfg, dtype=torch.bfloat16)
