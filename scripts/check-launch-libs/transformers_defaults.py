"""Rows of test/fixtures/models/families/transformers-defaults.json: a configuration class's own defaults (with
optional overrides) and the parameter count of the causal-LM class built from it on the meta device.

Run with transformers 5.14.1 and torch (CPU) in a venv:
  python scripts/check-launch-libs/transformers_defaults.py NAME MODEL_TYPE ['{"key": value}'] >> rows.jsonl
Prints one JSON line {NAME: {"config": ..., "params": N}}.
"""

import json
import math
import sys

import torch
from transformers import AutoConfig, AutoModelForCausalLM

# Fields that never change the module tree (run-time switches, initialisation, token ids).
NOISE = {
    "transformers_version", "architectures", "output_hidden_states", "output_attentions", "return_dict", "dtype",
    "chunk_size_feed_forward", "is_encoder_decoder", "problem_type", "id2label", "label2id", "task_specific_params",
    "initializer_range", "use_cache", "pad_token_id", "bos_token_id", "eos_token_id", "tokenizer_class",
    "time_step_min", "time_step_max", "time_step_floor", "time_step_limit", "time_step_scale",
    "time_step_init_scheme", "rescale_prenorm_residual", "use_mambapy", "use_falcon_mambapy",
    "use_associative_scan", "residual_in_fp32", "router_aux_loss_coef", "router_jitter_noise",
}


def row(model_type: str, overrides: dict) -> dict:
    config = AutoConfig.for_model(model_type, **overrides)
    with torch.device("meta"):
        model = AutoModelForCausalLM.from_config(config)
    params = sum(p.numel() for p in model.parameters())
    raw = {k: v for k, v in config.to_dict().items() if k not in NOISE and not k.startswith("_")}
    clean = {k: v for k, v in raw.items() if not (isinstance(v, float) and math.isinf(v))}
    return {"config": clean, "params": params}


if __name__ == "__main__":
    name, model_type = sys.argv[1], sys.argv[2]
    extra = json.loads(sys.argv[3]) if len(sys.argv) > 3 else {}
    print(json.dumps({name: row(model_type, extra)}))
