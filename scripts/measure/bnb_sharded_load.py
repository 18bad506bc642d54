"""Where transformers puts a bitsandbytes 4-bit model's weights when it loads under Accelerate FSDP or DeepSpeed ZeRO-3.

One gloo process on the CPU stands for a non-zero local rank of a node (LOCAL_RANK=1, as ranks 1-7 of eight): it
sets what `accelerate launch` sets for FSDP with cpu_ram_efficient_loading (ACCELERATE_USE_FSDP,
FSDP_CPU_RAM_EFFICIENT_LOADING), or builds the HfDeepSpeedConfig of a ZeRO-3 config as TrainingArguments(deepspeed=...)
does, then loads a tiny random Llama (saved in bf16) without a device_map, as the launch folder's train.py does under
sharding: once in bf16, once with BitsAndBytesConfig(load_in_4bit, bnb_4bit_quant_storage=bfloat16). It records each
q_proj weight's type, device, whether it holds the checkpoint's values (FSDP's rank-0 path leaves other ranks zeros)
and whether ZeRO-3's zero.Init partitioned it (a `ds_id`). It also asks the 4-bit quantizer which device_map it sets
when none is given on a CUDA rank (torch.cuda patched to report one, current device 5): no GPU is used.

  python3 -m venv /tmp/bnbload && /tmp/bnbload/bin/pip install torch==2.12.1 transformers==5.14.1 \
      accelerate==1.15.0 bitsandbytes==0.50.2 wheel setuptools
  DS_BUILD_OPS=0 /tmp/bnbload/bin/pip install --no-build-isolation deepspeed==0.19.8
  /tmp/bnbload/bin/python scripts/measure/bnb_sharded_load.py fsdp fsdp.json
  /tmp/bnbload/bin/python scripts/measure/bnb_sharded_load.py zero3 zero3.json
"""
import importlib.metadata
import json
import os
import sys
import tempfile

import torch
import torch.distributed as dist

MODE = sys.argv[1]  # fsdp or zero3; sys.argv[2]: the JSON file to write
os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT="29541", RANK="0", WORLD_SIZE="1", LOCAL_RANK="1")
if MODE == "fsdp":
    os.environ["ACCELERATE_USE_FSDP"] = "true"
    os.environ["FSDP_CPU_RAM_EFFICIENT_LOADING"] = "true"

from transformers import BitsAndBytesConfig, LlamaConfig, LlamaForCausalLM  # noqa: E402
from transformers.integrations.deepspeed import is_deepspeed_zero3_enabled  # noqa: E402
from transformers.modeling_utils import is_fsdp_enabled, is_local_dist_rank_0  # noqa: E402
from transformers.quantizers.quantizer_bnb_4bit import Bnb4BitHfQuantizer  # noqa: E402

dist.init_process_group("gloo")
keep = []  # transformers holds the DeepSpeed config by weakref: keep it alive
if MODE == "zero3":
    from transformers.integrations.deepspeed import HfDeepSpeedConfig

    keep.append(HfDeepSpeedConfig({"zero_optimization": {"stage": 3}, "train_micro_batch_size_per_gpu": 1}))


def nf4():
    return BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4", bnb_4bit_compute_dtype=torch.bfloat16,
                              bnb_4bit_quant_storage=torch.bfloat16)


def cuda_rank_device_map():
    real = torch.cuda.is_available, torch.cuda.current_device
    torch.cuda.is_available, torch.cuda.current_device = (lambda: True), (lambda: 5)
    try:
        return {k: v for k, v in Bnb4BitHfQuantizer(nf4()).update_device_map(None).items()}
    finally:
        torch.cuda.is_available, torch.cuda.current_device = real


def describe(model):
    w = model.model.layers[0].self_attn.q_proj.weight
    return {
        "type": type(w).__name__,
        "device": str(w.device),
        "storedShape": list(w.shape),
        "holdsCheckpointValues": bool((w.detach().float() != 0).any()) if w.numel() else None,
        "zeroInitPartitioned": hasattr(w, "ds_id"),
    }


with tempfile.TemporaryDirectory() as path:
    torch.manual_seed(0)
    cfg = LlamaConfig(hidden_size=256, intermediate_size=512, num_hidden_layers=2, num_attention_heads=4,
                      num_key_value_heads=2, vocab_size=1024)
    LlamaForCausalLM(cfg).to(torch.bfloat16).save_pretrained(path)
    loads = {
        "bf16": describe(LlamaForCausalLM.from_pretrained(path, dtype=torch.bfloat16)),
        "nf4": describe(LlamaForCausalLM.from_pretrained(path, dtype=torch.bfloat16, quantization_config=nf4())),
    }

record = json.dumps({
    "mode": MODE,
    "versions": {p: importlib.metadata.version(p) for p in ("torch", "transformers", "accelerate", "bitsandbytes")}
    | ({"deepspeed": importlib.metadata.version("deepspeed")} if MODE == "zero3" else {}),
    "isFsdpEnabled": is_fsdp_enabled(),
    "isLocalRank0": is_local_dist_rank_0(),
    "isZero3": is_deepspeed_zero3_enabled(),
    "quantizerDeviceMapOnCudaRank5": cuda_rank_device_map(),
    "loads": loads,
}, indent=2)
# DeepSpeed logs to stdout: the record goes to the file named after the mode.
with open(sys.argv[2], "w") as f:
    f.write(record + "\n")
dist.destroy_process_group()
