#!/usr/bin/env python3
"""Host time of DeepSpeed ZeRO-3's module hooks, measured on the CPU.

Runs DeepSpeed's own ZeRO-3 engine on a one-rank gloo world with DeepSpeed's CPU accelerator (DS_ACCELERATOR=cpu),
on toy-width models with the module structure of the calibration rows that run ZeRO-3 over transformers 4.x:
a Qwen2 decoder stack with PEFT LoRA on every linear (QwenLM/Qwen3#736's dense rows), the same over Qwen2-MoE's
per-expert loop (its 57B-A14B row), and a fully trained Qwen2-MoE (ms-swift's MoE rows). At toy width the kernels
cost next to nothing, so a micro-batch's time under ZeRO-3 less the same model's time without DeepSpeed is
DeepSpeed's host work: its nn.Module hooks, the fetch and release of each module's parameters, the autograd
functions around every module's inputs and outputs, and the gradient hooks. Each configuration runs in its own
process; the results are printed as JSON (the fixture calibration/measured/zero3-host-cpu.json).

The CPU accelerator is a synchronized device: DeepSpeed skips its stream waits and event records there
(partitioned_param_coordinator.py fetch_sub_module), so what is measured excludes those CUDA calls, which the time
model counts as ops of their own. Everything else runs as on a GPU, including the all-gathers and reduce-scatters
(one rank over gloo) and the tensor ops of the partitioning, on CPU tensors.

Usage (a venv with torch, deepspeed, transformers 4.x and peft; see scripts/measure/README.md):
  DS_ACCELERATOR=cpu python scripts/measure/zero3-host.py --out calibration/measured/zero3-host-cpu.json
"""

import argparse
import json
import os
import platform
import sys
import time

from gloo_ranks import library_versions, run_ranks, write_json

CONFIGS = [
    # name, model, lora, checkpointing, experts (MoE)
    ("dense-lora-ckpt", "dense", True, True, 0),
    ("dense-lora", "dense", True, False, 0),
    ("dense-full-ckpt", "dense", False, True, 0),
    ("moe-full-ckpt", "moe", False, True, 60),
    ("moe-lora-ckpt", "moe", True, True, 16),
]


METHOD = (
    "Per configuration: the model without DeepSpeed (zero0), under ZeRO-3 with DeepSpeed's hook functions timed "
    "(zero3) and untouched (zero3_clean), on DeepSpeed's CPU accelerator over gloo (ZeRO-3 on two ranks; these "
    "figures are rank 0's). Times are this thread's CPU seconds per micro-batch (median of the measured ones, after "
    "warm-up: the first micro-batch records the trace, the second fills release_sub_module's cache). per_pass_us: "
    "microseconds per hooked module pass (gathering: the module holds a partitioned parameter of its own; bare: it "
    "does not) and per gradient; the clean run's total less zero0 is split by the timed run's shares (the split "
    "carries the timers' own cost, the total does not). summary_us pools the checkpointed configurations."
)


def cpu_model():
    """The first CPU's model name, family, model number and clock as /proc/cpuinfo gives them."""
    want = {"model name": "name", "cpu family": "family", "model": "model", "cpu MHz": "mhz", "cache size": "cache"}
    out = {}
    with open("/proc/cpuinfo") as f:
        for line in f:
            if not line.strip():
                break
            key, _, value = line.partition(":")
            if key.strip() in want:
                out[want[key.strip()]] = value.strip()
    out["threads"] = os.cpu_count()
    return out or platform.processor()


def build_model(kind, lora, layers, experts):
    import torch
    from transformers import Qwen2Config, Qwen2ForCausalLM, Qwen2MoeConfig, Qwen2MoeForCausalLM

    torch.manual_seed(0)
    common = dict(
        hidden_size=64,
        num_hidden_layers=layers,
        num_attention_heads=4,
        num_key_value_heads=2,
        vocab_size=256,
        max_position_embeddings=512,
        tie_word_embeddings=False,
        attn_implementation="sdpa",
        use_cache=False,
    )
    if kind == "dense":
        model = Qwen2ForCausalLM(Qwen2Config(intermediate_size=128, **common))
    else:
        cfg = Qwen2MoeConfig(
            intermediate_size=128,
            moe_intermediate_size=16,
            shared_expert_intermediate_size=64,
            num_experts=experts,
            num_experts_per_tok=4,
            decoder_sparse_step=1,
            **common,
        )
        model = Qwen2MoeForCausalLM(cfg)
    if lora:
        from peft import LoraConfig, get_peft_model

        targets = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]
        model = get_peft_model(
            model, LoraConfig(r=8, lora_alpha=16, lora_dropout=0.05, target_modules=targets, task_type="CAUSAL_LM")
        )
    return model


def count_modules(model):
    """Hooked modules (every submodule under the engine) and those holding a parameter of their own."""
    mods = list(model.modules())
    own = [m for m in mods if len(m._parameters) > 0 and any(p is not None for p in m._parameters.values())]
    trainable = [p for p in model.parameters() if p.requires_grad]
    return {"modules": len(mods), "modules_with_params": len(own), "trainable_params": len(trainable)}


def gathers(module):
    """Whether ZeRO-3's fetch of this module gathers a parameter (one of its own, partitioned)."""
    ps = [p for p in module._parameters.values() if p is not None]
    return any(hasattr(p, "ds_id") and not getattr(p, "ds_persist", False) for p in ps)


class Acc:
    """Call counts and inclusive CPU seconds of this thread per wrapped function, split by the module's kind
    (`_g`: it gathers a parameter; `_b`: it gathers none) where the function takes the module."""

    def __init__(self, off=False):
        self.n = {}
        self.t = {}
        self.off = off

    def wrap(self, owner, attr, key, by_module=False):
        if self.off:
            return
        fn = getattr(owner, attr)
        acc = self
        clock = time.thread_time

        def wrapped(*a, **k):
            t0 = clock()
            try:
                return fn(*a, **k)
            finally:
                dt = clock() - t0
                kk = key + ("_g" if gathers(a[1]) else "_b") if by_module else key
                acc.t[kk] = acc.t.get(kk, 0.0) + dt
                acc.n[kk] = acc.n.get(kk, 0) + 1

        setattr(owner, attr, wrapped)

    def reset(self):
        self.n.clear()
        self.t.clear()


def top_level_ops(prof):
    """Count and CPU seconds of the aten ops called from Python (an aten op under no other aten op)."""
    n, t = 0, 0.0
    for e in prof.events():
        if not e.name.startswith("aten::"):
            continue
        parent = e.cpu_parent
        nested = False
        while parent is not None:
            if parent.name.startswith("aten::"):
                nested = True
                break
            parent = parent.cpu_parent
        if not nested:
            n += 1
            t += e.cpu_time_total * 1e-6
    return n, t


def ds_config(hidden, reuse):
    # The rows' ZeRO-3 settings (QwenLM/Qwen3@593ace6 examples/sft/ds_config_zero3.json; transformers fills the
    # 'auto' buckets from the hidden size: integrations/deepspeed.py trainer_config_finalize), at toy width. The
    # persistence threshold keeps the norms' weights whole, as 10 * hidden does at the rows' widths. The rows'
    # stage3_max_reuse_distance of 1e9 elements spans one to four of their layers; at toy width it would span the
    # whole model and keep every parameter gathered, so the reuse distance is 0 by default: every fetch gathers
    # and every release frees, as for the modules of a layer beyond that distance.
    return {
        "train_micro_batch_size_per_gpu": 1,
        "gradient_accumulation_steps": 1,
        "zero_allow_untested_optimizer": True,
        "bf16": {"enabled": True},
        "zero_optimization": {
            "stage": 3,
            "overlap_comm": True,
            "contiguous_gradients": True,
            "reduce_bucket_size": hidden * hidden,
            "stage3_prefetch_bucket_size": int(0.9 * hidden * hidden),
            "stage3_param_persistence_threshold": hidden,
            "stage3_max_live_parameters": 1e9,
            "stage3_max_reuse_distance": reuse,
            "sub_group_size": 1e9,
        },
        "steps_per_print": 10**9,
        "wall_clock_breakdown": False,
    }


def run_one(args):
    import torch

    torch.set_num_threads(1)
    kind, lora, ckpt = args.model, args.lora, args.ckpt
    model = build_model(kind, lora, args.layers, args.experts)
    if ckpt:
        model.gradient_checkpointing_enable()  # transformers 4.41: use_reentrant True
        if lora:
            model.enable_input_require_grads()
    model.train()
    counts = count_modules(model)
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=1e-4)
    acc = Acc(off=args.nowrap)
    engine = None
    if args.zero == 3:
        import deepspeed
        from deepspeed.runtime.zero.parameter_offload import DeepSpeedZeRoOffload
        from deepspeed.runtime.zero.stage3 import DeepSpeedZeroOptimizer_Stage3

        for attr, key in [
            ("pre_sub_module_forward_function", "pre_fwd"),
            ("post_sub_module_forward_function", "post_fwd"),
            ("pre_sub_module_backward_function", "pre_bwd"),
            ("post_sub_module_backward_function", "post_bwd"),
        ]:
            acc.wrap(DeepSpeedZeRoOffload, attr, key, by_module=True)
        acc.wrap(DeepSpeedZeroOptimizer_Stage3, "reduce_ready_partitions_and_remove_grads", "grad_hook")
        from deepspeed.accelerator import get_accelerator

        # The CPU accelerator counts its devices by running `numactl --hardware` on every call (accelerator/
        # cpu_accelerator.py device_count), which ZeRO-3 asks once per gradient bucket (stage3.py
        # __avg_scatter_grads); CUDA's answer is cached. One rank: answer 1, as the GPU run's cached count would.
        type(get_accelerator()).device_count = lambda self: 1
        deepspeed.init_distributed(dist_backend="gloo")
        engine, _, _, _ = deepspeed.initialize(model=model, optimizer=opt, config=ds_config(64, args.reuse))
        from deepspeed.runtime.zero.partitioned_param_coordinator import PartitionedParameterCoordinator

        acc.wrap(PartitionedParameterCoordinator, "fetch_sub_module", "fetch", by_module=True)
        acc.wrap(PartitionedParameterCoordinator, "_PartitionedParameterCoordinator__all_gather_params", "gather")
        acc.wrap(PartitionedParameterCoordinator, "_PartitionedParameterCoordinator__release_param", "free")
        acc.wrap(PartitionedParameterCoordinator, "release_sub_module", "release", by_module=True)
    else:
        model.to(torch.bfloat16)
    gen = torch.Generator().manual_seed(1)
    ids = torch.randint(0, 256, (1, args.seq), generator=gen)
    clock = time.thread_time  # this thread's CPU time: other processes on the machine do not count
    fwd, bwd, stp, wall = [], [], [], []
    per_step = []

    def micro_batch():
        t0 = clock()
        w0 = time.perf_counter()
        if engine is not None:
            loss = engine(input_ids=ids, labels=ids).loss
            t1 = clock()
            fwd_counts = dict(acc.n), dict(acc.t)
            engine.backward(loss)
            t2 = clock()
            engine.step()
        else:
            loss = model(input_ids=ids, labels=ids).loss
            t1 = clock()
            fwd_counts = ({}, {})
            loss.backward()
            t2 = clock()
            opt.step()
            opt.zero_grad(set_to_none=True)
        return t0, t1, t2, clock(), time.perf_counter() - w0, fwd_counts

    for i in range(args.warmup + args.steps):
        acc.reset()
        t0, t1, t2, t3, w, fwd_counts = micro_batch()
        if i >= args.warmup:
            fwd.append(t1 - t0)
            bwd.append(t2 - t1)
            stp.append(t3 - t2)
            wall.append(w)
            per_step.append({"fwd": fwd_counts, "all": (dict(acc.n), dict(acc.t))})
    # One more micro-batch under torch.profiler: the aten ops called from Python, counted (their times carry the
    # profiler's own cost per event).
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CPU]) as prof:
        micro_batch()
    n_ops, t_ops = top_level_ops(prof)
    med = lambda xs: sorted(xs)[len(xs) // 2]  # noqa: E731
    # Hook counts and CPU times of the last measured micro-batch (every micro-batch after the first runs alike).
    last = per_step[-1]
    out = {
        "fwd_s": med(fwd),
        "bwd_s": med(bwd),
        "step_s": med(stp),
        "wall_s": med(wall),
        "fwd_all_s": fwd,
        "bwd_all_s": bwd,
        "aten_ops": n_ops,
        "aten_ops_profiled_s": t_ops,
        **counts,
    }
    if engine is not None:
        n_all, t_all = last["all"]
        n_f, t_f = last["fwd"]
        out["calls"] = n_all
        out["seconds"] = t_all
        out["fwd_calls"] = n_f
        out["fwd_seconds"] = t_f
    print(json.dumps(out))


def per_pass(r):
    """Microseconds of this CPU per hooked module pass (gathering or not) and per gradient hook.

    Forward: the clean ZeRO-3 run's CPU time less the run without DeepSpeed, split between gathering and
    parameter-less modules by the timed pre/post functions (fetch and release inside them); what the timed
    functions leave over (nn.Module hook dispatch, the autograd functions around each module's inputs and outputs,
    the module stack) is shared evenly by the passes. Backward (with the recompute of checkpointing) alike, less
    the gradient hooks' own time. Microseconds, rounded to 0.1."""
    z0, z3, zc = r["zero0"], r["zero3"], r["zero3_clean"]
    n, t = z3["calls"], z3["seconds"]
    nf, tf = z3["fwd_calls"], z3["fwd_seconds"]
    g = lambda d, k: d.get(k, 0)  # noqa: E731
    fwd_g, fwd_b = g(nf, "pre_fwd_g"), g(nf, "pre_fwd_b")
    rec_g, rec_b = g(n, "pre_fwd_g") - fwd_g, g(n, "pre_fwd_b") - fwd_b
    bwd_g, bwd_b = g(n, "pre_bwd_g"), g(n, "pre_bwd_b")
    grads = g(n, "grad_hook")
    d_fwd = zc["fwd_s"] - z0["fwd_s"]
    d_bwd = zc["bwd_s"] - z0["bwd_s"]
    # The timed functions cost the wrapped run its timer calls: the wrapped total less the clean one.
    wrap_cost = (z3["fwd_s"] + z3["bwd_s"]) - (zc["fwd_s"] + zc["bwd_s"])
    f_g = g(tf, "pre_fwd_g") + g(tf, "post_fwd_g")
    f_b = g(tf, "pre_fwd_b") + g(tf, "post_fwd_b")
    r_g = g(t, "pre_fwd_g") + g(t, "post_fwd_g") - f_g
    r_b = g(t, "pre_fwd_b") + g(t, "post_fwd_b") - f_b
    b_g = g(t, "pre_bwd_g") + g(t, "post_bwd_g")
    b_b = g(t, "pre_bwd_b") + g(t, "post_bwd_b")
    grad_t = g(t, "grad_hook")
    passes_f = fwd_g + fwd_b
    passes_b = rec_g + rec_b + bwd_g + bwd_b
    rest_f = (d_fwd - f_g - f_b) / passes_f if passes_f else 0.0
    rest_b = (d_bwd - r_g - r_b - b_g - b_b - grad_t) / passes_b if passes_b else 0.0
    us = lambda x: round(x * 1e6, 1)  # noqa: E731
    div = lambda a, b: a / b if b else 0.0  # noqa: E731
    return {
        "passes": {"fwd_g": fwd_g, "fwd_b": fwd_b, "rec_g": rec_g, "rec_b": rec_b, "bwd_g": bwd_g, "bwd_b": bwd_b},
        "gradients": grads,
        "all_gather_calls": g(n, "gather"),
        "params_freed": g(n, "free"),
        "delta_fwd_us": us(d_fwd),
        "delta_bwd_us": us(d_bwd),
        "timer_cost_us": us(wrap_cost),
        "untimed_fwd_per_pass": us(rest_f),
        "untimed_bwd_per_pass": us(rest_b),
        "fwd_gathering": us(div(f_g, fwd_g) + rest_f),
        "fwd_bare": us(div(f_b, fwd_b) + rest_f),
        "rec_gathering": us(div(r_g, rec_g) + rest_b),
        "rec_bare": us(div(r_b, rec_b) + rest_b),
        "bwd_gathering": us(div(b_g, bwd_g) + rest_b),
        "bwd_bare": us(div(b_b, bwd_b) + rest_b),
        "gradient": us(div(grad_t, grads)),
        "all_passes_mean": us(div(d_fwd + d_bwd - grad_t, passes_f + passes_b)),
    }


def summary(results):
    """The price the time model reads: microseconds per module pass (gathering, bare) and per gradient, pooled over
    the configurations with gradient checkpointing (every scored ZeRO-3 row checkpoints), passes weighted alike."""
    tot = {"gathering": [0.0, 0], "bare": [0.0, 0], "gradient": [0.0, 0]}
    for name, r in results.items():
        if not name.endswith("-ckpt"):
            continue
        pp = r["per_pass_us"]
        for kind, short in (("gathering", "g"), ("bare", "b")):
            for phase in ("fwd", "rec", "bwd"):
                n = pp["passes"][f"{phase}_{short}"]
                tot[kind][0] += pp[f"{phase}_{kind}"] * n
                tot[kind][1] += n
        tot["gradient"][0] += pp["gradient"] * pp["gradients"]
        tot["gradient"][1] += pp["gradients"]
    return {k: round(v[0] / v[1], 1) for k, v in tot.items() if v[1]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--one", action="store_true")
    ap.add_argument("--model", default="dense")
    ap.add_argument("--lora", action="store_true")
    ap.add_argument("--ckpt", action="store_true")
    ap.add_argument("--zero", type=int, default=3)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--experts", type=int, default=60)
    ap.add_argument("--seq", type=int, default=64)
    # The first micro-batch records the module trace; the second, the first with a complete trace, fills
    # release_sub_module's lru_cache (a walk of the trace per module): both are warm-up.
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--reuse", type=float, default=0)
    ap.add_argument("--nowrap", action="store_true")
    ap.add_argument("--ranks", type=int, default=2, help="gloo ranks of the ZeRO-3 runs (each times its own)")
    ap.add_argument("--only", default="")
    ap.add_argument("--out", default="", help="write the JSON here (DeepSpeed logs to stdout)")
    args = ap.parse_args()
    if args.one:
        run_one(args)
        return
    versions = library_versions()

    results = {}
    port = 29611
    for name, kind, lora, ckpt, experts in CONFIGS:
        if args.only and name not in args.only.split(","):
            continue
        results[name] = {}
        # Without DeepSpeed; ZeRO-3 with its hook functions timed; ZeRO-3 untouched (the clean total).
        for key, zero, nowrap in (("zero0", 0, False), ("zero3", 3, False), ("zero3_clean", 3, True)):
            cmd = [sys.executable, __file__, "--one", "--model", kind, "--zero", str(zero)]
            cmd += ["--layers", str(args.layers), "--experts", str(experts), "--seq", str(args.seq)]
            cmd += ["--warmup", str(args.warmup), "--steps", str(args.steps), "--reuse", str(args.reuse)]
            cmd += ["--lora"] if lora else []
            cmd += ["--ckpt"] if ckpt else []
            cmd += ["--nowrap"] if nowrap else []
            port += 1
            # ZeRO-3 on two gloo ranks: with one, DeepSpeed skips the all-gather (partition_parameters.py
            # all_gather_coalesced returns a NoGatherCoalescedHandle when num_partitions == 1).
            world = args.ranks if zero == 3 else 1
            results[name][key] = run_ranks(cmd, world, port, f"{name} {key}")
        results[name]["per_pass_us"] = per_pass(results[name])
    write_json(
            {
                "versions": {
                    "python": platform.python_version(),
                    **versions,
                },
                "cpu": cpu_model(),
                "method": METHOD,
                "setup": {
                    "layers": args.layers,
                    "seq": args.seq,
                    "stage3_max_reuse_distance": args.reuse,
                    "zero3_ranks": args.ranks,
                    "warmup": args.warmup,
                    "steps": args.steps,
                },
                "results": results,
                "summary_us": summary(results),
            },
            args.out,
        )


if __name__ == "__main__":
    main()
