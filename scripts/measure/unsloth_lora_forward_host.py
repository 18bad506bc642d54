# Host time of Unsloth's replaced LoRA forward at a decode step of the trainer's generate, against PEFT's own
# lora.Linear.forward and the plain decoder layer: one Qwen2 decoder layer's call on one token a row, on CPU tensors a
# few dozen elements wide (all host work), three arms timed interleaved in one process.
#
# unsloth_zoo's patch_lora_forwards (unslothai/unsloth-zoo@ce232d6c unsloth_zoo/compiler.py lines 3324-3534) rewrites
# the source of PEFT's Linear.forward and execs it with COMPILED_LORA_FORWARD (whose @torch.compile is commented out).
# unsloth_zoo is not imported here (its import wants a GPU): unsloth_forward() below applies the same source
# replacements, in the same order, to the installed PEFT's Linear.forward, with UNSLOTH_FORCE_FLOAT32 unset:
#   - `result = result.clone()` removed;
#   - `result = result + lora_B(lora_A(dropout(x))) * scaling` -> `return lora_forward(...).to(torch_result_dtype)`
#     (the source sets torch_result_dtype = result.dtype), returned from inside the active-adapter loop;
#   - the input cast -> `if not torch.is_autocast_enabled(): result, x = result.to(..), x.to(..)`;
#   - `self._check_forward_args(x, *args, **kwargs)` removed;
#   - the base layer's call guarded by `if not torch.is_autocast_enabled() and hasattr(self.base_layer, 'weight')
#     ... and x.dtype != self.base_layer.weight.dtype: x = x.to(...)`.
#
# Modes (each arm in each mode, adapters r 16 on the seven projections, get_peft_model's defaults):
#   fp32:       an fp32 layer, no autocast (the PEFT figure of scripts/peft-decode-host.py).
#   amp:        a bf16 layer with get_peft_model's fp32 adapters, each call an autocast region of its own, as a 16-bit
#               policy generates under the trainer's autocast: Unsloth's forward skips its input cast and casts the
#               two fp32 factors to the output's dtype (its 4 kernels: two casts, x @ A, addmm).
# and lora_dropout 0 (nn.Identity: Unsloth's fast path) or 0.05 (nn.Dropout, training mode).
#
# Times are this thread's CPU time (time.thread_time) over windows of CALLS calls, the minimum of WINDOWS windows an
# arm in a round, the arms' windows interleaved; ROUNDS rounds give the spread. Each round reports an adapted
# linear's host time in plain layers: (arm - plain) / 7 / plain, and Unsloth's over PEFT's.
#
# Run (a few minutes on one core): a venv with torch==2.8.0, transformers==4.56.2, peft==0.15.2, then
#   python scripts/measure/unsloth_lora_forward_host.py --out calibration/measured/unsloth-lora-forward-host-cpu.json
import argparse
import inspect
import json
import platform
import statistics
import textwrap
import time
import types

import peft
import peft.tuners.lora.layer as lora_layer
import torch
import transformers
from peft import LoraConfig, get_peft_model
from torch.utils._python_dispatch import TorchDispatchMode
from transformers import Qwen2Config, Qwen2ForCausalLM

TARGETS = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]
BATCH = 8

# unslothai/unsloth-zoo@ce232d6c unsloth_zoo/compiler.py COMPILED_LORA_FORWARD, as written (not compiled).
COMPILED_LORA_FORWARD = '''
torch_addmm = torch.addmm
torch_add   = torch.add
def lora_forward(result, lora_A, lora_B, dropout, x, scaling):
    target_dtype = result.dtype
    xA = dropout(x).to(target_dtype) @ lora_A.weight.to(target_dtype).t()
    shape = result.shape
    output = torch_addmm(
        result.view(-1, shape[-1]),
        xA.view(-1, xA.shape[-1]),
        lora_B.weight.to(target_dtype).t(),
        alpha = scaling,
        beta = 1,
    ).view(shape)
    bias = lora_B.bias
    if bias is not None:
        output = torch_add(output, bias.to(target_dtype), alpha = scaling)
    return output
'''


def unsloth_forward():
    """PEFT's Linear.forward with patch_lora_forwards' source replacements (ce232d6c compiler.py 3393-3510)."""
    source = textwrap.dedent(inspect.getsource(lora_layer.Linear.forward))
    old_hash = hash(source)
    source = source.replace("result = result.clone()", "")
    old1 = "output = lora_B(lora_A(dropout(x))) * scaling"
    old2 = "result = result + lora_B(lora_A(dropout(x))) * scaling"
    assert old2 in source, "PEFT's forward no longer has the line patch_lora_forwards replaces"
    dtype_cast = "torch_result_dtype" if "torch_result_dtype = result.dtype" in source else "result.dtype"
    replace = f"return lora_forward(result, lora_A, lora_B, dropout, x, scaling).to({dtype_cast})"
    source = source.replace(old1, replace).replace(old2, replace)
    source = source.replace("def forward", "def unsloth_forward", 1)
    if "torch.is_autocast_enabled()" not in source:
        new = ("if not torch.is_autocast_enabled(): result, x = result.to(lora_A.weight.dtype), "
               "x.to(lora_A.weight.dtype)")
        for old in ("x = x.to(lora_A.weight.dtype)", "x = self._cast_input_dtype(x, lora_A.weight.dtype)"):
            source = source.replace(old, new)
    source = source.replace("self._check_forward_args(x, *args, **kwargs)", "")
    call = "result = self.base_layer(x, *args, **kwargs)"
    lines = source.split("\n")
    for i, line in enumerate(lines):
        if line.strip() == call:
            ind = line[: len(line) - len(line.lstrip())]
            lines[i] = (f"{ind}if not torch.is_autocast_enabled() and hasattr(self.base_layer, 'weight') "
                        f"and self.base_layer.weight is not None "
                        f"and not hasattr(self.base_layer.weight, 'quant_state') "
                        f"and x.dtype != self.base_layer.weight.dtype:\n{ind}    x = x.to(self.base_layer.weight.dtype)"
                        f"\n{line}")
    source = "\n".join(lines)
    assert hash(source) != old_hash
    # On a GPU, torch.is_autocast_enabled() reads CUDA's autocast, the one the trainer's generate runs under; on these
    # CPU tensors the same question is CPU autocast's (one call either way).
    source = source.replace("torch.is_autocast_enabled()", "torch.is_autocast_enabled('cpu')")
    scope = dict(vars(lora_layer))
    exec(COMPILED_LORA_FORWARD + source, scope)
    return scope["unsloth_forward"]


def build(arm: str, amp: bool, dropout: float):
    torch.manual_seed(0)
    cfg = Qwen2Config(num_hidden_layers=1, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                      num_key_value_heads=2, vocab_size=512, max_position_embeddings=1024)
    cfg._attn_implementation = "sdpa"
    m = Qwen2ForCausalLM(cfg).to(torch.bfloat16 if amp else torch.float32)
    if arm == "plain":
        m.eval()
        return m.model.layers[0], m.model.rotary_emb
    m = get_peft_model(m, LoraConfig(r=16, lora_alpha=32, lora_dropout=dropout, target_modules=TARGETS))
    m.train()  # the trainer's generate runs in training mode
    inner = m.get_base_model()
    if arm == "unsloth":
        fwd = unsloth_forward()
        for mod in inner.modules():
            if isinstance(mod, lora_layer.Linear):
                mod.forward = types.MethodType(fwd, mod)
    return inner.model.layers[0], inner.model.rotary_emb


class Count(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.ops = []

    def __torch_dispatch__(self, func, types_, args=(), kwargs=None):
        self.ops.append(str(func.overloadpacket))
        return func(*args, **(kwargs or {}))


def call(layer, pe, h, amp):
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=amp):
        return layer(h, attention_mask=None, position_ids=None, past_key_values=None, use_cache=False,
                     position_embeddings=pe)


def run_mode(amp: bool, dropout: float, rounds: int, windows: int, calls: int):
    dtype = torch.bfloat16 if amp else torch.float32
    arms = {name: build(name, amp, dropout) for name in ("plain", "peft", "unsloth")}
    h = torch.randn(BATCH, 1, 64, dtype=dtype)
    pos = torch.zeros(BATCH, 1, dtype=torch.long)
    out = {"amp": amp, "lora_dropout": dropout, "ops": {}, "rounds": []}
    with torch.no_grad():
        ref = None
        for name, (layer, rope) in arms.items():
            pe = rope(h, pos)
            with Count() as c:
                y = call(layer, pe, h, amp)
            y = y[0] if isinstance(y, tuple) else y
            if name == "peft":
                ref = y
            if name == "unsloth":  # same adapters (seeded, B zero-initialised): the same output
                assert torch.allclose(y.float(), ref.float(), atol=1e-2), "unsloth arm differs from PEFT's"
            out["ops"][name] = len(c.ops)
            if name != "plain":
                extra = list(c.ops)
                for op in with_plain:
                    if op in extra:
                        extra.remove(op)
                out["ops"][f"{name}_linear"] = sorted(extra)
            else:
                with_plain = list(c.ops)
        for _ in range(rounds):
            best = {name: float("inf") for name in arms}
            for _ in range(windows):
                for name, (layer, rope) in arms.items():
                    pe = rope(h, pos)
                    t0 = time.thread_time()
                    for _ in range(calls):
                        call(layer, pe, h, amp)
                    best[name] = min(best[name], (time.thread_time() - t0) / calls)
            plain = best["plain"]
            peft_l = (best["peft"] - plain) / len(TARGETS) / plain
            uns_l = (best["unsloth"] - plain) / len(TARGETS) / plain
            out["rounds"].append({
                "plain_us": round(plain * 1e6, 2),
                "peft_us": round(best["peft"] * 1e6, 2),
                "unsloth_us": round(best["unsloth"] * 1e6, 2),
                "peft_linear_layers": round(peft_l, 4),
                "unsloth_linear_layers": round(uns_l, 4),
                "unsloth_over_peft": round(uns_l / peft_l, 4),
            })
            print(json.dumps(out["rounds"][-1]), flush=True)
    for key in ("peft_linear_layers", "unsloth_linear_layers", "unsloth_over_peft"):
        vals = [r[key] for r in out["rounds"]]
        out[key] = {"min": min(vals), "median": round(statistics.median(vals), 4), "max": max(vals)}
    return out


def cpu():
    """The host's CPU as /proc/cpuinfo names it (Linux)."""
    try:
        with open("/proc/cpuinfo") as f:
            block = f.read().split("\n\n")[0].splitlines()
        info = {k.strip(): v for k, v in (line.split(":", 1) for line in block if ":" in line)}
        return {"name": info["model name"].strip(), "threads": torch.get_num_threads()}
    except (OSError, KeyError):
        return {"name": platform.processor(), "threads": torch.get_num_threads()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--windows", type=int, default=8)
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--out")
    a = ap.parse_args()
    torch.set_num_threads(1)
    modes = []
    for amp in (False, True):
        for dropout in (0.0, 0.05):
            print(f"amp={amp} lora_dropout={dropout}", flush=True)
            modes.append(run_mode(amp, dropout, a.rounds, a.windows, a.calls))
    result = {
        "script": "scripts/measure/unsloth_lora_forward_host.py",
        "source": "unslothai/unsloth-zoo@ce232d6c unsloth_zoo/compiler.py patch_lora_forwards, COMPILED_LORA_FORWARD "
                  "(source replacements reproduced on the installed PEFT's lora.Linear.forward; unsloth_zoo not imported)",
        "versions": {"torch": torch.__version__, "transformers": transformers.__version__, "peft": peft.__version__,
                     "python": platform.python_version()},
        "cpu": cpu(),
        "clock": "time.thread_time",
        "rounds": a.rounds, "windows": a.windows, "calls": a.calls,
        "modes": modes,
    }
    if a.out:
        with open(a.out, "w") as f:
            json.dump(result, f, indent=1)
            f.write("\n")
    else:
        print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
