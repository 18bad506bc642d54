"""Count the collectives DeepSpeed ZeRO-3 issues per micro-batch against its hooked module passes.

Runs DeepSpeed's own ZeRO-3 code on two gloo ranks of DeepSpeed's CPU accelerator (as zero3-host.py does) over a
toy-width Qwen2 with PEFT LoRA on every linear and transformers' reentrant checkpointing, and counts, in a
micro-batch after warm-up: the fetches of modules that gather a parameter of their own, and the all-gathers and
reduce-scatters DeepSpeed hands to torch.distributed (deepspeed.comm allgather_fn / reduce_scatter_fn). The live
budget (stage3_max_live_parameters) is set in layers of the toy model (--live-layers), so that it spans as many
layers as the rows' 1e9 elements span of theirs (about 4.3 Qwen2-7B layers, 1.1 Qwen2-72B layers); 0 keeps 1e9,
which at toy width never binds. Buckets are the rows' 'auto' ones at toy width (transformers' trainer_config_finalize:
0.9 * hidden^2 prefetch, hidden^2 reduce), stage3_max_reuse_distance 0 as in zero3-host.py.

  /tmp/z3venv/bin/python scripts/measure/zero3-collectives.py --out calibration/measured/zero3-collectives-cpu.json
"""

import argparse
import json
import sys

from gloo_ranks import library_versions, run_ranks, write_json

HIDDEN = 64


def build(layers, rank):
    import torch
    from peft import LoraConfig, get_peft_model
    from transformers import Qwen2Config, Qwen2ForCausalLM

    torch.manual_seed(0)
    cfg = Qwen2Config(
        hidden_size=HIDDEN,
        intermediate_size=2 * HIDDEN,
        num_hidden_layers=layers,
        num_attention_heads=4,
        num_key_value_heads=2,
        vocab_size=256,
        max_position_embeddings=512,
        tie_word_embeddings=False,
        attn_implementation="sdpa",
        use_cache=False,
    )
    model = Qwen2ForCausalLM(cfg)
    targets = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]
    return get_peft_model(model, LoraConfig(r=rank, lora_alpha=16, lora_dropout=0.05, target_modules=targets))


def run_one(args):
    import torch

    torch.set_num_threads(1)
    model = build(args.layers, args.rank)
    model.gradient_checkpointing_enable()  # transformers 4.41: use_reentrant True
    model.enable_input_require_grads()
    model.train()
    layer = model.base_model.model.model.layers[0]
    # Elements a layer gathers: its parameters above the persistence threshold (the norms' weights stay whole).
    layer_numel = sum(p.numel() for p in layer.parameters() if p.numel() > HIDDEN)
    live = args.live_layers * layer_numel if args.live_layers > 0 else 1e9
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=1e-4)
    import deepspeed
    import deepspeed.comm as dist
    from deepspeed.accelerator import get_accelerator

    type(get_accelerator()).device_count = lambda self: 1  # as zero3-host.py: numactl per call otherwise
    deepspeed.init_distributed(dist_backend="gloo")
    config = {
        "train_micro_batch_size_per_gpu": 1,
        "gradient_accumulation_steps": 1,
        "zero_allow_untested_optimizer": True,
        "bf16": {"enabled": True},
        "zero_optimization": {
            "stage": 3,
            "overlap_comm": True,
            "contiguous_gradients": True,
            "reduce_bucket_size": HIDDEN * HIDDEN,
            "stage3_prefetch_bucket_size": int(0.9 * HIDDEN * HIDDEN),
            "stage3_param_persistence_threshold": HIDDEN,
            "stage3_max_live_parameters": int(live),
            "stage3_max_reuse_distance": 0,
            "sub_group_size": 1e9,
        },
        "steps_per_print": 10**9,
    }
    engine, _, _, _ = deepspeed.initialize(model=model, optimizer=opt, config=config)
    from deepspeed.runtime.zero.partitioned_param_coordinator import PartitionedParameterCoordinator

    n = {"gathering_fetches": 0, "all_gathers": 0, "gathered_elements": 0, "reduce_scatters": 0}

    def gathers(module):
        ps = [p for p in module._parameters.values() if p is not None]
        return any(hasattr(p, "ds_id") and not getattr(p, "ds_persist", False) for p in ps)

    fetch = PartitionedParameterCoordinator.fetch_sub_module

    def counted_fetch(self, module, forward):
        if gathers(module):
            n["gathering_fetches"] += 1
        return fetch(self, module, forward)

    PartitionedParameterCoordinator.fetch_sub_module = counted_fetch
    ag, rs = dist.allgather_fn, dist.reduce_scatter_fn

    def counted_ag(output_tensor, *a, **k):
        n["all_gathers"] += 1
        n["gathered_elements"] += output_tensor.numel()
        return ag(output_tensor, *a, **k)

    def counted_rs(*a, **k):
        n["reduce_scatters"] += 1
        return rs(*a, **k)

    dist.allgather_fn, dist.reduce_scatter_fn = counted_ag, counted_rs
    gen = torch.Generator().manual_seed(1)
    ids = torch.randint(0, 256, (1, args.seq), generator=gen)
    for i in range(args.warmup + 1):
        for k in n:
            n[k] = 0
        loss = engine(input_ids=ids, labels=ids).loss
        engine.backward(loss)
        engine.step()
    out = dict(n, layer_numel=layer_numel, max_live=int(live), layers=args.layers, lora_rank=args.rank)
    out["gathered_layer_passes"] = n["gathered_elements"] / layer_numel
    print(json.dumps(out))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--one", action="store_true")
    ap.add_argument("--layers", type=int, default=8)
    ap.add_argument("--rank", type=int, default=2)
    ap.add_argument("--seq", type=int, default=64)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--live-layers", type=float, default=0)
    ap.add_argument("--runs", default="0,4.3,1.1", help="live budgets in layers (0: 1e9)")
    ap.add_argument("--out", default="")
    args = ap.parse_args()
    if args.one:
        run_one(args)
        return
    versions = library_versions()

    results = {}
    port = 29711
    for live in args.runs.split(","):
        port += 1
        cmd = [sys.executable, __file__, "--one", "--layers", str(args.layers), "--rank", str(args.rank)]
        cmd += ["--seq", str(args.seq), "--warmup", str(args.warmup), "--live-layers", live]
        results[f"live_layers_{live}"] = run_ranks(cmd, 2, port, f"live {live}")
    write_json({"versions": versions, "results": results}, args.out)


if __name__ == "__main__":
    main()
