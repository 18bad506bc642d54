# The ops one decode step of transformers' generate dispatches, per decoder layer and outside the layers, by
# transformers version (and the step's host time on CPU tensors, which on a shared machine is too noisy to use).
#
# The time model prices an eager decode step's layers at 45 ops a layer and one op at EAGER_DECODE_OP_SECONDS, a
# figure from HF generate of Llama-7B on an RTX 3090 under the transformers of April 2023
# (bitsandbytes-foundation/bitsandbytes#347; Llama entered transformers in 4.28). This script runs generate on a tiny
# model at two depths and counts the aten ops each decode step dispatches (TorchDispatchMode): the slope is one decoder
# layer's, the intercept the step's work outside the layers. Ops that launch a kernel on a GPU are counted apart from
# views, allocations and metadata. Arms:
#   src  LlamaForCausalLM (no GQA), batch 1, no padding, greedy: the constant's source under transformers 4.28.1;
#   rows Qwen2ForCausalLM (q/k/v biases, 7 query heads a KV head, as Qwen2/2.5), half the rows left-padded (the
#        attention mask holds padding), sampling at temperature 0.7: TRL's GRPO rollout through generate.
# Same torch (2.8.0), one thread, fp32 (autocast's casts are priced apart: time/objective.ts autocastDecodeOps).
#
# Run: a venv with torch==2.8.0 and the transformers version on PYTHONPATH (4.28.1 and 4.48.3 want
# huggingface_hub<1.0 and their own tokenizers), then
#   python scripts/measure/generate_layer_host.py src|rows [batch] [rounds]
# It prints one JSON line: per-layer and per-step microseconds (medians over rounds of interleaved depths), and the
# ops and views a decode step dispatches per layer and outside the layers (calibration/measured/generate-layer-ops-cpu.json).
import json
import statistics
import sys
import time

import torch
import transformers
from torch.utils._python_dispatch import TorchDispatchMode

torch.set_num_threads(1)
torch.manual_seed(0)
ARM = sys.argv[1]
BATCH = int(sys.argv[2]) if len(sys.argv) > 2 else (1 if ARM == "src" else 64)
ROUNDS = int(sys.argv[3]) if len(sys.argv) > 3 else 7
DEPTHS = (2, 10)
PROMPT = 16
NEW = (8, 40)


# Ops the dispatcher sees that launch no kernel: views (OpOverload.is_view), allocations and metadata.
NO_KERNEL = {torch.ops.aten.empty.memory_format, torch.ops.aten.empty_strided.default, torch.ops.aten.detach.default,
             torch.ops.aten.lift_fresh.default, torch.ops.aten.sym_size.int, torch.ops.aten.sym_stride.int,
             torch.ops.aten.sym_numel.default, torch.ops.aten.sym_storage_offset.default}


def model_of(layers):
    if ARM == "src":
        cfg = transformers.LlamaConfig(vocab_size=256, hidden_size=64, intermediate_size=128,
                                       num_hidden_layers=layers, num_attention_heads=4)
        return transformers.LlamaForCausalLM(cfg).eval()
    cfg = transformers.Qwen2Config(vocab_size=256, hidden_size=112, intermediate_size=224,
                                   num_hidden_layers=layers, num_attention_heads=7, num_key_value_heads=1,
                                   max_window_layers=layers)
    kw = {"attn_implementation": "sdpa"}
    return transformers.Qwen2ForCausalLM._from_config(cfg, **kw).eval()


def inputs():
    ids = torch.randint(3, 256, (BATCH, PROMPT))
    mask = torch.ones_like(ids)
    if ARM != "src":
        # Left padding on half the rows, as TRL pads a generation batch's prompts.
        mask[: max(1, BATCH // 2), : PROMPT // 4] = 0
    return ids, mask


def gen_kwargs(n):
    kw = dict(max_new_tokens=n, min_new_tokens=n, pad_token_id=0, eos_token_id=1)
    if ARM == "src":
        kw["do_sample"] = False
    else:
        kw.update(do_sample=True, temperature=0.7, top_p=1.0, top_k=0)
    return kw


class OpCount(TorchDispatchMode):
    """Counts the aten ops dispatched (each a kernel launch on a GPU; views included, as the dispatcher sees them)."""

    def __init__(self):
        super().__init__()
        self.ops = 0
        self.views = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if func.is_view or func in NO_KERNEL:
            self.views += 1
        else:
            self.ops += 1
        return func(*args, **(kwargs or {}))


def run(model, n, count=None):
    ids, mask = inputs()
    t = time.thread_time()
    with torch.no_grad():
        if count is None:
            model.generate(input_ids=ids, attention_mask=mask, **gen_kwargs(n))
        else:
            with count:
                model.generate(input_ids=ids, attention_mask=mask, **gen_kwargs(n))
    return time.thread_time() - t


def ops_per_step(model, n0, n1):
    a, b = OpCount(), OpCount()
    run(model, n0, a)
    run(model, n1, b)
    return (b.ops - a.ops) / (n1 - n0), (b.views - a.views) / (n1 - n0)


models = {d: model_of(d) for d in DEPTHS}
for d in DEPTHS:  # warm-up
    run(models[d], NEW[0])
per_step = {d: [] for d in DEPTHS}
for _ in range(ROUNDS):
    for d in DEPTHS:
        a = run(models[d], NEW[0])
        b = run(models[d], NEW[1])
        per_step[d].append((b - a) / (NEW[1] - NEW[0]))
step = {d: statistics.median(v) for d, v in per_step.items()}
counted = {d: ops_per_step(models[d], *NEW) for d in DEPTHS}
ops = {d: c[0] for d, c in counted.items()}
views = {d: c[1] for d, c in counted.items()}
layer_ops = (ops[DEPTHS[1]] - ops[DEPTHS[0]]) / (DEPTHS[1] - DEPTHS[0])
layer_views = (views[DEPTHS[1]] - views[DEPTHS[0]]) / (DEPTHS[1] - DEPTHS[0])
layer = (step[DEPTHS[1]] - step[DEPTHS[0]]) / (DEPTHS[1] - DEPTHS[0])
outside = step[DEPTHS[0]] - DEPTHS[0] * layer
print(json.dumps({
    "arm": ARM, "transformers": transformers.__version__, "torch": torch.__version__, "batch": BATCH,
    "rounds": ROUNDS, "layer_us": round(layer * 1e6, 1), "outside_layers_us": round(outside * 1e6, 1),
    "step_us": {str(d): round(s * 1e6, 1) for d, s in step.items()},
    "layer_ops": round(layer_ops, 2), "outside_layers_ops": round(ops[DEPTHS[0]] - DEPTHS[0] * layer_ops, 2),
    "layer_views": round(layer_views, 2), "outside_layers_views": round(views[DEPTHS[0]] - DEPTHS[0] * layer_views, 2),
}))
