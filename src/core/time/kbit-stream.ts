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
