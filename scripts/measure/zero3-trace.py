"""Count, step by step, whether DeepSpeed ZeRO-3 prefetches parameters or gathers them on demand.

DeepSpeed's PartitionedParameterCoordinator prefetches only while its recorded trace of module order is COMPLETE;
a module out of the recorded order invalidates the trace (_invalidate_trace), the next reset_step records a new one,
and until it is COMPLETE again every fetch_sub_module gathers its own module's parameters on demand. This script runs
DeepSpeed's own ZeRO-3 code on two gloo ranks of DeepSpeed's CPU accelerator over the toy Qwen2 of
zero3-collectives.py, wraps the coordinator's methods (no DeepSpeed edit), and counts per step: the trace mode at the
step's start, the invalidations, and the gathers (and gathered elements) issued for the module being fetched
(on demand) versus for modules ahead of it (prefetch), and each gather's lead: the weight elements of the modules
fetched between its issue and the fetch that waits for it, in layers (0: nothing ran to hide it behind). Variants:
with and without transformers' reentrant checkpointing, with and without PEFT LoRA, and with parameters offloaded to
CPU (offload_param), on two ranks and on one, and a control whose module order changes every step. --live-layers and
--reuse-layers set stage3_max_live_parameters and stage3_max_reuse_distance in layers of the toy (1.1: as 1e9
elements are of Qwen2-72B's layers); by default 1e9 live, never binding at toy width, and reuse distance 0.

  /tmp/z3venv/bin/python scripts/measure/zero3-trace.py --out calibration/measured/zero3-trace-cpu.json
  /tmp/z3venv/bin/python scripts/measure/zero3-trace.py --variants \
    lora_checkpointing,full_checkpointing,lora_checkpointing_offload_param_one_rank --live-layers 1.1 \
    --reuse-layers 1.1 --out calibration/measured/zero3-trace-cpu-live-1.1-layers.json
  /tmp/z3venv16/bin/python scripts/measure/zero3-trace.py --out calibration/measured/zero3-trace-cpu-deepspeed-0.16.5.json
"""

import argparse
import collections
import importlib.util
import json
import os
import sys

from gloo_ranks import library_versions, run_ranks, write_json

HERE = os.path.dirname(os.path.abspath(__file__))
VARIANTS = {
    "lora_checkpointing": dict(lora=True, ckpt=True, offload=False),
    "lora_no_checkpointing": dict(lora=True, ckpt=False, offload=False),
    "full_checkpointing": dict(lora=False, ckpt=True, offload=False),
    "full_no_checkpointing": dict(lora=False, ckpt=False, offload=False),
    "lora_checkpointing_offload_param": dict(lora=True, ckpt=True, offload=True),
    "lora_no_checkpointing_offload_param": dict(lora=True, ckpt=False, offload=True),
    # One rank: DeepSpeed's NoGatherHandle copies each partition to the device instead of gathering it.
    "lora_checkpointing_offload_param_one_rank": dict(lora=True, ckpt=True, offload=True, world=1),
    # Control: the first two decoder layers swap places before every step from the third on, so each step runs
    # the modules out of the order the last one recorded; the counters must see the invalidations.
    "control_order_changes": dict(lora=True, ckpt=True, offload=False, swap=True),
}


def load_sibling():
    spec = importlib.util.spec_from_file_location("z3c", os.path.join(HERE, "zero3-collectives.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def build(args, v):
    z3c = load_sibling()
    if v["lora"]:
        return z3c.build(args.layers, args.rank), z3c.HIDDEN
    from transformers import Qwen2Config, Qwen2ForCausalLM
    import torch

    torch.manual_seed(0)
    h = z3c.HIDDEN
    cfg = Qwen2Config(
        hidden_size=h,
        intermediate_size=2 * h,
        num_hidden_layers=args.layers,
        num_attention_heads=4,
        num_key_value_heads=2,
        vocab_size=256,
        max_position_embeddings=512,
        tie_word_embeddings=False,
        attn_implementation="sdpa",
        use_cache=False,
    )
    return Qwen2ForCausalLM(cfg), h


def instrument(PPC, steps, layer_numel):
    """Wrap the coordinator's methods; steps[-1] is the step being counted."""
    from deepspeed.runtime.zero.partitioned_param_coordinator import iter_params
    from deepspeed.runtime.zero.partition_parameters import ZeroParamStatus
    from deepspeed.utils import z3_leaf_module

    # g: the gathered elements of the modules fetched so far (each then runs its matmuls over them); issued: the
    # value of g when each in-flight parameter's gather was issued. A gather's lead is the weight elements that run
    # between its issue and the fetch that waits for it, in layers: 0 leaves nothing to hide it behind.
    ctx = {"module": None, "g": 0, "issued": {}}
    fetch, gather = PPC.fetch_sub_module, PPC._PartitionedParameterCoordinator__all_gather_params
    invalidate, reset = PPC._invalidate_trace, PPC.reset_step

    def gathered_numel(ps):
        return sum(p.ds_numel for p in ps if hasattr(p, "ds_id") and not getattr(p, "ds_persist", False))

    def counted_fetch(self, module, forward):
        own = frozenset(iter_params(module, recurse=z3_leaf_module(module)))
        ctx["module"] = own
        s = steps[-1]
        s["fetches"] += 1
        if s["first_fetch_mode"] is None:
            s["first_fetch_mode"] = mode(self)
        for p in own:
            if p in ctx["issued"]:
                lead = (ctx["g"] - ctx["issued"].pop(p)) / layer_numel
                band = "0" if lead == 0 else ("under_1_layer" if lead < 1 else "1_layer_plus")
                s[f"lead_{band}_elements"] += p.ds_numel
        try:
            return fetch(self, module, forward)
        finally:
            ctx["module"] = None
            ctx["g"] += gathered_numel(own)

    def counted_gather(self, params, forward):
        todo = [p for p in params if p.ds_status == ZeroParamStatus.NOT_AVAILABLE]
        numel = sum(p.ds_numel for p in todo)
        if numel > 0:
            own = ctx["module"] is not None and frozenset(params) <= ctx["module"]
            kind = "demand" if own else ("prefetch" if ctx["module"] is not None else "other")
            s = steps[-1]
            s[f"{kind}_gathers"] += 1
            s[f"{kind}_elements"] += numel
            s[f"{kind}_{'fwd' if forward else 'bwd'}_elements"] += numel
            if kind == "demand":  # waited for in this same fetch: nothing runs in between
                s["lead_0_elements"] += numel
            else:
                for p in todo:
                    ctx["issued"][p] = ctx["g"]
        return gather(self, params, forward)

    def counted_invalidate(self):
        s = steps[-1]
        s["invalidations"] += 1
        s.setdefault("invalidated_at_fetch", s["fetches"])
        return invalidate(self)

    def counted_reset(self):
        steps[-1]["mode_at_reset"] = mode(self)
        return reset(self)

    PPC.fetch_sub_module, PPC._PartitionedParameterCoordinator__all_gather_params = counted_fetch, counted_gather
    PPC._invalidate_trace, PPC.reset_step = counted_invalidate, counted_reset


def mode(coord):
    if coord.is_complete_trace():
        return "COMPLETE"
    return "RECORD" if coord.is_record_trace() else "INVALID"


def new_step():
    s = collections.defaultdict(int)
    s["first_fetch_mode"] = None
    return s


def run_one(args):
    import torch

    torch.set_num_threads(1)
    v = VARIANTS[args.variant]
    model, hidden = build(args, v)
    if v["ckpt"]:
        model.gradient_checkpointing_enable()  # transformers' default: use_reentrant True
        if v["lora"]:
            model.enable_input_require_grads()
    model.train()
    layer = (model.base_model.model if v["lora"] else model).model.layers[0]
    # Elements a layer gathers: its parameters above the persistence threshold (as zero3-collectives.py).
    layer_numel = sum(p.numel() for p in layer.parameters() if p.numel() > hidden)
    live = args.live_layers * layer_numel if args.live_layers > 0 else 1e9
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=1e-4)
    import deepspeed
    from deepspeed.accelerator import get_accelerator

    type(get_accelerator()).device_count = lambda self: 1  # as zero3-host.py: numactl per call otherwise
    deepspeed.init_distributed(dist_backend="gloo")
    zero = {
        "stage": 3,
        "overlap_comm": True,
        "contiguous_gradients": True,
        "reduce_bucket_size": hidden * hidden,
        "stage3_prefetch_bucket_size": int(0.9 * hidden * hidden),
        "stage3_param_persistence_threshold": hidden,
        "stage3_max_live_parameters": int(live),
        "stage3_max_reuse_distance": int(args.reuse_layers * layer_numel),
        "sub_group_size": 1e9,
    }
    if v["offload"]:
        zero["offload_param"] = {"device": "cpu", "pin_memory": False}
    config = {
        "train_micro_batch_size_per_gpu": 1,
        "gradient_accumulation_steps": 1,
        "zero_allow_untested_optimizer": True,
        "bf16": {"enabled": True},
        "zero_optimization": zero,
        "steps_per_print": 10**9,
    }
    engine, _, _, _ = deepspeed.initialize(model=model, optimizer=opt, config=config)
    from deepspeed.runtime.zero.partitioned_param_coordinator import PartitionedParameterCoordinator

    steps = []
    instrument(PartitionedParameterCoordinator, steps, layer_numel)
    gen = torch.Generator().manual_seed(1)
    ids = torch.randint(0, 256, (1, args.seq), generator=gen)
    for i in range(args.steps):
        if v.get("swap") and i >= 2:
            layers = model.base_model.model.model.layers
            layers[0], layers[1] = layers[1], layers[0]
        steps.append(new_step())
        loss = engine(input_ids=ids, labels=ids).loss
        engine.backward(loss)
        engine.step()
    budget = {"layer_numel": layer_numel, "max_live": int(live), "max_reuse": int(args.reuse_layers * layer_numel)}
    print(json.dumps({"variant": args.variant, "world": 2, **v, **budget, "steps": steps}))


def summarize(steps, skip):
    kept = steps[skip:]
    tot = collections.Counter()
    for s in kept:
        tot.update({k: x for k, x in s.items() if isinstance(x, int)})
    gathered = tot["demand_elements"] + tot["prefetch_elements"]
    out = {
        "counted_steps": len(kept),
        "steps_complete_at_start": sum(s["first_fetch_mode"] == "COMPLETE" for s in kept),
        "steps_complete_at_end": sum(s.get("mode_at_reset") == "COMPLETE" for s in kept),
        "invalidations": tot["invalidations"],
        "demand_gathers": tot["demand_gathers"],
        "prefetch_gathers": tot["prefetch_gathers"],
        "demand_element_share": round(tot["demand_elements"] / gathered, 4) if gathered else None,
    }
    waited = sum(tot[f"lead_{k}_elements"] for k in ("0", "under_1_layer", "1_layer_plus"))
    for k in ("0", "under_1_layer", "1_layer_plus"):
        out[f"lead_{k}_element_share"] = round(tot[f"lead_{k}_elements"] / waited, 4) if waited else None
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--one", action="store_true")
    ap.add_argument("--variant", default="lora_checkpointing")
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--layers", type=int, default=8)
    ap.add_argument("--rank", type=int, default=2)
    ap.add_argument("--seq", type=int, default=64)
    ap.add_argument("--steps", type=int, default=6)
    ap.add_argument("--skip", type=int, default=2, help="steps left out of the summary (record, first complete)")
    ap.add_argument("--live-layers", type=float, default=0, help="stage3_max_live_parameters in layers (0: 1e9)")
    ap.add_argument("--reuse-layers", type=float, default=0, help="stage3_max_reuse_distance in layers")
    ap.add_argument("--out", default="")
    args = ap.parse_args()
    if args.one:
        run_one(args)
        return
    versions = library_versions()

    results = {}
    port = 29811
    for name in args.variants.split(","):
        port += 1
        cmd = [sys.executable, __file__, "--one", "--variant", name, "--layers", str(args.layers)]
        cmd += ["--rank", str(args.rank), "--seq", str(args.seq), "--steps", str(args.steps)]
        cmd += ["--live-layers", str(args.live_layers), "--reuse-layers", str(args.reuse_layers)]
        one = run_ranks(cmd, VARIANTS[name].get("world", 2), port, name)
        one["summary"] = summarize(one["steps"], args.skip)
        results[name] = one
        sys.stderr.write(f"{name}: {json.dumps(one['summary'])}\n")
    write_json({"versions": versions, "layers": args.layers, "results": results}, args.out)


if __name__ == "__main__":
    main()
