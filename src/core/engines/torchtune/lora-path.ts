/**
 * torchtune's LoRA path beside each adapted linear (time; memory/framework-profile.ts LoraPathCost). Read in
 * pytorch/torchtune at 1142f3a22f92cf5abd2ce64b64c70a92baa77da9, torchtune/modules/peft/lora.py
 * LoRALinear.forward: `out = F.linear(x, ...)` (or `linear_nf4`), `lora_out = self.lora_a(self.dropout(x))`,
 * `lora_out = (self.alpha / self.rank) * self.lora_b(lora_out)`, `return out + lora_out`.
 */
import type { LoraPathCost } from '../../memory/framework-profile.js';

export const TORCHTUNE_LORA_PATH: LoraPathCost = {
  // lora_a reads x; lora_b writes its output (1), the scaling reads and writes it (2), the add reads both and
  // writes the sum (3): 6 output passes in 4 kernels, as PEFT's (engines/hf/lora-path.ts).
  fwdIn: 1,
  fwdOut: 6,
  fwdOps: 4,
  // The same autograd graph as PEFT's: 4 output and 5 input passes in 6 kernels.
  bwdIn: 5,
  bwdOut: 4,
  bwdOps: 6,
  // linear_nf4 returns a fresh tensor: no clone.
  quantFwdOut: 0,
  quantFwdOps: 0,
  // Adapters in the model's dtype: no cast of x.
  fp32CastIn: 0,
  fp32CastOps: 0,
  // nn.Dropout where lora_dropout > 0 (the recipes set 0.0): read x, write x' and a 1-byte mask; same back.
  dropoutIn: 2.5,
  // compile: True fuses the scaling into the add.
  compiledSavesOut: 2,
  compiledSavesOps: 1,
};
