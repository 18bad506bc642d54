/**
 * Memory traffic of the training loss per logit (one token's one vocabulary entry), its forward and its backward
 * apart: what the eager cross-entropy's kernels read and write, or the fused loss's assumed passes.
 */

// The eager loss (transformers ForCausalLMLoss, huggingface/transformers@0114da07 src/transformers/loss/loss_utils.py;
// torchtune's `self.output(h).float()` then nn.CrossEntropyLoss; torchtitan's and prime-rl's `.float()` before
// cross_entropy). Forward: `logits.float()` reads the 16-bit logits and writes fp32 (2 + 4 B; nothing on fp32 logits,
// where `.float()` returns the tensor itself).
const UPCAST_FWD_BYTES = 2 + 4;
// cross_entropy = log_softmax + nll_loss. A row of V fp32 entries is longer than a block's 48 KiB of shared memory for
// any LLM vocabulary, so host_softmax launches cunn_SoftMaxForward, one block a row: it reads the row for its max, again
// for the sum of exponentials, and a third time in the write pass, and writes the fp32 output once (3 x 4 + 4 B;
// pytorch/pytorch@000cace5 aten/src/ATen/native/cuda/SoftMax.cu `cunn_SoftMaxForward`, `host_softmax`'s
// `can_use_smem`). nll_loss reads one entry a row.
const LOG_SOFTMAX_FWD_BYTES = 3 * 4 + 4;
// Backward: nll_loss_backward zero-fills the fp32 input gradient (4 B) and scatters one entry a row;
// cunn_SoftMaxBackward reads the incoming gradient for its row sum, then it and the saved output, and writes the
// input gradient (3 x 4 + 4 B, pytorch/pytorch@000cace5 aten/src/ATen/native/cuda/SoftMax.cu `cunn_SoftMaxBackward`);
// the upcast's backward casts that fp32 gradient to the logits' 16 bits (4 + 2 B) for the output layer's GEMMs, whose
// reads and writes their FLOPs price.
const NLL_BWD_BYTES = 4;
const LOG_SOFTMAX_BWD_BYTES = 3 * 4 + 4;
const DOWNCAST_BWD_BYTES = 4 + 2;
// transformers up to 4.48 shifted the fp32 logits with a contiguous copy (`logits[..., :-1, :].contiguous()`, read 4,
// write 4 B); its backward (SliceBackward) zero-fills a gradient of the unshifted shape and copies the shifted one in
// (4 + 4 + 4 B). huggingface/transformers#35646 (in v4.49) pads the labels instead (TimeOptions.shiftedLogitsCopy).
const SHIFT_COPY_FWD_BYTES = 4 + 4;
const SHIFT_COPY_BWD_BYTES = 4 + 4 + 4;
// A chunked or compiled loss fuses the upcast and log-softmax into its reductions: ~8 B a logit in forward, twice that
// in backward (assumed, calibration/assumed.json; not read from a kernel).
const FUSED_FWD_BYTES = 8;
const FUSED_BWD_BYTES = 2 * FUSED_FWD_BYTES;

/** Bytes a logit of the loss moves in its forward (`fwd`) and its backward (`bwd`). */
export interface LossLogitBytes {
  fwd: number;
  bwd: number;
}

/** How the loss runs: fused (chunked or compiled), over 16-bit logits (an upcast), after a shifted copy. */
export interface LossPath {
  fused: boolean;
  halfLogits: boolean;
  shiftCopy: boolean;
}

/** The bytes a logit of the loss moves, forward and backward, on path `p`. */
export function lossLogitBytes(p: LossPath): LossLogitBytes {
  if (p.fused) return { fwd: FUSED_FWD_BYTES, bwd: FUSED_BWD_BYTES };
  const cast = p.halfLogits ? 1 : 0;
  const shift = p.shiftCopy ? 1 : 0;
  return {
    fwd: cast * UPCAST_FWD_BYTES + shift * SHIFT_COPY_FWD_BYTES + LOG_SOFTMAX_FWD_BYTES,
    bwd:
      NLL_BWD_BYTES +
      LOG_SOFTMAX_BWD_BYTES +
      shift * SHIFT_COPY_BWD_BYTES +
      cast * DOWNCAST_BWD_BYTES,
  };
}
