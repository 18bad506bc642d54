/**
 * PEFT's LoRA path beside each adapted linear, as transformers/TRL/axolotl run it (time: passes over the
 * activations and kernel launches; memory/framework-profile.ts LoraPathCost). Read in peft v0.20.0
 * (a5526d27a9d47d1e8264d5e1b1f96c0fdc79464e), src/peft/tuners/lora/layer.py Linear.forward and
 * src/peft/tuners/lora/bnb.py Linear4bit.forward.
 */
import type { LoraPathCost } from '../../memory/framework-profile.js';
import { UNFUSED_LORA_GRAPH } from '../lora-graph.js';

export const PEFT_LORA_PATH: LoraPathCost = {
  ...UNFUSED_LORA_GRAPH,
  // bnb.py Linear4bit.forward: `result = result.clone()` ("for 4bit, we need to defensively clone here"):
  // one more read and write of the output, one kernel.
  quantFwdOut: 2,
  quantFwdOps: 1,
  // layer.py: `x = self._cast_input_dtype(x, lora_A.weight.dtype)` casts x to the fp32 adapters' dtype
  // (tuners_utils.py _cast_input_dtype, cast_input_dtype_enabled True by default; get_peft_model's
  // autocast_adapter_dtype=True keeps bf16/fp16 adapters in fp32), and autocast casts it back to the compute
  // dtype for lora_A's matmul: read 1 + write 2, read 2 + write 1 = 6 passes of 16-bit elements, 2 kernels; the
  // two casts' gradients cost the same in backward. The 4-bit path skips it under autocast (bnb.py
  // `requires_conversion = not torch.is_autocast_enabled()`).
  fp32CastIn: 6,
  fp32CastOps: 2,
  // LoraConfig lora_dropout defaults to 0.0 (nn.Identity); where set, nn.Dropout: read x, write x' and a
  // 1-byte mask (0.5 of a 16-bit pass), and the same back in backward.
  dropoutIn: 2.5,
};
