/**
 * A dense MoE block's own traffic in training (engine profile moeDense: every token through every expert), beside
 * the expert GEMMs train-work.ts counts: the per-expert copies and activations of one forward, and, where the run
 * loops over per-expert linears (TimeOptions.denseMoeLoop), the gradients autograd builds at the block's size.
 */
import type { EstimateOptions } from '../../schema/estimate.js';
import type { ModelFacts } from './model-facts.js';

// A dense MoE block (engine profile moeDense) materialises every expert's copy of each token: transformers'
// Llama4TextMoe.forward writes hidden_states.repeat(E, 1) and its product with the router scores (3 passes of
// E x hidden), the experts' up * act_fn(gate) over all E (silu and mul: 5 passes of E x expert width, of which
// the topK experts' are counted with the dense layer's), and sums routed_out over E (1 pass): 4 E x hidden
// + 5 (E - topK) x width per token (src/transformers/models/llama4/modeling_llama4.py at 000c33fd; axolotl's
// linearized experts loop the same products per expert, monkeypatch/models/llama4/modeling.py). Compiled, the
// repeat and scale fuse into one write and silu*mul into 3 passes: 2 E x hidden + 3 (E - topK) x width.
const DENSE_MOE_HIDDEN_PASSES = { eager: 4, fused: 2 } as const;
const DENSE_MOE_ACT_PASSES = { eager: 5, fused: 3 } as const;
// axolotl's linearized Llama-4 experts (Llama4TextExperts replaced by per-expert nn.Linear modules run in a loop,
// axolotl-ai-cloud/axolotl src/axolotl/monkeypatch/models/llama4/modeling.py @102fdac6) write
// `next_states = torch.zeros_like(hidden_states)` (1 pass of E x hidden) and copy each expert's output into its
// slice, `next_states[i] = ...` (read and write: 2): 3 more forward passes of E x hidden per token.
const DENSE_LOOP_FWD_PASSES = 3;
// In backward each `next_states[i] = ...` is a CopySlices node: `result = grad.new_empty_strided(base...)`;
// `result.copy_(grad)` (read and write the whole E x tokens x hidden gradient: 2 passes), then a clone of the slice,
// CopyBackwards' zeros_like of it and `grad_slice.copy_(res)` (5 passes of tokens x hidden)
// (pytorch/pytorch torch/csrc/autograd/functions/tensor.cpp @00ee6511 CopySlices::apply_impl). Each
// `hidden_states[i]` select's gradient is select_backward (tools/autograd/derivatives.yaml `select.int`): a zero
// tensor of the whole input (1 pass) with the slice copied in (2 passes of tokens x hidden), and autograd adds the
// E of them into one buffer (read both, write the sum: 3 passes; torch/csrc/autograd/input_buffer.cpp
// InputBuffer::add). Per expert per backward: 6 passes of E x tokens x hidden and 7 of tokens x hidden.
const DENSE_LOOP_BWD_BLOCK_PASSES = 6;
const DENSE_LOOP_BWD_SLICE_PASSES = 7;

/** A dense MoE block's per-expert copies and activations in one forward (DENSE_MOE_* passes), bytes. */
export function denseMoeElemBytes(
  m: ModelFacts,
  o: EstimateOptions,
  compiled: boolean,
  tokens: number,
  tp: number,
  layers: number,
  denseLoop: boolean,
): number {
  const k = compiled ? 'fused' : 'eager';
  const perToken =
    (DENSE_MOE_HIDDEN_PASSES[k] + (denseLoop ? DENSE_LOOP_FWD_PASSES : 0)) * m.experts * m.hidden +
    DENSE_MOE_ACT_PASSES[k] * (m.experts - m.topK) * m.expertFfn;
  return (layers * tokens * perToken * (o.compute === 'fp32' ? 4 : 2)) / tp;
}

/**
 * The per-expert loop's gradients over a dense block (DENSE_LOOP_BWD_*), bytes per backward, compiled or not:
 * bitsandbytes 0.45.4 registers no torch.library ops (its 4-bit matmul is an autograd.Function over ctypes calls,
 * bitsandbytes/autograd/_functions.py MatMul4Bit), so torch.compile breaks the graph at every expert's linears and
 * the loop's autograd runs as in eager.
 */
export function denseLoopBwdBytes(
  m: ModelFacts,
  o: EstimateOptions,
  tokens: number,
  tp: number,
  layers: number,
): number {
  const slice = tokens * m.hidden;
  const perExpert =
    DENSE_LOOP_BWD_BLOCK_PASSES * m.experts * slice + DENSE_LOOP_BWD_SLICE_PASSES * slice;
  return (layers * m.experts * perExpert * (o.compute === 'fp32' ? 4 : 2)) / tp;
}
