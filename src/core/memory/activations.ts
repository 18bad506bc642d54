/**
 * Activations saved for backward, per token of one layer, from the tensors each op keeps (norms, attention
 * kernels, MLP activations, LoRA dropout, MoE routing). Pure.
 */
import type { LayerGroup, LinearRole, RecurrentState } from '../model/arch.js';
import type { EstimateOptions } from '../../schema/estimate.js';
import type { FrameworkProfile } from './frameworks.js';
import { ATTN_ROLES, MLP_IN_ROLES, anyTrained, type Trainable } from '../model/trainable.js';
import { loraDropoutOn } from './lora-dropout.js';

/** Shapes and flags shared by the per-layer activation formulas. */
export interface ActCtx {
  c: number; // compute dtype bytes
  t: Trainable;
  /** Whether the linear of this role saves its input for backward. */
  saves: (role: LinearRole) => boolean;
  /** Norms and SwiGLU run as fused kernels (compiled graph or Triton kernels). */
  fused: boolean;
  /** torch.autocast over fp32 weights: norms run in fp32, so the residual stream and norm inputs are fp32. */
  amp: boolean;
  fw: FrameworkProfile;
  o: EstimateOptions;
  seq: number;
  tp: number;
  /**
   * Megatron sequence parallelism: tp when on (with TP), else 1. It shards what TP alone replicates (norm
   * inputs, dropout masks, the layer input): Korthikanti et al. 2022 §4.2.2, sbh(34/t + 5as/(ht)) per layer.
   */
  sp: number;
}

/** Bytes a norm saves per token: its input (fp32 copy when eager), and its output if a consumer saves it. */
function normBytes(g: LayerGroup, x: ActCtx, consumersSave: boolean): number {
  return normBytesUnsharded(g, x, consumersSave) / x.sp;
}

function normBytesUnsharded(g: LayerGroup, x: ActCtx, consumersSave: boolean): number {
  const h = g.hidden;
  const out = consumersSave ? x.c * h : 0;
  if (g.norm === 'rms' && x.fw.eagerFp32RmsNorm && !x.fused && x.c < 4) {
    // eager RMSNorm: fp32 copy saved by pow/mul; the low-precision normalized copy only for the weight grad.
    return 4 * h + (x.t.full ? x.c * h : 0) + out;
  }
  // Under autocast, layer_norm is on the fp32 list: its input (the fp32 residual stream) is saved in fp32
  // and its consumers save their own low-precision cast (torch.amp autocast op reference).
  if (x.amp) return 4 * h + out;
  return x.c * h + out; // fused RMSNorm / LayerNorm kernels save the input (+ tiny mean/rstd)
}

/**
 * LoRA dropout per token over `width` input elements of adapted linears: nn.Dropout's output, which lora_A saves
 * for its weight gradient, in the compute dtype, and the 1-byte bool mask native_dropout saves for backward
 * (pytorch v2.5.1 tools/autograd/derivatives.yaml `native_dropout`: result1 (mask) saved; lora_A's mm saves
 * its input). Each adapted linear has its own dropout (memory/lora-dropout.ts); 0 without LoRA dropout.
 */
function dropoutBytes(x: ActCtx, width: number): number {
  if (x.t.full || !loraDropoutOn(x.o, x.fw)) return 0;
  return (x.c + 1) * width;
}

/** How many of `roles` carry an adapter. */
const trainedCount = (x: ActCtx, roles: readonly LinearRole[]): number =>
  x.t.full ? 0 : roles.filter((r) => x.t.roles.has(r)).length;

/** Saved bytes per token of the attention block (excluding its input norm). */
function attentionBytes(
  g: LayerGroup,
  x: ActCtx,
  roles: { o: LinearRole; qkv: readonly LinearRole[] },
): number {
  const { c, fw, o } = x;
  const a = g.heads;
  const qd = a * g.headDim;
  const expand = o.attention !== 'flash' && (o.attention === 'eager' || fw.sdpaExpandsKv);
  const kvHeads = expand ? a : g.kvHeads;
  const kvd = kvHeads * (g.headDim + g.vHeadDim);
  const outd = a * g.vHeadDim;
  let b = 0;
  // One fused qkv linear (fusedQkvView) runs one dropout for q, k and v; separate linears one each.
  const qkv = fw.fusedQkvView ? (anyTrained(x.t, roles.qkv) ? 1 : 0) : trainedCount(x, roles.qkv);
  b += dropoutBytes(x, qkv * g.hidden) + dropoutBytes(x, trainedCount(x, [roles.o]) * outd);
  if (o.attention === 'eager') {
    // q·kᵀ saves q and k; softmax in fp32 saves its output; the cast copy (or dropout output) feeds p·v
    // (HF eager_attention_forward; Korthikanti et al. 2022 §4.1 count 5as for the fp16 version).
    const kvLen = g.slidingWindow ? Math.min(g.slidingWindow, x.seq) : x.seq;
    const probs = a * kvLen;
    b += c * (qd + kvHeads * g.headDim) + c * kvHeads * g.vHeadDim;
    b += 4 * probs + (c < 4 ? c * probs : 0);
    if (g.dropout) b += probs * (1 + c) - (c < 4 ? c * probs : 0);
    b += x.saves(roles.o) ? c * outd : 0; // transpose().contiguous() copy saved by o_proj
  } else {
    // SDPA / FlashAttention save q, k, v, the output and fp32 logsumexp; no s² terms (FlashAttention README).
    b += c * (qd + kvd) + c * outd + 4 * a;
    if (fw.attnOutputCopy && x.saves(roles.o)) b += c * outd;
    // A value viewed out of one fused qkv output keeps its q and k parts alive too (frameworks.ts fusedQkvView).
    if (fw.fusedQkvView && (g.kvHeads === g.heads || g.kvHeads === 1))
      b += c * (qd + g.kvHeads * g.headDim);
  }
  // The residual dropout mask (1 byte) is not tensor-parallel; sequence parallelism shards it.
  return b / x.tp + (g.dropout ? g.hidden / x.sp : 0);
}

/**
 * Saved bytes per token of a Gated DeltaNet mixer under the chunked kernel: the in-projection's input (when
 * trained), the causal conv1d's input and its SiLU output (q, k, v: conv channels each), the output gate z,
 * fp32 decay and beta per head, the chunk-local fp32 matrix A (chunk entries per head per token) that
 * ChunkGatedDeltaRuleFunction saves with q, k, v, g, beta (fla-org/flash-linear-attention
 * fla/ops/gated_delta_rule/chunk.py); the per-chunk states are recomputed in backward, so nothing grows with
 * the context beyond the tokens themselves (Yang et al. 2024, Gated Delta Networks, §3.3 chunkwise form).
 * The gated norm saves its input and out_proj its output. A Mamba2 mixer saves the same tensors (x, B, C in
 * place of q, k, v; d_state as the key width, head_dim as the value width) without the chunk matrix A.
 */
function recurrentBytes(g: LayerGroup, r: RecurrentState, x: ActCtx): number {
  const { c } = x;
  const value = r.heads * r.valueDim;
  let b = x.saves('other') ? c * g.hidden : 0;
  b += 2 * c * r.convChannels + c * value; // conv input, q/k/v after conv + SiLU, z
  // g, beta (Mamba2: dt and dA_cumsum); A only for Gated DeltaNet: Mamba2's MambaChunkScanCombinedFn saves
  // out, x, dt, dA_cumsum, B, C, z and recomputes its chunk matrices and states in backward
  // (state-spaces/mamba mamba_ssm/ops/triton/ssd_combined.py; Dao & Gu 2024, arXiv 2405.21060 §6).
  b += 4 * 2 * r.heads + (r.kind === 'gated-deltanet' ? 4 * r.heads * r.chunk : 0);
  b += c * value + (x.saves('other') ? c * value : 0); // kernel output (norm input), normed output
  return b / x.tp;
}

/**
 * Unsloth's tiled MLP (unsloth_zoo tiled_mlp.py @ce232d6c, TiledMLP): the forward runs each tile under
 * no_grad and saves only the MLP's input (the norm's output), so nothing ffn-wide is kept per token; the
 * backward recomputes one tile at a time with grad and runs its backward at once.
 */
const tiled = (x: ActCtx): boolean => x.o.tiledMlp === true;

/**
 * Flattened tokens in the largest tile of the tiled MLP's default "arctic" split (unsloth_zoo tiled_mlp.py
 * @ce232d6c, tiled_forward_arctic_size and TiledMLP.forward): max(1, floor(seq / hidden)) tiles of
 * min(hidden, batch × seq) tokens, and what is left of batch × seq as one more tile.
 */
export function mlpTileTokens(hidden: number, batch: number, seq: number): number {
  const n = batch * seq;
  const chunk = Math.min(Math.max(1, hidden), n);
  const shards = Math.max(1, Math.floor(seq / Math.max(1, hidden)));
  return Math.max(chunk, n - chunk * shards);
}

/**
 * Bytes of one tile of the tiled MLP in backward: what the recomputed tile saves (the MLP's own saved
 * tensors, LoRA_MLP's X, e, g on Unsloth) and its ffn-wide gradients, for the tile's tokens only; 0 untiled.
 */
export function mlpTileBytes(g: LayerGroup, x: ActCtx, tileTokens: number): number {
  if (!tiled(x)) return 0;
  return (mlpBytes(g, x) + ffnGradBytes(g, x)) * tileTokens;
}

/** Saved bytes per token of the MLP block (excluding its input norm). */
function mlpBytes(g: LayerGroup, x: ActCtx): number {
  const { c, fw } = x;
  const I = g.ffn * g.topK;
  const downTrained = x.saves('down');
  let b: number;
  if (g.gated) {
    // act(gate) saves gate_out; act_out * up_out saves both; down saves the product if trained (unless one
    // LoRA MLP function recomputes it in backward: frameworks.ts loraMlpInPlace).
    b = fw.fusedSwiglu || x.fused ? 2 * c * I : 3 * c * I;
    if (downTrained && !loraMlpInPlace(g, x)) b += c * I;
  } else {
    b = c * I + (downTrained ? c * I : 0); // activation saves fc1 output; fc2 saves the activation output
  }
  b += dropoutBytes(x, trainedCount(x, MLP_IN_ROLES) * g.hidden + trainedCount(x, ['down']) * I);
  if (g.experts > 1) {
    // Router softmax in fp32 (E per token) and per-expert gathered inputs and weighted outputs (HF Mixtral).
    b += 8 * g.experts + g.topK * 2 * c * g.hidden;
  }
  return b / x.tp + (g.dropout ? g.hidden / x.sp : 0);
}

/** Saved bytes per token of one layer with no checkpointing. */
export function layerBytes(g: LayerGroup, x: ActCtx): number {
  const attnIn = ATTN_ROLES.some(x.saves);
  // TiledMLP.forward saves its input x (the norm's output) whatever the MLP's linears save.
  const mlpIn = MLP_IN_ROLES.some(x.saves) || tiled(x);
  let b = 0;
  if (g.parallelResidual && g.normsPerLayer === 1) {
    b += normBytes(g, x, attnIn || mlpIn);
  } else {
    b += normBytes(g, x, attnIn) + normBytes(g, x, mlpIn);
    for (let i = 2; i < g.normsPerLayer; i++) b += normBytes(g, x, false); // Gemma-2 post-norms
  }
  b += g.recurrent
    ? recurrentBytes(g, g.recurrent, x)
    : attentionBytes(g, x, { o: 'o', qkv: ['q', 'k', 'v'] });
  if (g.crossAttention)
    b += attentionBytes(g, x, { o: 'cross_o', qkv: ['cross_q', 'cross_k', 'cross_v'] });
  if (!tiled(x)) b += mlpBytes(g, x);
  return b;
}

/**
 * Selective (op-level) checkpointing: keep the layer input, the attention kernel's outputs and every other
 * matmul output; recompute norms and activations (torchtitan activation_checkpoint.py _save_list, "save
 * every other mm"; Korthikanti et al. §5 recomputes only the attention core).
 */
export function selectiveLayerBytes(g: LayerGroup, x: ActCtx): number {
  const { c } = x;
  const qd = g.heads * g.headDim;
  const kvd = g.kvHeads * (g.headDim + g.vHeadDim);
  const mm = c * (qd + kvd + g.hidden + 2 * g.ffn * g.topK * (g.gated ? 1 : 0.5) + g.hidden);
  const attn = c * g.heads * g.vHeadDim + 4 * g.heads;
  return (c * g.hidden) / x.sp + (mm / 2 + attn) / x.tp;
}

/** Gradient working set while one layer runs backward: residual grad + MLP grads, per token. */
export function backwardWorkingBytes(g: LayerGroup, x: ActCtx): number {
  // Tiled: the ffn-wide gradients are per tile (mlpTileBytes); TiledMLP.backward allocates the input's
  // gradient whole (torch.zeros_like(x)) and fills it tile by tile.
  if (tiled(x)) return (x.c * g.hidden * 3) / x.sp;
  return (x.c * g.hidden * 2) / x.sp + ffnGradBytes(g, x);
}

/** The MLP's ffn-wide gradients per token in its backward. */
function ffnGradBytes(g: LayerGroup, x: ActCtx): number {
  // One LoRA MLP function writing its SwiGLU gradients in place holds one ffn-wide gradient (DW).
  const ffnGrads = loraMlpInPlace(g, x) ? 1 : 3;
  return (x.c * ffnGrads * g.ffn * g.topK) / x.tp;
}

/** The layer's gated MLP runs as one in-place LoRA function (LoRA on gate, up and down, base frozen). */
function loraMlpInPlace(g: LayerGroup, x: ActCtx): boolean {
  return (
    x.fw.loraMlpInPlace === true &&
    g.gated &&
    g.experts <= 1 &&
    !x.t.full &&
    ['gate', 'up', 'down'].every((r) => x.t.roles.has(r as LinearRole))
  );
}
