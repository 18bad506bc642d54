/**
 * torchtitan's LoRA path beside each adapted linear (time; memory/framework-profile.ts LoraPathCost). Read in
 * pytorch/torchtitan at b5bcd76c6, torchtitan/components/lora.py LoRALinear.forward: `base_out =
 * super().forward(input)`, `lora_out = self.lora_b(self.lora_a(input))`, `return base_out + self._lora_scaling *
 * lora_out`: the unfused graph, no dropout, no cast (the adapters are built in the base layer's dtype). prime-rl's
 * MultiLoRALinear, the LoRA of the trainer that copies torchtitan's recipe (PrimeIntellect-ai/prime-rl@8718eb14
 * src/prime_rl/trainer/models/layers/lora/multi_linear.py), moves the same passes: two torch._grouped_mm calls over
 * the stacked adapters (A reads x, B writes its output), then `base_out + per_token_scaling * lora_out` with a
 * per-token [T, 1] scale in place of the scalar.
 */
import type { LoraPathCost } from '../../memory/lora-path-profile.js';
import { UNFUSED_LORA_GRAPH } from '../lora-graph.js';

export const TORCHTITAN_LORA_PATH: LoraPathCost = {
  ...UNFUSED_LORA_GRAPH,
  // No bitsandbytes base layer.
  quantFwdOut: 0,
  quantFwdOps: 0,
  // Adapters in the base layer's dtype: no cast of x.
  fp32CastIn: 0,
  fp32CastOps: 0,
  // LoRAConverter.Config has no dropout (nor prime-rl's LoRAConfig default, dropout 0: nn.Identity).
  dropoutIn: 0,
};
