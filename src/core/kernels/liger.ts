/**
 * Liger kernels on the Hugging Face engines (TrainingArguments.use_liger_kernel, axolotl's LigerPlugin,
 * LLaMA-Factory enable_liger_kernel): which model types they patch, the memory profile they give the
 * stack, and what the fused linear cross-entropy keeps. Pure data and arithmetic.
 *
 * Read at linkedin/Liger-Kernel commit ead96b6 (v0.8.2 + 7 commits; pyproject version 0.8.2), the newest
 * source available here; the launcher pins liger-kernel 0.8.5 (PyPI, October 2026).
 */
import type { FrameworkProfile } from '../memory/framework-profile.js';

/** The release the launchers pin (requirements.txt) and whose keys they write. */
export const LIGER_PIN = '0.8.5';

/**
 * Model types `use_liger_kernel` patches: liger_kernel/transformers/monkey_patch.py MODEL_TYPE_TO_APPLY_LIGER_FN
 * (commit ead96b6). For any other model_type `_apply_liger_kernel` logs "no Liger kernels supported" and the
 * model runs unchanged.
 */
const PATCHED = new Set([
  'deepseek_v4',
  'gemma',
  'gemma2',
  'gemma3_text',
  'gemma3',
  'gemma4_text',
  'gemma4',
  'glm4',
  'glm4v',
  'glm4v_moe',
  'gpt_oss',
  'internvl',
  'llama',
  'llama4_text',
  'llama4',
  'llava',
  'granite',
  'mllama',
  'mllama_text_model',
  'ministral',
  'mistral',
  'mixtral',
  'nemotron',
  'olmo2',
  'pixtral',
  'olmo3',
  'qwen2',
  'qwen3',
  'qwen3_moe',
  'qwen2_vl',
  'qwen2_vl_text',
  'qwen2_5_vl',
  'qwen2_5_vl_text',
  'qwen3_next',
  'qwen3_5',
  'qwen3_5_text',
  'qwen3_5_moe',
  'qwen3_5_moe_text',
  'qwen3_vl',
  'qwen3_vl_text',
  'qwen3_vl_moe',
  'qwen3_vl_moe_text',
  'smollm3',
  'phi3',
  'paligemma',
  'falcon_h1',
  'smolvlm',
  'hunyuan_v1_dense',
  'hunyuan_v1_moe',
  'exaone4',
]);

// apply_liger_kernel_to_gpt_oss(swiglu=False): "GPT-OSS has custom expert implementation" (monkey_patch.py).
const NO_FUSED_MLP = new Set(['gpt_oss']);

/** Whether `use_liger_kernel` changes anything for this config.json model_type. */
export const ligerPatches = (modelType: string): boolean => PATCHED.has(modelType);

/** The model types Liger patches, for messages. */
export const LIGER_MODEL_TYPES: readonly string[] = [...PATCHED];

/**
 * A stack's memory profile with Liger's kernels swapped in (the other fields unchanged):
 * - LigerRMSNorm saves X in its own dtype and a per-row fp32 RSTD, no fp32 copy of X (ops/rms_norm.py
 *   LigerRMSNormFunction.forward: ctx.save_for_backward(X, RSTD));
 * - LigerSwiGLUMLP / LigerGEGLUMLP save the gate and up projections only (ops/swiglu.py
 *   LigerSiLUMulFunction.forward: ctx.save_for_backward(a, b));
 * - LigerRopeFunction rotates q and k in place and saves only cos/sin (ops/rope.py), as eager HF RoPE keeps
 *   nothing q-sized either: no change to the saved activations;
 * - the loss is LigerFusedLinearCrossEntropy (ligerLossBytes below), without the fp32 upcast, unless the trainer
 *   takes its loss from the whole logits (`fusedLoss` false: EstimateContext.trainerReadsLogits), which keeps the
 *   stack's own loss path.
 */
function withLiger(fw: FrameworkProfile, fusedMlp: boolean, fusedLoss: boolean): FrameworkProfile {
  return {
    ...fw,
    eagerFp32RmsNorm: false,
    fusedSwiglu: fusedMlp || fw.fusedSwiglu,
    loss: fusedLoss ? { ...fw.loss, upcast: false } : fw.loss,
  };
}

const cache = new Map<FrameworkProfile, FrameworkProfile[]>();

/**
 * `fw` with Liger's kernels for `modelType` (made once per stack: the planner's hot loop allocates nothing);
 * `fusedLoss` false: its loss is not Liger's (the trainer reads the whole logits).
 */
export function ligerProfile(
  fw: FrameworkProfile,
  modelType: string,
  fusedLoss = true,
): FrameworkProfile {
  let four = cache.get(fw);
  if (!four)
    cache.set(
      fw,
      (four = [true, false].flatMap((loss) => [
        withLiger(fw, true, loss),
        withLiger(fw, false, loss),
      ])),
    );
  return four[(fusedLoss ? 0 : 2) + (NO_FUSED_MLP.has(modelType) ? 1 : 0)]!;
}

const nextPow2 = (n: number): number => 2 ** Math.ceil(Math.log2(Math.max(1, n)));

/** The token rows of one chunk: inc_factor = cdiv(V, H); chunk_size = next_power_of_2(cdiv(BT, inc_factor)). */
export function ligerChunkRows(tokens: number, vocab: number, hidden: number): number {
  // ops/fused_linear_cross_entropy.py fused_linear_cross_entropy_forward (commit ead96b6, same at v0.8.2).
  const inc = Math.ceil(vocab / hidden);
  return Math.min(tokens, nextPow2(Math.ceil(tokens / inc)));
}

/**
 * How much longer the output layer's GEMMs take when LigerFusedLinearCrossEntropyFunction runs them chunk by chunk
 * than the same FLOPs as one GEMM over all the micro-batch's rows: each chunk multiplies `chunk` rows by the V x H
 * weight (`_input_chunk @ weight.t()`, then `grad_logits_chunk @ weight`; ops/fused_linear_cross_entropy.py,
 * unchanged from v0.4.2 to v0.8.2), and a GEMM that short leaves most of the GPU's tiles idle. Read off Liger's own
 * kernel benchmark (linkedin/Liger-Kernel benchmark/data/all_benchmark_data.csv, fused_linear_cross_entropy, full
 * mode, A100-SXM4-80GB, H 4,096, V 128,256, bf16, liger 0.4.2): Liger 121.4 / 166.7 / 277.1 / 511.1 ms against the
 * torch Linear + CrossEntropyLoss path's 56.0 / 111.5 / 220.8 / 452.5 ms at 4,096 / 8,192 / 16,384 / 32,768 rows,
 * 32 chunks each (128 / 256 / 512 / 1,024 rows). Less each path's elementwise passes at the model's A100 stream
 * rate (Liger 0.4.2: 28 B a logit, the upcast, the two-pass cross-entropy kernel, the cast back and the scaling;
 * torch: 10 B) and 30 µs for each chunk's `.item()` sync (assumed), the torch path's three GEMMs run at 244, 245, 248
 * and 241 TFLOP/s and Liger's chunked ones at 115, 174, 213 and 234: 2.12, 1.41, 1.16 and 1.03 times as long.
 */
const CHUNK_GEMM_SLOWDOWN: readonly (readonly [rows: number, slowdown: number])[] = [
  [128, 2.12],
  [256, 1.41],
  [512, 1.16],
  [1024, 1.03],
  // From 2,048 rows a chunk is taken as one long GEMM (assumed: the 1,024-row chunks already run within 3% of it).
  [2048, 1],
];

/**
 * The factor of ligerChunkRows-row chunks on the output layer's GEMMs (CHUNK_GEMM_SLOWDOWN), log-linear between the
 * measured chunk sizes, held at 2.12 below 128 rows (none shorter was measured) and at 1 from 2,048.
 */
export function ligerChunkGemmSlowdown(rows: number): number {
  const t = CHUNK_GEMM_SLOWDOWN;
  if (rows <= t[0]![0]) return t[0]![1];
  for (let i = 1; i < t.length; i++) {
    const [r1, s1] = t[i]!;
    if (rows <= r1) {
      const [r0, s0] = t[i - 1]!;
      return s0 + ((s1 - s0) * Math.log2(rows / r0)) / Math.log2(r1 / r0);
    }
  }
  return 1;
}

/**
 * Bytes LigerFusedLinearCrossEntropyFunction holds at its forward peak and from the end of forward until
 * backward hands its gradients on, for `tokens` rows (ops/fused_linear_cross_entropy.py, commit ead96b6):
 * - forward: one chunk of logits (chunk x V in the matmul dtype, its gradient written in place by the CE
 *   kernel), grad_input = zeros_like(_input) (BT x H), loss_1d (BT fp32); with a trained output layer,
 *   grad_weight = zeros_like(weight), and while grad_weight is not fp32 each chunk adds
 *   torch.mm(grad_logits_chunk.t(), _input_chunk).float(): a V x H product and its fp32 copy;
 * - after forward: grad_input and grad_weight, computed in forward and saved for backward (no logits, no
 *   saved _input).
 */
export function ligerLossBytes(
  tokens: number,
  vocab: number,
  hidden: number,
  c: number,
  /** Bytes per element of the output layer's gradient, 0 when the output layer is frozen. */
  headGradBytes: number,
): { forward: number; backward: number } {
  const chunk = ligerChunkRows(tokens, vocab, hidden);
  const gradInput = tokens * hidden * c;
  const gradWeight = vocab * hidden * headGradBytes;
  const product = headGradBytes > 0 && headGradBytes < 4 ? vocab * hidden * (c + 4) : 0;
  return {
    forward: chunk * vocab * c + gradInput + tokens * 4 + gradWeight + product,
    backward: gradInput + gradWeight,
  };
}
