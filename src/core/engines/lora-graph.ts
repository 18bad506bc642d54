/**
 * The unfused LoRA path the PyTorch engines share beside each adapted linear: `base(x) + B(A(dropout(x))) *
 * scaling` as separate ops under autograd (PEFT peft v0.20.0 src/peft/tuners/lora/layer.py Linear.forward;
 * torchtune 1142f3a torchtune/modules/peft/lora.py LoRALinear.forward; LitGPT 2685705 litgpt/lora.py
 * LoRALinear.forward). Each engine's lora-path.ts adds what its own path does beside it (memory/framework-profile.ts
 * LoraPathCost, memory/lora-path-profile.ts).
 */
import type { LoraPathCost } from '../memory/lora-path-profile.js';

export const UNFUSED_LORA_GRAPH: Pick<
  LoraPathCost,
  | 'fwdIn'
  | 'fwdOut'
  | 'fwdOps'
  | 'bwdIn'
  | 'bwdOut'
  | 'bwdOps'
  | 'compiledSavesOut'
  | 'compiledSavesOps'
> = {
  // A reads x (1 input pass); B writes its output (1), `* scaling` reads and writes it (2), the add reads both and
  // writes the sum (3): 6 output passes in 4 kernels.
  fwdIn: 1,
  fwdOut: 6,
  fwdOps: 4,
  // Autograd through the same ops: MulBackward reads and writes the output gradient (2), B's input and weight
  // gradients each read it (2); A's weight gradient reads x (1), its input gradient writes dx (1), and autograd
  // adds it into the frozen layer's dx (read 2, write 1): 6 kernels.
  bwdIn: 5,
  bwdOut: 4,
  bwdOps: 6,
  // Under torch.compile Inductor fuses `* scaling` into the add: B's output is written once and read once.
  compiledSavesOut: 2,
  compiledSavesOps: 1,
};
