/**
 * LitGPT's LoRA path beside each adapted linear (time; memory/framework-profile.ts LoraPathCost). Read in
 * Lightning-AI/litgpt at 26857050fe3ff627cd714fe92f5838f51a3d5efa, litgpt/lora.py LoRALinear.forward:
 * `pretrained = self.linear(x)`, `lora = (self.lora_dropout(x) @ self.lora_A.transpose(0, 1) @
 * self.lora_B.transpose(0, 1)) * self.scaling`, `return pretrained + lora`. LoRAQKVLinear also zero-pads the
 * adapted slices to the fused qkv width (zero_pad): not timed apart.
 */
import type { LoraPathCost } from '../../memory/lora-path-profile.js';
import { UNFUSED_LORA_GRAPH } from '../lora-graph.js';

export const LITGPT_LORA_PATH: LoraPathCost = {
  ...UNFUSED_LORA_GRAPH,
  // bitsandbytes Linear4bit returns a fresh tensor: no clone.
  quantFwdOut: 0,
  quantFwdOps: 0,
  // Adapters in the model's dtype (bf16-true): no cast of x.
  fp32CastIn: 0,
  fp32CastOps: 0,
  // finetune/lora.py lora_dropout = 0.05 (the memory profile's loraDropout): nn.Dropout on x each way.
  dropoutIn: 2.5,
};
