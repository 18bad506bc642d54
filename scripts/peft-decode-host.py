# Host time of PEFT's unmerged LoRA in a decode step, against the decoder layer's own: one Qwen2 decoder layer's call
# on one token a row, timed in one process on CPU tensors a few dozen elements wide (all host work).
#
# TRL's GRPOTrainer generates with the trained PEFT model in training mode (docs/time-model.md "The trainer's generate
# in training mode"). Each adapted linear runs PEFT's Linear.forward: its Python (_check_forward_args, the
# active-adapter loop, the nn.Module calls of lora_dropout, lora_A and lora_B) around its ops. The time model prices a
# decode step's host work by dispatched ops at one eager op's cost (src/core/time/decode-host.ts); this script
# measures a layer's host time with the adapters on every projection against the plain layer's, and counts the
# dispatched aten ops of each, to give the host time of one adapted linear in units of the plain layer's ops.
#
# Run (about a minute on one core): a venv with torch==2.8.0, transformers==4.56.2 and peft==0.15.2, then
#   python scripts/peft-decode-host.py [windows] [amp]
# A third arm, `unsloth`, runs PEFT's forward as unsloth_zoo's patch_lora_forwards rewrites it
# (unslothai/unsloth-zoo@ce232d6c unsloth_zoo/compiler.py: _check_forward_args dropped, the input cast guarded by
# torch.is_autocast_enabled(), the adapter's line replaced by COMPILED_LORA_FORWARD's addmm, returned from the loop).
# That arm leaves out the rewrite's guard before the base layer's call and, on CPU, reads CUDA's autocast state: the
# figure the model prices is scripts/measure/unsloth_lora_forward_host.py's.
# `amp`: a bf16 model whose adapters get_peft_model keeps in fp32, each call an autocast region of its own, as the
# trainer's generate runs a bf16 policy under accelerate's autocast wrapper (PEFT's input cast and autocast's weight
# casts inside the adapted linear's time).
import sys
import time

import torch
from peft import LoraConfig, get_peft_model
from torch.utils._python_dispatch import TorchDispatchMode
from transformers import Qwen2Config, Qwen2ForCausalLM

torch.set_num_threads(1)
torch.manual_seed(0)
BATCH = 8
AMP = len(sys.argv) > 2 and sys.argv[2] == "amp"
DTYPE = torch.bfloat16 if AMP else torch.float32
TARGETS = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]


# unslothai/unsloth-zoo@ce232d6c unsloth_zoo/compiler.py COMPILED_LORA_FORWARD (not compiled: the decorator is commented)
UNSLOTH_LORA_FORWARD = '''
torch_addmm = torch.addmm
torch_add = torch.add
def lora_forward(result, lora_A, lora_B, dropout, x, scaling):
    target_dtype = result.dtype
    xA = dropout(x).to(target_dtype) @ lora_A.weight.to(target_dtype).t()
    shape = result.shape
    output = torch_addmm(result.view(-1, shape[-1]), xA.view(-1, xA.shape[-1]), lora_B.weight.to(target_dtype).t(),
                         alpha=scaling, beta=1).view(shape)
    bias = lora_B.bias
    if bias is not None:
        output = torch_add(output, bias.to(target_dtype), alpha=scaling)
    return output
'''


def unsloth_forward():
    """PEFT's lora.Linear.forward with patch_lora_forwards' source replacements (compiler.py lines 3386-3466)."""
    import inspect
    import textwrap

    import peft.tuners.lora.layer as layer

    source = textwrap.dedent(inspect.getsource(layer.Linear.forward))
    replace = "return lora_forward(result, lora_A, lora_B, dropout, x, scaling).to(torch_result_dtype)"
    source = source.replace("result = result + lora_B(lora_A(dropout(x))) * scaling", replace)
    source = source.replace("def forward", "def unsloth_forward", 1)
    new = ("if not torch.is_autocast_enabled(): result, x = result.to(lora_A.weight.dtype), "
           "x.to(lora_A.weight.dtype)")
    for old in ("x = x.to(lora_A.weight.dtype)", "x = self._cast_input_dtype(x, lora_A.weight.dtype)"):
        source = source.replace(old, new)
    source = source.replace("self._check_forward_args(x, *args, **kwargs)", "")
    scope = dict(vars(layer))
    exec(UNSLOTH_LORA_FORWARD + source, scope)
    return scope["unsloth_forward"]


def build(peft: bool):
    cfg = Qwen2Config(num_hidden_layers=1, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                      num_key_value_heads=2, vocab_size=512, max_position_embeddings=1024)
    cfg._attn_implementation = "sdpa"
    m = Qwen2ForCausalLM(cfg).to(DTYPE)
    if peft:
        m = get_peft_model(m, LoraConfig(r=16, lora_alpha=32, lora_dropout=0.05, target_modules=TARGETS))
        m.train()  # TRL's generate runs in training mode: the dropout runs
    else:
        m.eval()
    inner = m.get_base_model() if peft else m
    return inner.model.layers[0], inner.model.rotary_emb


class Count(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.n = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.n += 1
        return func(*args, **(kwargs or {}))


def call(layer, pe, h):
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=AMP):
        return layer(h, attention_mask=None, position_ids=None, past_key_values=None, use_cache=False,
                     position_embeddings=pe)


arms = {"plain": build(False), "lora": build(True)}
if len(sys.argv) > 2 and sys.argv[2] == "unsloth":
    import peft.tuners.lora.layer as lora_layer

    lora_layer.Linear.forward = unsloth_forward()
    arms["lora"] = build(True)
h = torch.randn(BATCH, 1, 64, dtype=DTYPE)
pos = torch.zeros(BATCH, 1, dtype=torch.long)
ops = {}
with torch.no_grad():
    for name, (layer, rope) in arms.items():
        pe = rope(h, pos)
        with Count() as c:
            call(layer, pe, h)
        ops[name] = c.n
    windows = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    best = {name: float("inf") for name in arms}
    for _ in range(windows):
        for name, (layer, rope) in arms.items():
            pe = rope(h, pos)
            t0 = time.perf_counter()
            for _ in range(200):
                call(layer, pe, h)
            best[name] = min(best[name], (time.perf_counter() - t0) / 200)
plain, lora = best["plain"], best["lora"]
per_op = plain / ops["plain"]
per_linear = (lora - plain) / len(TARGETS)
print(f"plain layer: {plain * 1e6:.1f} us, {ops['plain']} aten ops ({per_op * 1e6:.2f} us an op)")
print(f"lora layer:  {lora * 1e6:.1f} us, {ops['lora']} aten ops")
print(f"an adapted linear: {(ops['lora'] - ops['plain']) / len(TARGETS):.1f} aten ops, "
      f"{per_linear * 1e6:.1f} us = {per_linear / per_op:.1f} plain-layer ops")
