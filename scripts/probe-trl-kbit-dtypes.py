"""Construct TRL's trainers on a tiny bitsandbytes 4-bit Llama/Qwen2 on CPU and record every parameter's dtype by
class, then run one SFT and one DPO step and record the optimizer states' dtypes (test/fixtures/trl-kbit-dtypes.json).

Run in a venv with the HF_PINS versions (src/core/engines/hf/trainer.ts):
  python scripts/probe-trl-kbit-dtypes.py test/fixtures/trl-kbit-dtypes.json
"""
import json, os, sys, warnings, collections
warnings.filterwarnings("ignore")
import torch, transformers, trl, peft, bitsandbytes, accelerate, datasets
from transformers import AutoModelForCausalLM, BitsAndBytesConfig, LlamaConfig, Qwen2Config, Qwen3MoeConfig
from transformers import PreTrainedTokenizerFast
from tokenizers import Tokenizer, models, pre_tokenizers
from peft import LoraConfig

OUT = sys.argv[1] if len(sys.argv) > 1 else "trl-kbit-dtypes.json"
vocab = {f"w{i}": i for i in range(120)}
vocab.update({"<pad>": 120, "<eos>": 121, "<unk>": 122})
tk = Tokenizer(models.WordLevel(vocab, unk_token="<unk>")); tk.pre_tokenizer = pre_tokenizers.Whitespace()
tok = PreTrainedTokenizerFast(tokenizer_object=tk, pad_token="<pad>", eos_token="<eos>", unk_token="<unk>")
tok.chat_template = "{% for m in messages %}{{ m['content'] }} {% endfor %}"

def save(kind):
    d = f"/tmp/trl-kbit-probe/{kind}"
    if not os.path.isdir(d):
        C = {"llama": LlamaConfig, "qwen2": Qwen2Config, "qwen3_moe": Qwen3MoeConfig}[kind]
        moe = dict(moe_intermediate_size=32, num_experts=4, num_experts_per_tok=2, head_dim=16) if kind == "qwen3_moe" else {}
        cfg = C(vocab_size=128, hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
                num_key_value_heads=2, tie_word_embeddings=False, pad_token_id=120, eos_token_id=121, **moe)
        torch.manual_seed(0)
        AutoModelForCausalLM.from_config(cfg, dtype=torch.bfloat16).save_pretrained(d)
        tok.save_pretrained(d)
    return d

def load(kind, dtype):
    q = BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4", bnb_4bit_compute_dtype=torch.bfloat16)
    kw = {"quantization_config": q, "device_map": "cpu"}
    if dtype is not None: kw["dtype"] = dtype
    return AutoModelForCausalLM.from_pretrained(save(kind), **kw)

def classify(name, p):
    if type(p).__name__ == "Params4bit": return "quantized_linear"
    if "lora_" in name: return "lora"
    if "embed_tokens" in name: return "embed_tokens"
    if "lm_head" in name: return "lm_head"
    if "norm" in name: return "norm"
    if name.endswith(".bias"): return "bias"
    if ".experts." in name: return "experts"  # transformers 5's fused 3-D expert parameters
    if ".gate." in name: return "router"
    return "other"

def dtypes(model):
    seen = collections.defaultdict(set)
    for n, p in model.named_parameters():
        seen[classify(n, p)].add(str(p.dtype).replace("torch.", "") + ("/trainable" if p.requires_grad else ""))
    return {k: sorted(v) for k, v in sorted(seen.items())}

lora = lambda: LoraConfig(r=8, lora_alpha=16, target_modules="all-linear", task_type="CAUSAL_LM")
common = dict(output_dir="/tmp/trl-kbit-probe/run", use_cpu=True, bf16=True, report_to="none", max_steps=1,
              per_device_train_batch_size=2, gradient_checkpointing=True)
sft_ds = datasets.Dataset.from_dict({"text": ["w1 w2 w3 w4"] * 4})
pref_ds = datasets.Dataset.from_dict({"prompt": ["w1 w2"] * 4, "chosen": [" w3"] * 4, "rejected": [" w4"] * 4})
prompt_ds = datasets.Dataset.from_dict({"prompt": ["w1 w2"] * 4})

def build(trainer, model):
    if trainer == "SFTTrainer":
        t = trl.SFTTrainer(model=model, args=trl.SFTConfig(**common, max_length=16), train_dataset=sft_ds,
                           processing_class=tok, peft_config=lora())
    elif trainer == "DPOTrainer":
        t = trl.DPOTrainer(model=model, args=trl.DPOConfig(**common, max_length=16), train_dataset=pref_ds,
                           processing_class=tok, peft_config=lora())
    elif trainer in ("ORPOTrainer", "CPOTrainer"):
        import trl.experimental.orpo as eo, trl.experimental.cpo as ec
        T, C = (eo.ORPOTrainer, eo.ORPOConfig) if trainer == "ORPOTrainer" else (ec.CPOTrainer, ec.CPOConfig)
        t = T(model=model, args=C(**common, max_length=16), train_dataset=pref_ds, processing_class=tok,
              peft_config=lora())
    else:
        t = trl.GRPOTrainer(model=model, reward_funcs=lambda completions, **kw: [0.0] * len(completions),
                            args=trl.GRPOConfig(**common, num_generations=2, max_completion_length=4),
                            train_dataset=prompt_ds, processing_class=tok, peft_config=lora())
    return t

res = {"about": "Parameter dtypes, by class, after TRL's trainers are constructed with a LoraConfig on a "
       "bitsandbytes 4-bit model, and after one SFT/DPO step (scripts/probe-trl-kbit-dtypes.py; tiny untied "
       "Llama/Qwen2/Qwen3-MoE saved bf16, loaded with BitsAndBytesConfig nf4, compute bf16, on CPU).",
       "versions": {m.__name__: m.__version__ for m in (torch, transformers, trl, peft, bitsandbytes, accelerate)},
       "cases": []}
for kind in ("llama", "qwen2", "qwen3_moe"):
    for load_dtype in (torch.bfloat16, None):
        for trainer in ("SFTTrainer", "DPOTrainer", "GRPOTrainer", "ORPOTrainer", "CPOTrainer"):
            m = load(kind, load_dtype)
            before = dtypes(m)
            try:
                t = build(trainer, m); after = dtypes(t.model); err = None
            except Exception as e:
                after, err = None, f"{type(e).__name__}: {e}"[:300]
            case = {"arch": kind, "load_dtype": str(load_dtype).replace("torch.", "") if load_dtype else "default",
                    "trainer": trainer, "loaded": before, "after_init": after, "error": err}
            print(json.dumps(case)); res["cases"].append(case)
res["after_one_step"] = {}
for trainer in ("SFTTrainer", "DPOTrainer"):
    t = build(trainer, load("llama", torch.bfloat16))
    t.train()
    st = collections.defaultdict(set)
    for s in t.optimizer.state.values():
        for k, v in s.items():
            if torch.is_tensor(v) and v.ndim > 0: st[k].add(str(v.dtype).replace("torch.", ""))
    res["after_one_step"][trainer] = {"params": dtypes(t.model),
                                      "optimizer_state": {k: sorted(v) for k, v in st.items()}, "optim": t.args.optim}
json.dump(res, open(OUT, "w"), indent=1)
