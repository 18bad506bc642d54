/**
 * Unsloth's fused LoRA path (time: passes over the activations and kernel launches; memory/framework-profile.ts
 * LoraPathCost). Read in unslothai/unsloth at 015bdef0d94a241bcd94eec7a405b1700632180d:
 * unsloth/kernels/utils.py matmul_lora and unsloth/kernels/fast_lora.py LoRA_W / LoRA_MLP / LoRA_QKV.
 */
import type { LoraPathCost } from '../../memory/lora-path-profile.js';
import { PEFT_LORA_PATH } from '../hf/lora-path.js';

// unsloth_zoo's rewrite of PEFT's lora.Linear.forward (patch_lora_forwards, COMPILED_LORA_FORWARD;
// unslothai/unsloth-zoo@ce232d6c unsloth_zoo/compiler.py) at a decode step of the trainer's generate: one adapted linear's
// host time in a plain decoder layer's, measured on CPU tensors by scripts/measure/unsloth_lora_forward_host.py (a bf16
// Qwen2 layer, fp32 adapters r 16 on its seven projections, lora_dropout 0, each call an autocast region, against the
// plain layer; torch 2.8.0, transformers 4.56.2, peft 0.15.2; calibration/measured/unsloth-lora-forward-host-cpu.json,
// `amp` at lora_dropout 0: the median of its rounds). Its kernels there: the two factors' casts, x @ A and the addmm,
// loraForwardOps' 4.
export const UNSLOTH_GENERATE_LINEAR = { layers: 0.19, kernels: 4 } as const;

export const UNSLOTH_LORA_PATH: LoraPathCost = {
  // matmul_lora: `XA = torch_matmul(X, A)` reads X (1 input pass), `out.addmm_(XA, B, alpha = s)` adds the
  // scaled product into the frozen GEMM's output in place (read and write: 2 output passes): 2 kernels.
  fwdIn: 1,
  fwdOut: 2,
  fwdOps: 2,
  // LoRA_W.backward: d_A.addmm_(X.t(), dY @ B.t()) reads dY and X; d_B.addmm_(A.t() @ X.t(), dY) reads X and
  // dY; dX.addmm_(dY @ B.t(), A.t()) reads dY again and reads and writes dX: 3 output and 4 input passes in
  // 6 kernels (LoRA_MLP and LoRA_QKV repeat the pattern per projection).
  bwdIn: 4,
  bwdOut: 3,
  bwdOps: 6,
  // fast_dequantize feeds the GEMM directly: no clone of the output.
  quantFwdOut: 0,
  quantFwdOps: 0,
  // A and B are cast to X's dtype (`A.to(dtype)`, adapter-sized): the activations are never cast.
  fp32CastIn: 0,
  fp32CastOps: 0,
  // lora_dropout = 0 is the optimized path (get_peft_model); dropout is not timed.
  dropoutIn: 0,
  // Already fused.
  compiledSavesOut: 0,
  compiledSavesOps: 0,
  // FastLlamaModel.patch_peft_model swaps in apply_lora_qkv only where q_proj, k_proj and v_proj all carry
  // lora_A, apply_lora_mlp only where gate_proj, up_proj and down_proj all do, apply_lora_o where o_proj does
  // (unsloth 2026.10.9 wheel, unsloth/models/llama.py; the same rule in unslothai/unsloth@28c7550's
  // get_peft_model): the other adapted linears keep PEFT's lora.Linear.forward from peft's get_peft_model.
  partialGroup: PEFT_LORA_PATH,
};
