/**
 * What one group of torch._grouped_mm's per-group fallback costs on an A100 (time/grouped-mm.ts says where it
 * runs). `_grouped_mm_fallback` (aten/src/ATen/native/GroupedMMUtils.h, torch 2.10.0 = 449b176) issues per group
 * `offs_cpu[g].item()` (a select and a scalar read), a slice of the input, a slice of the output and a select of the
 * weight, then `at::mm_out` (a cuBLAS call): six ATen calls from C++, not one matmul from Python.
 *
 * huggingface/transformers#42697 times the same fallback on an A100: Qwen1.5-MoE-A2.7B's forward (bf16, batch
 * 4 x 16 tokens) with experts_implementation "grouped_mm" takes 75.23 ms (grouped_mm needs torch 2.9 or later,
 * where an sm80 card runs the fallback; the PR's eager loop on the same card is SYNCED_LOOP_OP_SECONDS' source,
 * priced the same way). The run makes two calls in each of 24 MoE layers, each over all 60 experts: 2,880 groups.
 * Less the layers' other ops at the rate the model prices them (EAGER_OP_SECONDS each: a decoder layer's
 * OPS_PER_LAYER_EAGER, the 11 more the MoE block issues over a dense MLP's 5 and the 26 of grouped_mm_experts_forward
 * besides its two calls) and each call's synced offsets copy, the groups take 19.0 µs each. The experts' weights
 * (24.9 GB, 12 ms at an A100's 2 TB/s) run under that loop, so the figure is the loop's, as train-step.ts prices a
 * call.
 */
import {
  EAGER_OP_SECONDS,
  OPS_PER_LAYER_EAGER,
  QWEN2_MOE_BLOCK_EXTRA_OPS,
  SYNCED_LOOP_OP_SECONDS,
} from './train-work.js';

// grouped_mm_experts_forward's torch calls besides its two _grouped_mm (arange, unsqueeze, expand and three
// reshapes, the row gather, two argsorts, three permuted gathers, the int cast, histc, cumsum, two weight
// transposes, chunk/act/mul of the gate, unsqueeze and mul of the routing weights, the inverse gather, view, sum
// and the cast: 26; https://github.com/huggingface/transformers/blob/v5.1.0/src/transformers/integrations/moe.py).
const GROUPED_EXPERTS_WRAPPER_OPS = 26;
// The benchmark (huggingface/transformers#42697): Qwen1.5-MoE-A2.7B's forward with grouped_mm experts on an A100,
// 75.23 ms; 24 MoE layers of 60 routed experts, two calls a layer.
const BENCH_GROUPED_FORWARD_SECONDS = 75.23e-3;
const BENCH_LAYERS = 24;
const BENCH_EXPERTS = 60;
const BENCH_CALLS = 2 * BENCH_LAYERS;

/** Seconds one group of the fallback loop takes on an A100: 19.0 µs (huggingface/transformers#42697, above). */
export const GROUPED_MM_GROUP_SECONDS =
  (BENCH_GROUPED_FORWARD_SECONDS -
    BENCH_LAYERS *
      (OPS_PER_LAYER_EAGER + QWEN2_MOE_BLOCK_EXTRA_OPS + GROUPED_EXPERTS_WRAPPER_OPS) *
      EAGER_OP_SECONDS -
    BENCH_CALLS * SYNCED_LOOP_OP_SECONDS) /
  (BENCH_CALLS * BENCH_EXPERTS);
