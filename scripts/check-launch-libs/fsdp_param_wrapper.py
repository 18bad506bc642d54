"""LoRA on a transformers 5 MoE's fused experts (PEFT target_parameters: lora.ParamWrapper) under FSDP, on CPU.

A two-layer Qwen3-MoE (4 experts, hidden 64) is built, loaded (with BitsAndBytesConfig for --quant nf4) and
adapted with the lora_config of a launch folder's hf-args.json, as its train.py and TRL's SFTTrainer do
(get_peft_model, trainable parameters cast to bf16 for a quantized model, enable_input_require_grads), then
wrapped as Accelerate does for its accelerate.yaml: FSDP1 with the kwargs of Accelerator.prepare_model
(accelerate 1.15.0 accelerator.py L1919-L2040, its fp32 upcast of trainable flat parameters) after transformers'
update_fsdp_plugin_peft (PEFT fsdp_auto_wrap_policy, mixed precision = quant storage; the Trainer calls it for
FSDP1 only, trainer.py L1570-L1601); FSDP2 through accelerate's own fsdp2_prepare_model (TRANSFORMER_BASED_WRAP);
DDP for --fsdp 0. One forward and backward are compared with the same step without FSDP.
Deviations, CPU only: sync_module_states and cpu_ram_efficient_loading off (FSDP1 syncs GPU tensors only).

  one case:   torchrun --nproc_per_node N fsdp_param_wrapper.py case --quant nf4 --fsdp 1 --orig 0 --args hf-args.json
  all cases:  python fsdp_param_wrapper.py matrix --args hf-args.json --out test/fixtures/launch-libs/fsdp-param-wrapper.json
(in a venv of trainer.ts HF_PINS: torch, transformers, peft, accelerate, bitsandbytes, trl)
"""
import argparse
import json
import os
import re
import sys
import traceback

import torch
import torch.distributed as dist

if len(sys.argv) > 1 and sys.argv[1] == "matrix":
    import subprocess
    import importlib.metadata as md

    m = argparse.ArgumentParser()
    m.add_argument("mode")
    m.add_argument("--args", required=True)
    m.add_argument("--out", required=True)
    m.add_argument("--tiny", default="/tmp/fsdp-param-wrapper-tiny")
    ma = m.parse_args()
    cases, port = [], 29700
    # (world size, weights, FSDP version (0: DDP), use_orig_params, LoRA modules: the args file's, or attention
    # only, where PEFT adds no router adapter and the first ParamWrapper reached is the experts').
    grid = [(ws, q, f, o, "args") for ws in (1, 2) for q, f, o in (("nf4", 1, 0), ("nf4", 1, 1), ("nf4", 2, 0),
                                                                    ("none", 2, 0))]
    grid += [(2, "nf4", 0, 0, "args"), (2, "nf4", 1, 0, "attention"), (2, "nf4", 1, 1, "attention")]
    for ws, quant, fsdp, orig, targets in grid:
        port += 1
        cmd = [os.path.join(os.path.dirname(sys.executable), "torchrun"), "--nproc_per_node", str(ws),
               "--master_port", str(port), __file__, "case", "--quant", quant, "--fsdp", str(fsdp),
               "--orig", str(orig), "--args", ma.args, "--tiny", ma.tiny, "--targets", targets]
        text = subprocess.run(cmd, capture_output=True, text=True).stdout
        d = json.loads(text[text.rfind("\n{"):])
        c = {"worldSize": ws, "quant": quant, "fsdpVersion": fsdp, "useOrigParams": bool(orig),
             "targetModules": "attention" if targets == "attention" else "args", "result": d["result"]}
        if d["result"] == "error":
            c["error"] = d["error"].splitlines()[0][:300]
            where = [ln.strip() for ln in d["traceback"].splitlines() if ln.strip().startswith("File")][-1]
            c["raisedAt"] = re.sub(r'^File ".*?site-packages/', 'File "', where)  # no venv path
        else:
            c["minGradCosine"] = min(v["cos"] if isinstance(v, dict) else v for v in d["expert_lora_grads"].values())
        if fsdp == 2:
            c["fsdp2Groups"] = d.get("fsdp2_groups")
        print(json.dumps(c), flush=True)
        cases.append(c)
        if ws == 1 and quant == "nf4" and fsdp == 1 and not orig:
            expert = {n.rsplit(".", 1)[-1]: {"type": t[0], "dtype": t[1]} for n, t in d["params_after_load"].items()
                      if n.startswith("model.layers.0.") and n.rsplit(".", 1)[-1] in ("gate_up_proj", "down_proj")}
            wrappers = d["param_wrappers"]
            expert["q_proj"] = {"type": d["params_after_load"]["model.layers.0.self_attn.q_proj.weight"][0],
                                "dtype": d["params_after_load"]["model.layers.0.self_attn.q_proj.weight"][1]}
    libs = ("torch", "transformers", "peft", "accelerate", "bitsandbytes", "trl")
    with open(ma.out, "w") as f:
        json.dump({"what": "scripts/check-launch-libs/fsdp_param_wrapper.py matrix, CPU, gloo",
                   "versions": {k: md.version(k).split("+")[0] for k in libs},
                   "model": "Qwen3MoeConfig: 2 layers, hidden 64, 4 experts (2 active), moe_intermediate 32, vocab 128",
                   "lora_config": json.load(open(ma.args))["lora_config"],
                   "expertParams": expert, "paramWrappersLayer0": wrappers, "cases": cases}, f, indent=2)
        f.write("\n")
    sys.exit(0)

p = argparse.ArgumentParser()
p.add_argument("mode", nargs="?", default="case")
p.add_argument("--quant", default="nf4")
p.add_argument("--fsdp", type=int, default=1)
p.add_argument("--orig", type=int, default=0)
p.add_argument("--targets", default="args", help="args: the args file's target_modules; attention: q/k/v/o_proj")
p.add_argument("--ckpt", type=int, default=1)
p.add_argument("--tiny", default="/tmp/fsdp-param-wrapper-tiny")
p.add_argument("--args", default="hf-args.json")
a = p.parse_args()

os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
os.environ.setdefault("MASTER_PORT", str(29500 + os.getpid() % 1000))
for k, v in dict(RANK="0", WORLD_SIZE="1", LOCAL_RANK="0", LOCAL_WORLD_SIZE="1").items():
    os.environ.setdefault(k, v)
dist.init_process_group("gloo")

from transformers import AutoModelForCausalLM, BitsAndBytesConfig, Qwen3MoeConfig  # noqa: E402
from peft import LoraConfig, get_peft_model  # noqa: E402

report = {"quant": a.quant, "fsdp": a.fsdp, "use_orig_params": bool(a.orig), "ckpt": bool(a.ckpt)}


def stage(name):
    report["stage"] = name
    print(f"== {name}", flush=True)


if not os.path.exists(os.path.join(a.tiny, "config.json")):
    cfg = Qwen3MoeConfig(vocab_size=128, hidden_size=64, intermediate_size=128, moe_intermediate_size=32,
                         num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, head_dim=16,
                         num_experts=4, num_experts_per_tok=2, max_position_embeddings=256, tie_word_embeddings=False)
    torch.manual_seed(0)
    AutoModelForCausalLM.from_config(cfg, dtype=torch.bfloat16).save_pretrained(a.tiny)

with open(a.args) as f:
    hf = json.load(f)

try:
    stage("load")
    kw = {"dtype": torch.bfloat16, "attn_implementation": "sdpa"}
    if a.quant == "nf4":
        bnb = dict(hf["bnb_config"])
        for key in ("bnb_4bit_compute_dtype", "bnb_4bit_quant_storage"):
            bnb[key] = getattr(torch, bnb[key])
        kw["quantization_config"] = BitsAndBytesConfig(**bnb)
    model = AutoModelForCausalLM.from_pretrained(a.tiny, **kw)
    report["experts_implementation"] = getattr(model.config, "_experts_implementation", None)
    report["params_after_load"] = {n: [type(t).__name__, str(t.dtype), list(t.shape)]
                                   for n, t in model.named_parameters() if ".0." in n or "layers" not in n}
    report["modules_layer0"] = {n: type(m).__name__ for n, m in model.named_modules()
                                if n.startswith("model.layers.0.") and n.count(".") <= 4}

    stage("get_peft_model")
    torch.manual_seed(0)  # the same adapter init on every rank
    lora = dict(hf["lora_config"])
    if a.targets == "attention":
        lora["target_modules"] = ["q_proj", "k_proj", "v_proj", "o_proj"]
    report["target_modules"] = lora["target_modules"]
    model = get_peft_model(model, LoraConfig(**lora))
    _is_quantized = a.quant == "nf4"
    if a.ckpt:
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
        model.enable_input_require_grads()
    if _is_quantized:  # trl 1.9.0 sft_trainer.py L1127-L1130
        for prm in model.parameters():
            if prm.requires_grad:
                prm.data = prm.data.to(torch.bfloat16)
    report["wrappers"] = sorted({type(m).__name__ for m in model.modules() if "lora" in type(m).__module__})
    # What PEFT adapted through target_parameters in the first layer: module, parameter, rank.
    report["param_wrappers"] = [[n.split(".layers.0.", 1)[1], mod.parameter_name, mod.r["default"]]
                                for n, mod in model.named_modules()
                                if type(mod).__name__ == "ParamWrapper" and ".layers.0." in n]
    report["trainable"] = sum(x.numel() for x in model.parameters() if x.requires_grad)

    torch.manual_seed(1)
    ids = torch.randint(0, 128, (2, 32))

    # Reference without FSDP: loss and trainable grads.
    stage("reference")
    out = model(input_ids=ids, labels=ids)
    out.loss.backward()
    ref = {n: x.grad.detach().float().clone() for n, x in model.named_parameters()
           if x.requires_grad and x.grad is not None}
    report["ref_loss"] = out.loss.item()
    model.zero_grad(set_to_none=True)

    if a.fsdp == 0 and dist.get_world_size() == 1:
        report["result"] = "ok (no fsdp)"
        raise SystemExit
    if a.fsdp == 0:  # DDP, as accelerate prepares a MULTI_GPU model (find_unused_parameters false)
        stage("ddp")
        from torch.nn.parallel import DistributedDataParallel as DDP
        fmodel = DDP(model)
        out = fmodel(input_ids=ids, labels=ids)
        report["fsdp_loss"] = out.loss.item()
        out.loss.backward()
        cmp = {n: round(torch.nn.functional.cosine_similarity(g.flatten(), dict(model.named_parameters())[n].grad.float().flatten(), dim=0).item(), 4)
               for n, g in ref.items() if "experts" in n and "lora_B" in n}
        report["expert_lora_grads"] = cmp
        report["result"] = "ok"
        raise SystemExit

    stage("wrap")
    from accelerate.utils import FullyShardedDataParallelPlugin
    from peft.utils.other import fsdp_auto_wrap_policy

    common = dict(auto_wrap_policy="transformer_based_wrap", transformer_cls_names_to_wrap=["Qwen3MoeDecoderLayer"],
                  state_dict_type="FULL_STATE_DICT", cpu_ram_efficient_loading=False, activation_checkpointing=False)
    if a.fsdp == 1:
        plugin = FullyShardedDataParallelPlugin(
            fsdp_version=1, reshard_after_forward="FULL_SHARD", use_orig_params=bool(a.orig),
            sync_module_states=False, backward_prefetch="BACKWARD_PRE", forward_prefetch=False, **common)
    else:
        plugin = FullyShardedDataParallelPlugin(fsdp_version=2, reshard_after_forward=True, **common)
    # accelerate sets param_init_fn to to_empty on the accelerator device under sync_module_states; CPU here.
    plugin.sync_module_states = False  # FSDP1 syncs only GPU tensors; one rank has nothing to sync
    plugin.param_init_fn = lambda x: x.to_empty(device=torch.device("cpu"), recurse=False)
    plugin.set_mixed_precision("bf16")
    # transformers 5.14.1 distributed/fsdp.py update_fsdp_plugin_peft
    # Trainer calls it only where it delays optimizer creation: FSDP1 (trainer.py L1570-L1601).
    if a.fsdp == 1:
        plugin.auto_wrap_policy = fsdp_auto_wrap_policy(model)
        if _is_quantized:
            plugin.set_mixed_precision(torch.bfloat16, override=True)
    plugin.set_auto_wrap_policy(model)
    if a.fsdp == 1:
        from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
        kwargs = {
            "sharding_strategy": plugin.sharding_strategy or plugin.reshard_after_forward,
            "cpu_offload": plugin.cpu_offload, "auto_wrap_policy": plugin.auto_wrap_policy,
            "mixed_precision": plugin.mixed_precision_policy, "sync_module_states": plugin.sync_module_states,
            "backward_prefetch": plugin.backward_prefetch, "forward_prefetch": plugin.forward_prefetch,
            "use_orig_params": plugin.use_orig_params, "param_init_fn": plugin.param_init_fn,
            "ignored_modules": plugin.ignored_modules, "limit_all_gathers": plugin.limit_all_gathers,
            "device_id": torch.device("cpu"),
        }
        report["fsdp_kwargs"] = {k: str(v) for k, v in kwargs.items() if k != "auto_wrap_policy"}
        fmodel = FSDP(model, **kwargs)
        for module in FSDP.fsdp_modules(fmodel):  # accelerate's fp32 upcast of trainable flat params
            if not module._has_params:
                continue
            fp = module._flat_param
            if fp.dtype != torch.float32 and fp.requires_grad:
                fp.data = fp.data.to(torch.float32)
                module._handle._orig_param_dtype = torch.float32
        report["fsdp_units"] = len(FSDP.fsdp_modules(fmodel))
    else:
        from accelerate import Accelerator  # noqa: F401
        from accelerate.utils.fsdp_utils import fsdp2_prepare_model

        class Acc:  # the attributes fsdp2_prepare_model reads from the Accelerator
            state = type("S", (), {"fsdp_plugin": plugin})()
            device = torch.device("cpu")
            is_main_process = True
            torch_device_mesh = None
            parallelism_config = None
            mixed_precision = "bf16"

        fmodel = fsdp2_prepare_model(Acc(), model)
        from torch.distributed.fsdp import FSDPModule
        report["fsdp2_groups"] = [n or "<root>" for n, m in fmodel.named_modules() if isinstance(m, FSDPModule)]

    stage("forward")
    opt = torch.optim.AdamW([x for x in fmodel.parameters() if x.requires_grad], lr=1e-3)
    out = fmodel(input_ids=ids, labels=ids)
    report["fsdp_loss"] = out.loss.item()
    stage("backward")
    out.loss.backward()
    stage("compare")
    if a.fsdp == 1 and not a.orig:
        # Flat params: compare the LoRA B grads through the module tree (summon_full_params with_grads).
        with FSDP.summon_full_params(fmodel, with_grads=True):
            got = {n.replace("_fsdp_wrapped_module.", ""): x.grad.detach().float().clone()
                   for n, x in fmodel.named_parameters() if x.grad is not None}
    else:
        got = {n.replace("_fsdp_wrapped_module.", "").replace("_checkpoint_wrapped_module.", ""):
               (x.grad.full_tensor() if hasattr(x.grad, "full_tensor") else x.grad).detach().float().clone()
               for n, x in fmodel.named_parameters() if x.grad is not None}
    cmp = {}
    for n, g in ref.items():
        if "experts" not in n or "lora_B" not in n:
            continue
        h = got.get(n)
        if h is None:
            cmp[n] = "missing"
            continue
        h = h.reshape(g.shape)
        cos = torch.nn.functional.cosine_similarity(g.flatten(), h.flatten(), dim=0).item()
        cmp[n] = {"cos": round(cos, 4), "ref_norm": round(g.norm().item(), 5), "fsdp_norm": round(h.norm().item(), 5)}
    report["expert_lora_grads"] = cmp
    stage("step")
    opt.step()
    out = fmodel(input_ids=ids, labels=ids)
    out.loss.backward()
    report["loss_after_step"] = out.loss.item()
    report["result"] = "ok"
except SystemExit:
    pass
except BaseException as e:  # noqa: BLE001
    report["result"] = "error"
    report["error"] = f"{type(e).__name__}: {e}"[:2000]
    report["traceback"] = traceback.format_exc()[-4000:]
finally:
    report["world_size"] = dist.get_world_size()
    if dist.get_rank() == 0:
        print(json.dumps(report, indent=1, default=str))
    dist.destroy_process_group()
