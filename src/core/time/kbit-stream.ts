/**
 * A k-bit training run whose residual stream is fp32 (TimeOptions.kbitFp32Stream). TRL before v0.22 prepared a
 * 4-bit model with PEFT's prepare_model_for_kbit_training (every 16-bit parameter upcast to fp32) and, under bf16,
 * peft_module_casting_to_bf16, which casts the embeddings and the head back to bf16 but keeps every norm in fp32
 * (huggingface/trl@v0.13.0 trl/trainer/sft_trainer.py and trl/trainer/utils.py; still so at v0.21.0, gone at v0.22.0). An RMSNorm returns
 * `weight * hidden.to(input_dtype)` (transformers' LlamaRMSNorm / MistralRMSNorm), fp32 with an fp32 weight, and
 * bitsandbytes' Linear4bit casts its input to the compute dtype and its output back to the input's dtype
 * (bitsandbytes/nn/modules.py Linear4bit.forward: `x.to(self.compute_dtype)` ... `out.to(inp_dtype)`): the q, k, v,
 * gate and up projections read and write fp32, the MLP's product stays fp32 into down, and the residual sum after the
 * first MLP is fp32 for the rest of the model. Elementwise traffic is timed as under autocast (about half of it fp32,
 * time/train-work.ts), with two cast kernels for each linear fed an fp32 input; o's input (the attention output) is
 * 16-bit.
 *
 * Under autocast those casts move bytes of their own (kbitStreamCastBytes). bitsandbytes' Linear4bit sets its compute
 * dtype from its first input (`set_compute_type`: an fp32 or bf16 input becomes the compute dtype), so an fp32-fed
 * linear computes "in fp32": `MatMul4Bit.forward` dequantizes the weight to its stored 16-bit dtype and copies it to
 * fp32 (`F.dequantize_4bit(B, quant_state).to(A.dtype)`), and `torch.nn.functional.linear` under autocast casts that
 * fp32 weight and the fp32 input back to bf16 (autocast caches only leaf tensors that require grad, so neither is
 * cached), before `out.to(inp_dtype)` writes the output in fp32 (bitsandbytes 0.43.3 nn/modules.py Linear4bit.forward
 * and set_compute_type, autograd/_functions.py MatMul4Bit; pytorch aten/src/ATen/autocast_mode.cpp cached_cast). The
 * backward dequantizes to the 16-bit gradient's dtype (no weight cast) and autograd casts the 16-bit input gradient
 * to the fp32 input's dtype and the fp32 output gradient to the Function's 16-bit output. The attention kernel takes
 * q, k and v in bf16: transformers' flash_attention_forward casts fp32 ones to the autocast dtype
 * (huggingface/transformers@v4.48.1 src/transformers/integrations/flash_attention.py), SDPA and eager matmuls are
 * autocast ops.
 */
import type { Arch, LinearRole } from '../model/arch.js';

/** Linears whose input is fp32 under the fp32 stream: the norm-fed projections and the MLP's down projection. */
const FP32_FED: ReadonlySet<LinearRole> = new Set<LinearRole>([
  'q',
  'k',
  'v',
  'gate',
  'up',
  'down',
]);

/** Cast kernels one layer's forward adds: an input cast and an output cast per fp32-fed linear. */
export function kbitStreamCastOps(arch: Arch): number {
  const g = arch.groups.find((x) => x.name !== 'vision');
  if (!g) return 0;
  return 2 * g.linears.filter((l) => FP32_FED.has(l.role)).length;
}

// A cast between fp32 and a 16-bit dtype reads one width and writes the other: 4 + 2 bytes an element
// (torch.float32 and torch.bfloat16 element sizes, https://pytorch.org/docs/stable/tensor_attributes.html).
const CAST_BYTES = 4 + 2;
// The weight's casts in an fp32-fed Linear4bit's forward: the dequantized 16-bit weight to fp32
// (`F.dequantize_4bit(B, quant_state).to(A.dtype)`), then autocast's fp32 to bf16 in `torch.nn.functional.linear`
// (bitsandbytes-foundation/bitsandbytes@2e03d3440f5b, the 0.43.3 tag, bitsandbytes/autograd/_functions.py MatMul4Bit).
const WEIGHT_CASTS = 2;

/**
 * Bytes one micro-batch's fp32-stream casts move under autocast (above), on one rank: per fp32-fed linear (every
 * copy a token runs through) its input cast to bf16 and its bf16 output to fp32, and q, k and v cast to bf16 for the
 * attention, in forward, recompute and backward (the gradients' casts back); per fp32-fed weight element (every
 * expert of a looped MoE) its two casts in forward and recompute. `layers`: decoder layers on this rank.
 * `quantizedExperts` false: the routed experts are not Linear4bit modules (fused experts bitsandbytes leaves in
 * floating point, time/float-experts.ts), so only the other linears count.
 */
export function kbitStreamCastBytes(
  arch: Arch,
  tokens: number,
  layers: number,
  recompute: number,
  tp: number,
  quantizedExperts = true,
): number {
  const g = arch.groups.find((x) => x.name !== 'vision');
  if (!g) return 0;
  let act = 0;
  let weight = 0;
  for (const l of g.linears) {
    if (l.role === 'q' || l.role === 'k' || l.role === 'v') act += l.activeCopies * l.outFeatures;
    if (!FP32_FED.has(l.role) || (l.copies > 1 && !quantizedExperts)) continue;
    act += l.activeCopies * (l.inFeatures + l.outFeatures);
    weight += l.copies * l.inFeatures * l.outFeatures;
  }
  const actBytes = (2 + recompute) * CAST_BYTES * act * tokens;
  const weightBytes = (1 + recompute) * WEIGHT_CASTS * CAST_BYTES * weight;
  return (layers * (actBytes + weightBytes)) / tp;
}
