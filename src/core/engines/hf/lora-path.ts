/**
 * PEFT's LoRA path beside each adapted linear, as transformers/TRL/axolotl run it (time: passes over the
 * activations and kernel launches; memory/framework-profile.ts LoraPathCost). Read in peft v0.20.0
 * (a5526d27a9d47d1e8264d5e1b1f96c0fdc79464e), src/peft/tuners/lora/layer.py Linear.forward and
 * src/peft/tuners/lora/bnb.py Linear4bit.forward; v0.14.0 (de88c703065fdd3a05521da1054c0463d16ea33c) runs the same
 * branch (`x.to(lora_A.weight.dtype)`, `result + lora_B(lora_A(dropout(x))) * scaling`, `result.to(torch_result_dtype)`).
 */
import type { LoraPathCost } from '../../memory/lora-path-profile.js';
import { UNFUSED_LORA_GRAPH } from '../lora-graph.js';

// PEFT's lora.Linear.forward at a decode step of the trainer's generate (training mode, dropout live): one adapted
// linear's host time in a plain decoder layer's, measured on CPU tensors by scripts/peft-decode-host.py (a Qwen2 layer
// with LoRA on its seven projections against the plain layer, one token a row, the minimum of 20 windows of 200
// calls): 0.198 and 0.208 with transformers 5.13.0, peft 0.15.2 and torch 2.8.0; 0.213, 0.217 and 0.234 with
// transformers 4.56.2. The arm's kernels: dropout, lora_A, lora_B, `* scaling` and the add (fp32 throughout, no cast).
export const PEFT_GENERATE_LINEAR = { layers: 0.2, kernels: 5 } as const;

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
  // Without autocast the same code runs the branch in fp32 (16-bit units; an fp32 element is 2): forward, the cast
  // (read 1, write 2) and lora_A reading the fp32 x (2) on the input; lora_B's fp32 output (2), `* scaling` (read
  // 2, write 2), the 16-bit base output plus the fp32 branch promoted to fp32 (read 1 + 2, write 2) and
  // `result.to(torch_result_dtype)` (read 2, write 1) on the output: 5 and 14 passes, 6 kernels. Backward, the
  // result cast's gradient to fp32 (read 1, write 2), the add's gradient cast back to the base output's 16 bits
  // (autograd casts a gradient to its input's dtype: read 2, write 1), MulBackward (read 2, write 2) and lora_B's
  // two gradients reading it (2 + 2): 14 output passes; lora_A's input gradient in fp32 (write 2) and weight
  // gradient reading x (2), the input cast's gradient (read 2, write 1) and the sum into the frozen layer's dx
  // (read 1 + 1, write 1): 10 input passes; 9 kernels. nn.Dropout on the fp32 x: read 2, write 2 and the mask
  // 0.5, each way.
  fp32Branch: {
    fwdIn: 5,
    fwdOut: 14,
    fwdOps: 6,
    bwdIn: 10,
    bwdOut: 14,
    bwdOps: 9,
    dropoutIn: 4.5,
  },
  // torch.use_deterministic_algorithms fills what the empty factories allocate with NaN (fill_uninitialized_memory,
  // default True, "detrimental to performance": https://docs.pytorch.org/docs/stable/deterministic.html): torch.empty,
  // empty_like, empty_strided, resize_. Ops that allocate through them, the casts (_to_copy: empty_like) and
  // nn.Dropout (native_dropout: its output and mask; its backward's output), pay one write pass of each output;
  // structured kernels (mm, mul, add) allocate their outputs directly and pay none. Under autocast the two casts'
  // fp32 and 16-bit outputs (2 + 1) each way; in the fp32 branch the input cast (2) and the result cast (1)
  // forward, the result cast's gradient (2), the add's gradient cast (1) and the input cast's gradient (1)
  // backward; the dropout's fp32 output and mask (2.5) forward and its gradient (2) backward (on a 16-bit x, where
  // the adapters stay in the weights' dtype: 1.5 and 1).
  deterministicFill: {
    autocast: {
      fwdIn: 3,
      fwdOut: 0,
      fwdOps: 2,
      bwdIn: 3,
      bwdOut: 0,
      bwdOps: 2,
      dropout: { fwdIn: 2.5, bwdIn: 2 },
      dropout16: { fwdIn: 1.5, bwdIn: 1 },
    },
    fp32: {
      fwdIn: 2,
      fwdOut: 1,
      fwdOps: 2,
      bwdIn: 1,
      bwdOut: 3,
      bwdOps: 3,
      dropout: { fwdIn: 2.5, bwdIn: 2 },
      dropout16: { fwdIn: 1.5, bwdIn: 1 },
    },
  },
};
