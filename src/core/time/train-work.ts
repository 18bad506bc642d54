/** A training step's work by phase: FLOPs, bytes, kernels and collectives, per mechanism. */
import './train-work-seed.js'; // first: TrainWork's number fields are doubles from the start
import { chunkedLossFuses, FRAMEWORKS } from '../memory/frameworks.js';
import { isFloatDtype } from '../model/dtypes.js';
import {
  offloadSizes,
  PAGEABLE_COPY_SHARE,
  serialReloadBytes,
  type OffloadSizes,
} from './offload-work.js';
import { zeroHookCounts, zeroHookOpsAt, type ZeroHookCounts } from './zero-hooks.js';
import { gatherCalls } from './zero-collectives.js';
import { commWork } from './train-comm-work.js';
import { ligerChunkGemmSlowdown, ligerChunkRows } from '../kernels/liger.js';
import { lossLogitBytes } from './loss-bytes.js';
import { shapeFactor } from './shape.js';
import { type EstimateOptions } from '../../schema/estimate.js';
import { type TimeOptions } from '../../schema/time.js';
import { defaultQuantFormat } from './hardware.js';
import { forwardLinears } from './model-facts.js';
import { float8Work } from './float8.js';
import { adapterPathWork, textLora } from './adapter-path.js';
import { autocastCastOps } from './autocast.js';
import { kbitStreamCastBytes, kbitStreamCastOps } from './kbit-stream.js';
import { denseLoopBwdBytes, denseMoeElemBytes } from './dense-moe.js';
import { EAGER_GATED_ACT_PASSES, groupedMmWork, groupedRowBytes } from './grouped-mm.js';
import { moeLoopTraffic } from './moe-loop-traffic.js';
import type { ModelFacts } from './model-facts.js';
import { pagedStates, pagedWorkAt, type PagedStates } from './paged-migration.js';
import {
  gradClipAllReduces,
  gradClipBytes,
  optimizerLoopOps,
  optimizerStepBytes,
  hostStepRate,
} from './optimizer-step.js';
import { gptqTorchDequantBytes } from './gptq-dequant.js';
import { floatExperts, type FloatExperts } from './float-experts.js';
import { expertParamLoraWork, NO_DELTA } from './param-wrapper.js';
import type { MoeDispatch, TrainWork, WorkLayout } from './train-work-types.js';
import { expertParallelComm } from './train-expert-parallel.js';
import { sequenceParallelComm } from './train-sequence-parallel.js';
import { backwardGathersInSeries, forwardGathersInSeries } from './fsdp-unshard-order.js';
import { ringAttentionWork } from './train-ring-attention.js';
export type { MoeDispatch, TrainWork, WorkLayout } from './train-work-types.js';

// HF eager decoder layer: ~45 PyTorch ops in forward (RMSNorm alone is 7: upcast, pow, mean, add, rsqrt,
// mul, downcast; rotary ~10); backward launches about twice as many (assumed from the modeling_llama.py code).
export const OPS_PER_LAYER_EAGER = 45;
// torch.compile fuses the pointwise chains: ~10 kernels per layer (the 7 GEMMs, attention, 2 fused
// norm/residual/activation kernels), counted from Inductor output of a Llama layer (assumed).
export const OPS_PER_LAYER_COMPILED = 12;
// Liger replaces each RMSNorm (7 ops) and the rotary embedding (~10) with one Triton kernel each and SiLU*up
// (2) with one: 45 - 2*6 - 9 - 1 = 23 (counted from liger_kernel/transformers/monkey_patch.py
// apply_liger_kernel_to_llama, commit ead96b6; residual adds and layout copies stay eager).
const OPS_PER_LAYER_LIGER = 23;
// PyTorch eager dispatch costs ~10 µs of CPU per op (python + dispatcher + launch); HF generate of
// Llama-7B fp16 on an RTX 3090 takes 32.9 ms/token where 13.5 GB at 936 GB/s is ~17 ms
// (bitsandbytes-foundation/bitsandbytes#347, https://github.com/bitsandbytes-foundation/bitsandbytes/issues/347).
export const EAGER_OP_SECONDS = 10e-6;
// A CUDA kernel launch inside a CUDA graph still leaves ~2-3 µs of GPU idle between small kernels
// (Llama-3.1-8B decode step on H100: 8.4 ms eager vs 5.1 ms as a CUDA graph, https://cloudai.pt/tag/cuda-graphs/).
export const GRAPH_KERNEL_SECONDS = 2.5e-6;
// A compiled training step is not one CUDA graph (torch.compile's default mode launches each Inductor kernel,
// and autograd runs forward and backward graphs apart): twice the decode gap per kernel (assumed).
export const GRAPH_TRAIN_KERNEL_FACTOR = 2;
// fp32 (no TF32) attention runs unfused math (SDPA has no fp32 flash kernel): half the fp32 GEMM rate (assumed).
export const FP32_ATTN_SHARE = 0.5;
// An eager RMSNorm's and rotary embedding's 16-bit passes where the engine's profile gives none (eagerPasses): ~8 per
// norm (fp32 upcast), ~6 over q and k (assumed from transformers modeling_llama.py).
const EAGER_PASSES_ASSUMED: EagerPasses = { norm: 8, rotary: 6 };
type EagerPasses = { norm: number; rotary: number; sdpaCopiesQkvOnMask?: boolean };
// Elementwise traffic per token per layer (forward), in hidden-sized 16-bit tensors read+written outside
// the GEMMs. Eager HF Llama: RMSNorm x2 (~8 passes each, fp32 upcast), residual adds, rotary (~6 passes
// over q and k), SiLU*up (3 passes over ffn), layout copies; fused (compiled / fused-norm stacks): one
// pass per norm, fused rotary and activation. Counted from transformers modeling_llama.py (assumed).
function elemBytesPerTokenLayer(
  m: ModelFacts,
  compiled: boolean,
  tp: number,
  elemSize: number,
  liger = false,
  eager: EagerPasses = EAGER_PASSES_ASSUMED,
  sdpa: 'off' | 'causal' | 'masked' = 'off',
): number {
  const h = m.hidden;
  const qk = (m.attnWidth + m.kvWidth) / tp;
  const ffn = (m.ffn * (m.experts > 1 ? m.topK : 1)) / tp;
  // Liger's RMSNorm, SwiGLU and RoPE kernels read and write each tensor once, like the compiled ones
  // (liger_kernel/ops/rms_norm.py, swiglu.py, rope.py at commit ead96b6); residual adds and copies stay eager.
  const fusedOps = compiled || liger;
  const normPasses = fusedOps ? 2 : m.rms ? eager.norm : 2;
  const norms = m.norms * normPasses * h;
  const residual = compiled ? h : 2 * 3 * h;
  const act = m.gated ? (fusedOps ? 3 : EAGER_GATED_ACT_PASSES) * ffn : (compiled ? 2 : 2) * ffn;
  const rotary = m.rms ? (fusedOps ? 2 : eager.rotary) * qk : 0;
  const qkv = m.attnWidth / tp + (2 * m.kvWidth) / tp;
  // An engine whose SDPA call copies q, k and v only when handed a mask, its output's copy back to token-major a
  // no-op after the fused kernels (EagerPasses.sdpaCopiesQkvOnMask); elsewhere ~2 passes over q/out, k, v (assumed).
  const layout = compiled
    ? 0
    : eager.sdpaCopiesQkvOnMask && sdpa !== 'off'
      ? sdpa === 'masked'
        ? 2 * qkv
        : 0
      : 2 * qkv;
  return elemSize * (norms + residual + act + rotary + layout);
}

// transformers' SDPA attention (LlamaSdpaAttention, https://github.com/huggingface/transformers/blob/v4.36.2/src/transformers/models/llama/modeling_llama.py) passes the
// 4-D mask with `is_causal=self.is_causal and attention_mask is None and q_len > 1`; the mask is dropped only when
// every token of the batch is real (`torch.all(attention_mask == 1)`, modeling_attn_mask_utils.py
// _prepare_4d_causal_attention_mask_for_sdpa), so a batch padded to its longest sample runs SDPA with attn_mask and
// is_causal=False: not the flash kernel (which takes no mask) but the memory-efficient one, over every key block.
// The mask is built in the model's dtype: 2 bytes per score read.
const SDPA_MASK_BYTES = 2;
// That memory-efficient kernel (xFormers' CUTLASS kernels, which PyTorch vendors as its EFFICIENT_ATTENTION backend:
// aten/src/ATen/native/transformers/cuda/mem_eff_attention) runs at about half FlashAttention-2's rate or less on
// the same GPU and shape. flash-attention's benchmarks/benchmark_flash_attention.py (@60499abc: xformers is
// memory_efficient_attention with cutlass.FwOp/BwOp, against Flash2) on one GPU: fwd + bwd 26.34 against 54.58
// TFLOPS at 2 x 8,192, head dim 64, causal; 14.96 against 44.99 at 16 x 1,024, head dim 128 (Dao-AILab/flash-attention#416).
// xFormers' cutlass.FwOp "almost 2x slower" than its flash.FwOp at 32 heads x 128, sequences 512-65,536 on an A40
// (facebookresearch/xformers#1074); "Flashv2 ... faster than the xFormers reimplementation across all problem sizes"
// (facebookresearch/xformers#791). The backward is the slower part (24.44 against 54.43 TFLOPS in #416's first
// shape), so 0.5 is the upper end of those figures; it is taken for forward and backward alike.
export const SDPA_MEM_EFF_ATTN_SHARE = 0.5;
// PyTorch's math SDPA (`_scaled_dot_product_attention_math`, aten/src/ATen/native/transformers/attention.cpp, the path
// `scaled_dot_product_attention` takes when sdp_utils' checks refuse the flash and memory-efficient kernels: torch
// v2.0.1's `check_equal_batch_size_and_num_heads` refuses a key with fewer heads than the query,
// https://github.com/pytorch/pytorch/blob/e9ebda29d87ce0916ab08c06ab26fd3766a870e5/aten/src/ATen/native/transformers/cuda/sdp_utils.h) under is_causal
// builds the L x S causal mask in the query dtype, then per score: `at::matmul(q, k^T)` writes it, `attn.add_(mask)`
// reads it and the mask and writes it, `at::softmax` reads it and writes its 16-bit output, `at::matmul(attn, v)`
// reads it: 7 passes of the score dtype, over the whole square (no causal half skipped).
const SDPA_MATH_SCORE_PASSES = 7;
// Liger's fused linear cross-entropy with a trained output layer adds each chunk's V x H weight gradient into
// grad_weight: torch.mm (write 2 B), .float() (read 2, write 4), += into the 16-bit grad_weight (read 4 + 2,
// write 2) = 14 B per element per chunk; fp32 grad_weight uses addmm in place (read 4, write 4) = 8 B
// (ops/fused_linear_cross_entropy.py, commit ead96b6). It runs in the loss's forward only: the backward hands
// the saved gradients on (scaled once by element_mul when grad_output is not 1), and checkpointing re-runs
// the decoder layers, not the loss (fused_linear_cross_entropy_backward, v0.6.3 d5648bfe): TrainWork.lossHeadGradBytes.
const LIGER_HEAD_GRAD_BYTES_16 = 14;
const LIGER_HEAD_GRAD_BYTES_32 = 8;

// bitsandbytes NF4 training dequantizes each frozen weight to bf16 before the matmul, per call: read 0.5 B,
// write 2 B (bitsandbytes functional.dequantize_4bit); torchao NF4 without compile runs ~4 unfused torch ops
// (PEFT 1,410 vs torchtune 465 tok/s on a 4090, github.com/BenjaminBossan/peft-experiments).
const DEQUANT_BYTES_FUSED = 2.5;
const DEQUANT_BYTES_EAGER_TORCHAO = 10;
// LLM.int8 (bitsandbytes int8): per linear call, activation quantization, outlier split, int8 GEMM and fp16
// outlier GEMM add ~8 small kernels; measured 3.7-6.7x slower than fp16 at 7-13B (T5-11B 43.5 vs 11.7 ms/token,
// https://huggingface.co/blog/hf-bitsandbytes-integration; Llama-7B 154.6 vs 32.9 ms, bitsandbytes-foundation/bitsandbytes#347;
// Baichuan2-13B 9.5 vs 35 tok/s, github.com/baichuan-inc/Baichuan2/issues/272): ~250 µs per linear call.
export const INT8_LINEAR_SECONDS = 250e-6;
// LLM.int8 training: the forward (and recompute) matmuls of frozen int8 weights run through the int8 path
// (activation quantization, outlier split, igemmlt with layout transforms, fp16 outlier GEMM) while the
// input-gradient matmul uses the dequantized weight. LoRA steps on int8 weights are measured 2-3x slower
// than on fp16 at 7B (A5000, github.com/bitsandbytes-foundation/bitsandbytes/issues/465; >2x in
// github.com/PhoebusSi/Alpaca-CoT/issues/26), which a forward GEMM ~4x slower than fp16 reproduces:
// (4F + F) / 2F = 2.5 without recompute, (8F + F) / 3F = 3 with it.
export const INT8_FORWARD_GEMM_SLOWDOWN = 4;
// bitsandbytes 4-bit layers add ~4 python-level ops per linear call (quant-state lookups, dtype casts).
const BNB4_EXTRA_OPS = 4;
// Double quantization dequantizes the absmax first in every 4-bit call: dequantize_blockwise (an empty() and
// its kernel) then `absmax += offset` (bitsandbytes 0.41 functional.py gemv_4bit / dequantize_4bit).
const BNB4_DQ_EXTRA_OPS = 3;
// A one-token 4-bit call with a bias (matmul_4bit's gemv_4bit path: A.numel() == A.shape[-1]) adds it in ops of its
// own where F.linear fuses it into the GEMM: Linear4bit.forward's `self.bias.to(self.compute_dtype)` and
// matmul_4bit's `out += bias` (bitsandbytes 0.41.1 nn/modules.py and autograd/_functions.py); the dequantizing path
// (MatMul4Bit) passes the bias to F.linear.
// https://github.com/bitsandbytes-foundation/bitsandbytes/blob/0.41.1/bitsandbytes/autograd/_functions.py
export const BNB4_GEMV_BIAS_OPS = 2;
export const bnb4Ops = (o: EstimateOptions): number =>
  BNB4_EXTRA_OPS + (o.doubleQuant ? BNB4_DQ_EXTRA_OPS : 0);

export { HOST_ADAM_BYTES_PER_S } from './optimizer-step.js';
// FSDP CPU offload and torchtune step with torch.optim on the CPU, not DeepSpeedCPUAdam: the same paper
// measures its CPU-Adam 5-7x faster than PyTorch's CPU Adam (§5), so a plain (for-loop / foreach) torch
// step runs ~6x slower. AdamW is launched fused (Trainer adamw_torch_fused, torchtune fused: True), and
// fused AdamW runs vectorized on the CPU too (https://pytorch.org/docs/stable/generated/torch.optim.AdamW.html,
// `fused`: CUDA, CPU, MPS); torchtune's 70B full fine-tune "uses CPU offload with fused optimizer" at
// 196 tokens/s per A100 (torchtune README), which a 6x slower step could not reach.
const TORCH_CPU_ADAM_SLOWDOWN = 6;
const fusedOnHost = (o: EstimateOptions) =>
  o.optimizer === 'adamw' ||
  (FRAMEWORKS[o.framework].vectorHostOptimizers ?? []).includes(o.optimizer);
// DDP/FSDP overlap gradient communication with backward; the last bucket (25 MB, torch DDP
// bucket_cap_mb default, https://pytorch.org/docs/stable/generated/torch.nn.parallel.DistributedDataParallel.html)
// is exposed after the last layer's backward.
export const LAST_BUCKET_BYTES = 25e6;
// MoE experts run in a Python loop (engine profile moeDispatch 'loop'): each expert holding a routed token costs
// its own kernels. Qwen3MoeSparseMoeBlock / MixtralSparseMoeBlock at transformers 4.40-4.51 (the HF rows' pins): mask
// select, torch.where (nonzero, the one sync), hidden-state gather and reshape, gate/up/down GEMMs, activation,
// gate*up, routing-weight gather and multiply, dtype cast, index_add_: 15 top-level aten calls (10 kernels), counted
// on transformers' own block (scripts/measure/moe_loop_ops.py, calibration/measured/hf-moe-loop-ops-cpu.json); 4.57
// adds the ModuleList index by the expert tensor (.item(), a second sync): 17. torchtune/litgpt loops are alike;
// transformers 5.x keeps a loop as experts_implementation="eager", its default being grouped_mm (engines/hf/memory.ts).
// https://github.com/huggingface/transformers/blob/v4.51.3/src/transformers/models/qwen3_moe/modeling_qwen3_moe.py
export const MOE_LOOP_OPS_PER_EXPERT = 15;
// Qwen2MoeSparseMoeBlock.forward's torch calls besides the experts (a view, the shared expert's gate/up/act/mul/down,
// the router's reshape, linear, softmax, topk and cast, shared_expert_gate's linear, sigmoid and mul, the add and
// the reshape: 16) less a dense MLP's 5 (https://github.com/huggingface/transformers/blob/v5.1.0/src/transformers/
// models/qwen2_moe/modeling_qwen2_moe.py). Qwen2MoeExperts.forward launches 6 before its loop (zeros_like, one_hot,
// permute, sum, greater, nonzero).
export const QWEN2_MOE_BLOCK_EXTRA_OPS = 16 - 5;
const QWEN2_MOE_LOOP_PREAMBLE_OPS = 6;
// What one op of such a loop costs the host in forward, where it syncs once per expert and the CPU cannot run
// ahead: huggingface/transformers#42697 times Qwen1.5-MoE-A2.7B's forward on an A100 at batch 4 x 16 tokens with the
// eager per-expert loop at 431.87 ms: 24 MoE layers, 59.3 of 60 experts hit (about 4 rows each, the GPU's share
// small). That loop (Qwen2MoeExperts.forward, transformers 5.x) launches 16 ops per hit expert (the index select and
// its == test, the mask select, torch.where, the row gather, two weight slices, two linears, chunk, act, mul, the
// routing-weight gather and mul, .to, index_add_), two of them syncs. Less the layers' other ops at EAGER_OP_SECONDS
// (OPS_PER_LAYER_EAGER, the MoE block's and the loop's own above): 18.3 µs an op. (It was the loop's run less the
// grouped_mm run, 15.7 µs; on an A100 that run is torch's per-group fallback, 55 ms of its 75: grouped-mm-cost.ts.)
export const SYNCED_LOOP_OP_SECONDS =
  (431.87e-3 -
    24 *
      (OPS_PER_LAYER_EAGER + QWEN2_MOE_BLOCK_EXTRA_OPS + QWEN2_MOE_LOOP_PREAMBLE_OPS) *
      EAGER_OP_SECONDS) /
  (24 * 59.3) /
  16;
// PEFT lora.Linear.forward per adapted linear: cast x to the adapter dtype, lora_A, lora_B, x scaling, add to
// the base output (Linear.forward, https://github.com/huggingface/peft/blob/main/src/peft/tuners/lora/layer.py):
// 5 ops per adapted expert linear.
export const LORA_OPS_PER_LINEAR = 5;
// The loop's torch.where(mask) is torch.nonzero(as_tuple=True), which on CUDA "causes host-device
// synchronization" (https://pytorch.org/docs/stable/generated/torch.nonzero.html): the CPU cannot run ahead, so
// each expert's dispatch (EAGER_OP_SECONDS per op) adds to its GPU work in forward. Autograd's backward replays
// saved indices without a sync: there dispatch (about twice the forward ops) overlaps the GPU as for dense ops.
// The loop gathers each expert's rows by advanced indexing (hidden_states[None, top_x]); its gradient is
// index_backward(grad.new_zeros(self.sizes()), indices, grad) (tools/autograd/derivatives.yaml, `index.Tensor`, at
// pytorch/pytorch v2.6.0): a zero-filled tensor of the layer's whole input per expert, which autograd then adds
// into the input's gradient (torch/csrc/autograd/input_buffer.cpp, InputBuffer::add accumulates in place). Per hit
// expert per backward: write the zeros, read both and write the sum: 4 passes over tokens x hidden.
const LOOP_INDEX_GRAD_PASSES = 4;

// Fixed per optimizer step: data loader hand-off, logging, zero_grad, scheduler (~20 ms, assumed from
// HF Trainer step overheads).
export const STEP_OVERHEAD_SECONDS = 0.02;

/** Work of one training step (GPU-independent); `t` supplies grad-accum and the quant format. */

export function workLayout(m: ModelFacts, o: EstimateOptions, dispatch: MoeDispatch): WorkLayout {
  const { tp, pp, cp } = o;
  const shard = tp * pp;
  const dp = Math.max(1, Math.floor(o.gpus / (tp * pp * cp)));
  const lora = o.method === 'lora' || o.method === 'qlora';
  const compiled = o.compile || FRAMEWORKS[o.framework].fusedKernels;
  return {
    tp,
    pp,
    cp,
    dp,
    zeroRanks: dp * cp,
    tokens: (o.batch * o.seq) / cp,
    shard,
    lora,
    compiled,
    liger: o.liger && m.liger && !compiled,
    layersHere: m.layers / pp,
    lmHead: m.lmHead / (tp * pp),
    recompute: o.checkpointing === 'full' || o.checkpointing === 'offload' ? 1 : 0,
    // torch.autocast over fp32 weights (AMP without FSDP mixed precision): layer_norm, softmax and the loss
    // run in fp32 and the fp32 residual stream is cast for each linear
    // (https://pytorch.org/docs/stable/amp.html#cuda-ops-that-can-autocast-to-float32): elementwise traffic
    // about half fp32 (3 B per element), and every linear weight is cast fp32 -> 16-bit (read 4 B, write
    // 2 B) in each forward and recompute (autocast's cast cache lives for one forward).
    autocast: o.weights === 'fp32' && o.compute !== 'fp32' && o.zero < 3 && !compiled,
    // LoRA adapters: r x (in + out) per targeted linear; their FLOPs are 6 per weight per token.
    adapterW: lora ? adapterWeights(m, o, dispatch) / shard : 0,
    adapterActive: lora ? adapterWeights(m, o, dispatch, true) / shard : 0,
    moeLoop: dispatch === 'loop',
  };
}

/** Matmul FLOPs, attention FLOPs, elementwise bytes and kernel launches of one micro-batch. */
export function computeWork(m: ModelFacts, o: EstimateOptions, w: WorkLayout, t: TimeOptions) {
  const { tokens, shard, tp, cp, layersHere, lmHead, compiled } = w;
  const fp32Stream = t.kbitFp32Stream === true && o.method === 'qlora' && !compiled;
  const elemSize = o.compute === 'fp32' ? 4 : w.autocast || fp32Stream ? 3 : 2;
  const fwdGemmFlops = 2 * tokens * (m.linearActive / shard + lmHead);
  // SDPA handed a padding mask (TimeOptions.sdpaPaddingMask) runs with is_causal=False and the 4-D mask.
  const masked = o.attention === 'sdpa' && t.sdpaPaddingMask === true;
  // SDPA on its math path (TimeOptions.sdpaMath) materializes the scores.
  const math = o.attention === 'sdpa' && t.sdpaMath === true;
  // Causal flash/SDPA kernels skip the masked half of QK^T and PV; eager attention computes it all, and so do
  // SDPA's memory-efficient kernel told the causal structure only through the mask and its math path.
  const causalShare = m.causal && o.attention !== 'eager' && !masked && !math ? 0.5 : 1;
  // Context parallelism: a rank's seq / cp queries meet every K/V shard as it rotates round the ring, (seq / cp) x seq
  // scores as eagerScores counts them (pytorch/pytorch v2.7.0 torch/distributed/tensor/experimental/_attention.py).
  const fwdAttnFlops =
    4 * tokens * o.seq * (m.attnWidth / tp) * layersHere * (m.attnLayers / m.layers) * causalShare +
    (tokens * m.recurrentFlopsPerToken * (layersHere / m.layers)) / tp;
  const ligerLoss = w.liger && t.trainerReadsLogits !== true; // not under TimeOptions.trainerReadsLogits
  // A build that ran its loss uncompiled under --compile (TimeOptions.eagerLoss) reads the logits as eager code does.
  const fusedLoss = chunkedLossFuses(o) || (compiled && t.eagerLoss !== true) || ligerLoss;
  // The loss's logit traffic, forward and backward apart (time/loss-bytes.ts).
  const perLogit = lossLogitBytes({
    fused: fusedLoss,
    halfLogits: o.compute !== 'fp32',
    shiftCopy: t.shiftedLogitsCopy === true,
  });
  const logits = (tokens * m.vocab) / (tp * w.pp);
  const lossBytes = logits * perLogit.fwd;
  const elem =
    tokens *
      layersHere *
      elemBytesPerTokenLayer(
        m,
        compiled,
        tp,
        elemSize,
        w.liger,
        FRAMEWORKS[o.framework].eagerPasses,
        o.attention !== 'sdpa' ? 'off' : masked ? 'masked' : 'causal',
      ) +
    lossBytes;
  // Eager attention materialises b x heads x s x s scores; per score, in bytes of the score dtype c (HF
  // eager_attention_forward, BertSelfAttention): QK^T writes c; the scaling and the mask add each read and
  // write c; softmax reads c and writes fp32 (4), cast back to c (read 4, write c) unless the scores are
  // fp32; dropout reads and writes c plus a 1-byte mask; PV reads c: 10c + 9 B (16-bit), 9c + 5 (fp32).
  const scoreBytes = o.compute === 'fp32' ? 9 * 4 + 5 : 10 * elemSize + 9;
  const eagerScores =
    o.attention === 'eager'
      ? o.batch * (m.heads / tp) * (o.seq / cp) * o.seq * scoreBytes * layersHere
      : 0;
  // The masked SDPA kernel loads the b x 1 x s x s mask (model dtype: 16-bit) tile by tile for every head.
  const maskReads = masked
    ? o.batch * (m.heads / tp) * (o.seq / cp) * o.seq * SDPA_MASK_BYTES * layersHere
    : 0;
  const scores = o.batch * (m.heads / tp) * (o.seq / cp) * o.seq * layersHere;
  // Its scores are in the query's dtype (SDPA runs in 16 bits under autocast).
  const mathScores = math ? scores * SDPA_MATH_SCORE_PASSES * (o.compute === 'fp32' ? 4 : 2) : 0;
  return {
    fwdGemmFlops: fwdGemmFlops + 2 * tokens * w.adapterActive,
    fwdAttnFlops,
    fwdElemBytes: elem + eagerScores + (maskReads + mathScores) * (m.attnLayers / m.layers),
    headFwdFlops: 2 * tokens * lmHead,
    lossElemBytes: lossBytes,
    lossBwdBytes: logits * perLogit.bwd,
    lossHeadGradBytes: ligerLoss ? ligerHeadGradBytes(m, o, w) : 0,
    lossChunkExtraFlops: ligerLoss ? ligerChunkExtraFlops(m, w) : 0,
    fwdOps:
      layersHere *
      ((compiled ? OPS_PER_LAYER_COMPILED : w.liger ? OPS_PER_LAYER_LIGER : OPS_PER_LAYER_EAGER) +
        (w.autocast ? autocastCastOps(m.arch, o.attention === 'eager') : 0) +
        (fp32Stream ? kbitStreamCastOps(m.arch) : 0)),
    // Backward: input gradients (2 FLOPs/weight/token) always; weight gradients only when trained.
    // FlashAttention backward is 2.5x its forward matmul FLOPs (5 GEMMs vs 2, arXiv:2205.14135 §B).
    bwdGemmFlops:
      (w.lora ? 2 * tokens * (m.linearActive / shard + lmHead) : 2 * fwdGemmFlops) +
      4 * tokens * w.adapterActive,
    bwdAttnFlops: 2.5 * fwdAttnFlops,
  };
}

/**
 * Liger's fused loss runs the output layer's forward and input-gradient GEMMs (2 + 2 FLOPs a weight a row) chunk by
 * chunk: the FLOPs those chunks take beyond one GEMM over all the rows, at the step's GEMM rate
 * (kernels/liger.ts ligerChunkGemmSlowdown). The head lives on the last pipeline stage: none where pp > 1.
 */
function ligerChunkExtraFlops(m: ModelFacts, w: WorkLayout): number {
  if (w.lmHead === 0 || w.pp > 1) return 0;
  const slowdown = ligerChunkGemmSlowdown(ligerChunkRows(w.tokens, m.vocab, m.hidden));
  return 4 * w.tokens * w.lmHead * (slowdown - 1);
}

/** Liger's per-chunk accumulation of the output layer's weight gradient (full fine-tunes only), bytes. */
function ligerHeadGradBytes(m: ModelFacts, o: EstimateOptions, w: WorkLayout): number {
  if (!w.liger || o.method !== 'full' || m.lmHead === 0 || w.pp > 1) return 0;
  const chunks = Math.ceil(w.tokens / ligerChunkRows(w.tokens, m.vocab, m.hidden));
  const perElem = o.weights === 'fp32' ? LIGER_HEAD_GRAD_BYTES_32 : LIGER_HEAD_GRAD_BYTES_16;
  return chunks * m.lmHead * perElem;
}

/** Frozen quantized weights: dequantized per matmul call (forward, recompute, backward input-grad). */
function quantWork(m: ModelFacts, o: EstimateOptions, t: TimeOptions, w: WorkLayout) {
  const passes = 2 + w.recompute;
  const q = t.quantFormat ?? defaultQuantFormat(o);
  let dequantBytes = 0;
  let bnb4DequantBytes = 0;
  let dequantSeconds = 0;
  let bnb4HostSeconds = 0;
  let int8ForwardFlops = 0;
  if (o.method === 'qlora' || (o.method === 'lora' && !isFloatDtype(o.weights))) {
    const perElem =
      q === 'torchao' && !w.compiled ? DEQUANT_BYTES_EAGER_TORCHAO : DEQUANT_BYTES_FUSED;
    // Routed experts the quantizer left in floating point take no dequantization (time/float-experts.ts).
    const fe = floatExperts(m, o, t);
    const linears = m.linearsPerLayer - (fe?.linearsPerLayer ?? 0);
    dequantBytes = (passes * perElem * (forwardLinears(m, o) - (fe?.elements ?? 0))) / w.shard;
    if (q === 'gptq' && t.gptqTorchDequant === true)
      dequantBytes = gptqTorchDequantBytes(m, o, w.recompute, w.shard);
    if (o.weights === 'int8' && q === 'bnb') {
      dequantSeconds = passes * INT8_LINEAR_SECONDS * linears * w.layersHere;
      int8ForwardFlops =
        (1 + w.recompute) * 2 * w.tokens * ((m.linearActive - (fe?.active ?? 0)) / w.shard);
    } else if (q === 'bnb') {
      // Host dispatch of the 4-bit call's ops: it runs under the GPU's work like the layers' ops (train-step.ts).
      bnb4HostSeconds = passes * bnb4Ops(o) * EAGER_OP_SECONDS * linears * w.layersHere;
      bnb4DequantBytes = dequantBytes;
    }
  }
  if (w.autocast) dequantBytes += (1 + w.recompute) * 6 * (forwardLinears(m, o) / w.shard);
  // The fp32 stream's casts under autocast (time/kbit-stream.ts kbitStreamCastBytes).
  if (t.kbitFp32Stream === true && o.method === 'qlora' && !w.compiled && t.noAutocast !== true) {
    const quantizedExperts = floatExperts(m, o, t) === null;
    dequantBytes += kbitStreamCastBytes(
      m.arch,
      w.tokens,
      w.layersHere,
      w.recompute,
      w.tp,
      quantizedExperts,
    );
  }
  return {
    dequantBytes,
    bnb4DequantBytes,
    bnbTreeDequant: t.bnbTreeDequant === true,
    dequantSeconds,
    bnb4HostSeconds,
    int8ForwardFlops,
  };
}

// Selective recomputation re-runs each layer's attention core alone (arXiv:2205.05198 §5), where the engine's
// profile names no other policy (FrameworkProfile.selectiveRecompute).
const SELECTIVE_ATTENTION_ONLY = { attention: 1, gemm: 0, elementwise: 0 };

/**
 * The part of a step's work that reads neither the GPU count, the data-parallel degree nor the grad-accum:
 * one micro-batch's matmuls, attention, elementwise traffic and launches, dequantization, routed experts,
 * the adapters' path and FP8 casts. computeWork, quantWork, expertWork, floatExperts, adapterPathWork and
 * float8Work read the options' model, method, dtype, layout (TP, PP, CP), ZeRO stage and engine fields, the
 * layout's per-GPU shapes (never `dp`) and the time options' library switches (never `gradAccum`), so rows that
 * differ only in their GPU count and grad-accum share it (the planner's rows: plan/loop.ts rowTimingOf).
 */
export interface CountFreeWork {
  cw: ReturnType<typeof computeWork>;
  qw: ReturnType<typeof quantWork>;
  ew: ReturnType<typeof expertWork>;
  aw: ReturnType<typeof adapterPathWork>;
  f8: ReturnType<typeof float8Work>;
  /** The ZeRO hooks' modules, gradients, reduces and gathers (zero-hooks.ts zeroHookCounts; null: none). */
  zh: ZeroHookCounts | null;
  /** Paged optimizer states before the shards (paged-migration.ts pagedStates; null: none). */
  paged: PagedStates | null;
  /** CPU offload's copies before the data-parallel split (offload-work.ts offloadSizes). */
  offload: OffloadSizes;
  /** Trainable parameters (the adapters, or the whole model): what the optimizer steps. */
  trainable: number;
}

/** A step's CountFreeWork (w: the options' layout; its `dp` is not read). */
export function countFreeWork(
  m: ModelFacts,
  o: EstimateOptions,
  t: TimeOptions,
  dispatch: MoeDispatch = moeDispatchOf(m, o, t),
  paramWrapper = FRAMEWORKS[o.framework].expertAdapters === 'param-wrapper',
  w: WorkLayout = workLayout(m, o, dispatch),
): CountFreeWork {
  const fe = w.lora ? floatExperts(m, o, t) : null;
  const ew = expertWork(m, o, w, dispatch, paramWrapper, t, fe);
  const moeHooked = t.zeroMoeHooked === true;
  const trainable = w.lora ? adapterWeights(m, o, dispatch) : m.total;
  const zh = zeroHookCounts(m, o, w.layersHere, ew.dispatch === 'loop', ew.hit, moeHooked, {
    numel: trainable,
    autoBuckets: t.zeroAutoBuckets === true,
  });
  return {
    cw: computeWork(m, o, w, t),
    qw: quantWork(m, o, t, w),
    ew,
    aw: adapterPathWork(m, o, w, t),
    f8: float8Work(m, o, w.tokens, w.shard),
    zh,
    paged: pagedStates(m, o, trainable, w.lora),
    offload: offloadSizes(m, o, t, w, trainable),
    trainable,
  };
}

/**
 * `free`: the CountFreeWork of options that differ from `o` at most in the GPU count (and of time options that
 * differ from `t` at most in grad-accum), made once for all of them; made here when not given.
 */
// Long on purpose: it returns one flat TrainWork record, one line per field (written out, not spread: see below).
export function trainWork(
  m: ModelFacts,
  o: EstimateOptions,
  t: TimeOptions,
  dispatch: MoeDispatch = moeDispatchOf(m, o, t),
  paramWrapper = FRAMEWORKS[o.framework].expertAdapters === 'param-wrapper',
  free?: CountFreeWork,
): TrainWork {
  const w = workLayout(m, o, dispatch);
  const { tokens, shard } = w;
  const shared = free ?? countFreeWork(m, o, t, dispatch, paramWrapper, w);
  // Trainable parameters: the optimizer's states, on the GPU or stepped on the host.
  const trainable = shared.trainable;
  const shardOpt = o.zero >= 1 ? w.zeroRanks : 1;
  // The step's own traffic and the gradient-norm clip before it, on the same shard of the gradients.
  const optBytes =
    ((optimizerStepBytes(o, t) + gradClipBytes(o, t)) * trainable) / shard / shardOpt;
  const onHost = o.offload !== 'none';
  const hostOpt = onHost ? (28 * trainable) / shard / shardOpt : 0;
  const mfuAttn = 12 * m.layers * o.seq * m.attnWidth; // PaLM App. B: 6N + 12·L·H·Q·T
  const pw = pagedWorkAt(shared.paged, shard * shardOpt);
  const { cw, qw, ew, aw, f8 } = shared;
  const nw = commWork(m, o, t, w, trainable, shared.offload);
  const sel = FRAMEWORKS[o.framework].selectiveRecompute ?? SELECTIVE_ATTENTION_ONLY;
  const zh = zeroHookOpsAt(shared.zh, w.zeroRanks);
  // Written out field by field, not spread: the planner makes one per row, and spreads built each of the
  // first few hundred with a different V8 hidden class (deoptimizing the step-time functions that read them).
  return {
    tokens,
    microBatches: t.gradAccum,
    tokensPerStep: tokens * w.cp * t.gradAccum * w.dp,
    gpus: o.gpus,
    tp: w.tp,
    pp: w.pp,
    dp: w.dp,
    zeroRanks: w.zeroRanks,
    fwdGemmFlops: cw.fwdGemmFlops + ew.extraFwdFlops,
    fwdAttnFlops: cw.fwdAttnFlops,
    fwdElemBytes: cw.fwdElemBytes + ew.denseElemBytes,
    headFwdFlops: cw.headFwdFlops,
    lossElemBytes: cw.lossElemBytes,
    lossBwdBytes: cw.lossBwdBytes,
    lossHeadGradBytes: cw.lossHeadGradBytes,
    lossChunkExtraFlops: cw.lossChunkExtraFlops,
    fwdOps: cw.fwdOps,
    bwdGemmFlops: cw.bwdGemmFlops + ew.extraBwdFlops,
    bwdAttnFlops: cw.bwdAttnFlops,
    attnShare: o.attention === 'sdpa' && t.sdpaPaddingMask === true ? SDPA_MEM_EFF_ATTN_SHARE : 1,
    // SDPA's cuDNN backend takes the causal, unmasked call; a padding mask keeps the memory-efficient kernel above.
    cudnnAttn: o.attention === 'sdpa' && t.sdpaCudnn === true && t.sdpaPaddingMask !== true,
    recompute: o.checkpointing === 'selective' ? 1 : w.recompute,
    recomputeAttnOnly: o.checkpointing === 'selective',
    selAttn: sel.attention,
    selGemm: sel.gemm,
    selElem: sel.elementwise,
    tiledMlpFlops: o.tiledMlp ? (2 * tokens * mlpActive(m)) / w.shard : 0,
    shape: shapeFactor(tokens, m.hidden / w.tp),
    fp32: o.compute === 'fp32',
    bf16: o.compute === 'bf16',
    dequantBytes: qw.dequantBytes,
    bnb4DequantBytes: qw.bnb4DequantBytes,
    bnbTreeDequant: qw.bnbTreeDequant,
    dequantSeconds: qw.dequantSeconds,
    bnb4HostSeconds: qw.bnb4HostSeconds,
    int8ForwardFlops: qw.int8ForwardFlops,
    optimizerBytes: onHost ? 0 : optBytes,
    optimizerHostSeconds: onHost ? 0 : optimizerLoopOps(m, o, t) * EAGER_OP_SECONDS,
    optimizerOnHost: onHost,
    gradClipAllReduces: gradClipAllReduces(o, t, w),
    // DeepSpeed steps offloaded states with DeepSpeedCPUAdam/CPULion, AdamW runs fused; other torch optimizers loop.
    hostOptimizerBytes: fusedOnHost(o) ? hostOpt : hostOpt * TORCH_CPU_ADAM_SLOWDOWN,
    hostStepBytesPerS: hostStepRate(FRAMEWORKS[o.framework], t),
    pagedStateBytes: pw.pagedStateBytes,
    pagedWorkingBytes: pw.pagedWorkingBytes,
    gatherBytes: nw.gatherBytes,
    gatherPassBytes: nw.gatherPassBytes,
    fsdpCopyPassBytes: nw.fsdpCopyPassBytes,
    fsdpCopyGatherBytes: nw.fsdpCopyGatherBytes,
    fsdpCopyReduceBytes: nw.fsdpCopyReduceBytes,
    gradDivideBytes: nw.gradDivideBytes,
    gradHookCopyBytes: nw.gradHookCopyBytes,
    gradReduceBytes: nw.gradReduceBytes,
    gradReducePerMicro: nw.gradReducePerMicro,
    lastBucketEmbedBytes: nw.lastBucketEmbedBytes,
    serialComm: t.serialComm === true && o.zero >= 2,
    fwdGatherSerial: forwardGathersInSeries(o, t, nw.gatherPassBytes, ew.loopOps),
    bwdGatherSerial: backwardGathersInSeries(o, t, nw.gatherPassBytes, ew.loopOps, w.recompute),
    zeroReduces: w.zeroRanks > 1 ? (shared.zh?.host3?.reduces ?? 0) : 0,
    zeroGathers: w.zeroRanks > 1 ? gatherCalls(shared.zh?.host3?.gathers) : 0,
    paramGatherAfterStep: nw.paramGatherAfterStep,
    offloadBytes: nw.offloadBytes,
    offloadParamPassBytes: nw.offloadParamPassBytes,
    offloadPasses: nw.offloadPasses,
    offloadGradBytes: nw.offloadGradBytes,
    offloadActBytes: nw.offloadActBytes,
    offloadActSerialBytes: t.offloadReloadSerial === true ? serialReloadBytes(m, o, w) : 0,
    offloadCopyShare: t.pageableOffload === true ? PAGEABLE_COPY_SHARE : 1,
    offloadGradCopyShare: t.pageableGradOffload === true ? PAGEABLE_COPY_SHARE : 1,
    // On one rank DeepSpeed's NoGatherHandle copies non_blocking (partition_parameters.py): only the gathers block.
    offloadCopyBlocks:
      w.zeroRanks > 1 && FRAMEWORKS[o.framework].zeroHooks?.blockingParamCopies === true,
    tpCalls: nw.tpCalls,
    tpBytes: nw.tpBytes,
    ep: expertParallelComm(m, o, w),
    sp: sequenceParallelComm(m, o, w),
    ring: ringAttentionWork(m, o, w),
    // LoRA/QLoRA need no frozen-weight gradients: 4 FLOPs per frozen weight per token (forward +
    // input gradient) and 6 per adapter weight, so their MFU is not inflated by FLOPs never run.
    modelFlopsPerToken:
      (w.lora
        ? 4 * (m.active - embedOnly(m)) + 6 * w.adapterActive * shard
        : 6 * (m.active - embedOnly(m))) + mfuAttn,
    compiled: w.compiled,
    layers: Math.max(1, w.layersHere),
    expertFwdFlops: ew.fwdFlops,
    expertBwdFlops: ew.bwdFlops,
    expertShape: ew.shape,
    expertWeightBytes: ew.weightBytes,
    expertFp32: ew.fp32,
    moeLoopOps: ew.loopOps,
    moeLoopBwdBytes: ew.loopBwdBytes,
    moeLoopRowFwdBytes: ew.loopRowFwdBytes,
    moeLoopRowBwdBytes: ew.loopRowBwdBytes,
    zeroHookFwdOps: zh.fwdOps,
    zeroHookLoopOps: zh.loopFwdOps,
    zeroHookBwdOps: zh.bwdOps,
    zeroHookLoopBwdOps: zh.loopBwdOps,
    zeroHookFwdSeconds: zh.fwdSeconds,
    zeroHookLoopSeconds: zh.loopFwdSeconds,
    zeroHookBwdSeconds: zh.bwdSeconds,
    zeroHookLoopBwdSeconds: zh.loopBwdSeconds,
    moeDispatch: ew.dispatch,
    expertsHit: ew.hit,
    deltaFwdFlops: ew.delta.fwdFlops,
    deltaFwdBytes: ew.delta.fwdBytes,
    deltaBwdFlops: ew.delta.bwdFlops,
    deltaBwdBytes: ew.delta.bwdBytes,
    adapterFwdBytes: aw.fwdBytes,
    adapterBwdBytes: aw.bwdBytes,
    adapterFwdOps: aw.fwdOps,
    adapterBwdOps: aw.bwdOps,
    adapterFp32Flops: aw.fp32Flops,
    f8,
    groupedMm: groupedMmWork(m, o, w.layersHere, w.lora, ew.dispatch === 'grouped', paramWrapper),
    // torch.autocast over fp32 weights: transformers casts the input to the weight's dtype (fp32) for the call. FP8
    // compute swaps nn.Linear modules (torchao convert_to_float8_training); 3-D grouped experts are none, so stay bf16.
    groupedMmBf16: o.compute !== 'fp16' && o.compute !== 'fp32' && !w.autocast && !ew.fp32,
  };
}

export const moeDispatchOf = (m: ModelFacts, o: EstimateOptions, t: TimeOptions): MoeDispatch => {
  const fw = FRAMEWORKS[o.framework];
  if (fw.moeDense?.includes(m.modelType)) return 'dense';
  // A row measured on a library build that looped its experts (TimeOptions.moeLoop).
  return t.moeLoop && m.experts > 1 ? 'loop' : fw.moeDispatch;
};

/** expertWork's record for a model without routed experts (its dispatch apart). */
const NO_EXPERT_WORK = {
  fwdFlops: 0,
  bwdFlops: 0,
  shape: 1,
  weightBytes: 0,
  fp32: false,
  loopOps: 0,
  loopBwdBytes: 0,
  loopRowFwdBytes: 0,
  loopRowBwdBytes: 0,
  denseElemBytes: 0,
  hit: 0,
  delta: NO_DELTA,
  extraFwdFlops: 0,
  extraBwdFlops: 0,
};

/**
 * Routed experts of one micro-batch: with T tokens each routed to k of E experts, a layer hits
 * E(1 - (1 - k/E)^T) distinct experts (nearly all once T*k >> E), each on T*k/hit rows. A loop runs each hit
 * expert as its own small GEMMs (shape factor of those rows, and a floor of reading the expert's weights);
 * a grouped GEMM runs the layer's experts in one kernel at the batch's shape.
 */
function expertWork(
  m: ModelFacts,
  o: EstimateOptions,
  w: WorkLayout,
  dispatch: MoeDispatch,
  paramWrapper: boolean,
  t: Pick<TimeOptions, 'denseMoeLoop' | 'alignPermute' | 'expertParamLoraLayers'>,
  fe: FloatExperts | null = null,
) {
  if (m.experts <= 1 || m.moeLayers === 0) return { ...NO_EXPERT_WORK, dispatch };
  const layers = (m.moeLayers * w.layersHere) / m.layers;
  // Dense: every expert runs every token (routed = experts), as one bmm over all experts.
  const dense = dispatch === 'dense';
  const routed = dense ? m.experts : m.topK;
  const hit = dense
    ? m.experts
    : m.experts * (1 - Math.pow(Math.max(0, 1 - m.topK / m.experts), w.tokens));
  const rows = (w.tokens * routed) / hit;
  const fwdFlops = (2 * w.tokens * routed * m.expertWeightsPerLayer * layers) / w.tp;
  // computeWork counts the topK experts a token is routed to; dense runs the others too.
  const denseExtra = dense ? (fwdFlops * (m.experts - m.topK)) / m.experts : 0;
  const adapted = w.lora
    ? o.loraTargets.filter((r) => r === 'gate' || r === 'up' || r === 'down').length
    : 0;
  const loop = dispatch === 'loop';
  // A dense block's experts as per-expert linears, one after another (TimeOptions.denseMoeLoop).
  const denseLoop = dense && t.denseMoeLoop === true;
  // Experts left in floating point are read at their own width (fp32 where the engine runs PEFT's k-bit upcast).
  const eb = fe?.bytes ?? 2;
  // Under PEFT target_parameters each hit expert of a loop reads the parametrized weights (param-wrapper.ts).
  const pl = t.expertParamLoraLayers;
  const delta =
    paramWrapper && w.lora
      ? expertParamLoraWork(m, o, w.tp, layers, eb, pl, loop ? hit : 1)
      : NO_DELTA;
  const lt = moeLoopTraffic(m, o, w.tokens, w.layersHere, loop, w.tp);
  return {
    fwdFlops,
    // LoRA: input gradients only (frozen experts); full fine-tuning adds the weight gradients, and so does
    // ParamWrapper's W + ΔW (it requires grad) for the adapted share of each expert.
    bwdFlops: w.lora ? fwdFlops * (1 + delta.share) : 2 * fwdFlops,
    // One expert's GEMM is (its rows) x (expert width); grouped, the kernel tiles all routed rows at once.
    shape: shapeFactor(loop || dense ? rows : w.tokens * m.topK, m.expertFfn / w.tp),
    weightBytes: (hit * m.expertWeightsPerLayer * layers * eb) / w.tp,
    fp32: eb === 4,
    loopOps: loop
      ? layers *
        hit *
        (MOE_LOOP_OPS_PER_EXPERT + LORA_OPS_PER_LINEAR * Math.min(adapted, m.expertLinears))
      : 0,
    loopBwdBytes: loop
      ? (layers *
          hit *
          LOOP_INDEX_GRAD_PASSES *
          w.tokens *
          m.hidden *
          (o.compute === 'fp32' ? 4 : 2)) /
        w.tp
      : denseLoop
        ? denseLoopBwdBytes(m, o, w.tokens, w.tp, layers)
        : 0,
    loopRowFwdBytes: lt.fwd,
    loopRowBwdBytes: lt.bwd,
    denseElemBytes: dense // grouped: the wrapper's row passes (grouped-mm.ts groupedRowBytes)
      ? denseMoeElemBytes(m, o, w.compiled, w.tokens, w.tp, layers, denseLoop)
      : groupedRowBytes(
          m,
          o,
          w.tokens,
          w.layersHere,
          dispatch === 'grouped',
          w.compiled,
          t.alignPermute,
        ),
    dispatch,
    hit,
    delta,
    extraFwdFlops: denseExtra,
    // Counted in bwdGemmFlops too (computeWork counts input gradients only for LoRA).
    extraBwdFlops: (w.lora ? fwdFlops * delta.share : 0) + (w.lora ? 1 : 2) * denseExtra,
  };
}

/** Embedding-table parameters that take no matmul (total - linears - lm head - norms). */
export function embedOnly(m: ModelFacts): number {
  return Math.max(0, m.active - m.linearActive - m.lmHead - 0);
}

/**
 * LoRA adapter weights: r x (in + out) for every adapter pair memory counts on the language model (textLora: a fused
 * module's one pair, a pair per role where the engine adapts roles apart), the fused experts' adapter parameters
 * included (per expert linear where the experts run in a loop); `active`: those a token runs through (its topK
 * routed experts).
 */
function adapterWeights(
  m: ModelFacts,
  o: EstimateOptions,
  dispatch: MoeDispatch,
  active = false,
): number {
  const lora = textLora(m, o, dispatch === 'loop');
  let n = 0;
  const adapters = lora.adapters;
  for (let i = 0; i < adapters.length; i++) {
    const a = adapters[i]!;
    n +=
      a.group.count *
      (active ? a.activeCopies : a.copies) *
      o.loraRank *
      (a.inFeatures + a.outFeatures);
  }
  // One rank-r pair per expert (peft-moe.ts fusedExpertLoraParams): a token runs topK of the experts' pairs where
  // the engine multiplies by them (Unsloth's grouped X·A·B), none where PEFT's ParamWrapper forward folds them into
  // W + ΔW (its einsum is deltaWork's, time/param-wrapper.ts).
  const perToken = FRAMEWORKS[o.framework].expertAdapters === 'param-wrapper' ? 0 : 1;
  const experts = lora.experts;
  for (let i = 0; i < experts.length; i++) {
    const e = experts[i]!;
    n += e.group.count * e.params * (active ? (perToken * e.group.topK) / e.group.experts : 1);
  }
  return n;
}

/** MLP weight elements a token passes through, all layers (MoE: its topK experts' gate, up and down). */
function mlpActive(m: ModelFacts): number {
  if (m.experts > 1) return m.moeLayers * m.expertLinears * m.hidden * m.expertFfn * m.topK;
  return m.layers * (m.gated ? 3 : 2) * m.hidden * m.ffn;
}
