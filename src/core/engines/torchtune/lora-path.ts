/**
 * torchtune's LoRA path beside each adapted linear (time; memory/framework-profile.ts LoraPathCost). Read in
 * pytorch/torchtune at 1142f3a22f92cf5abd2ce64b64c70a92baa77da9, torchtune/modules/peft/lora.py
 * LoRALinear.forward: `out = F.linear(x, ...)` (or `linear_nf4`), `lora_out = self.lora_a(self.dropout(x))`,
 * `lora_out = (self.alpha / self.rank) * self.lora_b(lora_out)`, `return out + lora_out`.
 */
import type { LoraPathCost } from '../../memory/lora-path-profile.js';
import { UNFUSED_LORA_GRAPH } from '../lora-graph.js';

export const TORCHTUNE_LORA_PATH: LoraPathCost = {
  ...UNFUSED_LORA_GRAPH,
  // linear_nf4 returns a fresh tensor: no clone.
  quantFwdOut: 0,
  quantFwdOps: 0,
  // Adapters in the model's dtype: no cast of x.
  fp32CastIn: 0,
  fp32CastOps: 0,
  // nn.Dropout where lora_dropout > 0 (the recipes set 0.0): read x, write x' and a 1-byte mask; same back.
  dropoutIn: 2.5,
};
