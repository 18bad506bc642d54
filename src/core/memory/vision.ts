/**
 * The vision tower's own activations: what its blocks keep for backward over every patch of the micro-batch's
 * images (before merging or pooling), and the working set of one block's forward. Pure.
 */
import type { LayerGroup } from '../model/arch.js';
import type { TowerRun } from '../model/vision.js';
import { isTrained, type Trainable } from '../model/trainable.js';
import type { EstimateOptions } from '../../schema/estimate.js';
import { FRAMEWORKS } from './frameworks.js';
import {
  backwardWorkingBytes,
  layerBytes,
  selectiveLayerBytes,
  type ActCtx,
} from './activations.js';

/**
 * How the tower takes part in backward:
 * - `trained`: full fine-tuning trains every parameter, the tower's included (HF Trainer / TRL SFTTrainer pass
 *   all parameters with requires_grad to the optimizer; LLaMA-Factory's freeze_vision_tower is its own default);
 * - `adapters`: LoRA adapts linears of the tower (PEFT matches module names in the whole model: 'all-linear'
 *   takes the tower's; Unsloth FastVisionModel.get_peft_model finetune_vision_layers=True by default);
 * - `input-grad`: the tower is frozen but records a graph, because transformers' enable_input_require_grads
 *   (called by PEFT / TRL under gradient checkpointing) hooks the input embeddings of every sub-model, and
 *   this tower's get_input_embeddings is its patch embedding (transformers modeling_utils.py
 *   enable_input_require_grads, huggingface/transformers#41993; SiglipVisionModel / PixtralVisionModel get_input_embeddings);
 * - `frozen`: no parameter of the tower needs a gradient and its input none: autograd saves nothing.
 */
export type TowerMode = 'trained' | 'adapters' | 'input-grad' | 'frozen';

export function towerMode(
  g: LayerGroup,
  o: EstimateOptions,
  t: Trainable,
  inputGradHook: boolean,
): TowerMode {
  if (o.method === 'inference') return 'frozen';
  if (t.full) return 'trained';
  if (g.linears.some((l) => isTrained(t, l.role))) return 'adapters';
  const lora = o.method === 'lora' || o.method === 'qlora';
  if (
    lora &&
    inputGradHook &&
    o.checkpointing !== 'none' &&
    FRAMEWORKS[o.framework].inputRequireGrads === true
  )
    return 'input-grad';
  return 'frozen';
}

/** What each mode means for the report's note. */
export const TOWER_MODE_NOTE: Record<TowerMode, string> = {
  trained: 'trained (full fine-tune): keeps its activations for backward',
  adapters: 'LoRA adapters in the tower: keeps its activations for backward',
  'input-grad':
    "frozen, but enable_input_require_grads hooks its patch embedding under gradient checkpointing: keeps each block's input",
  frozen: 'frozen: forward only, keeps nothing for backward',
};

/** Bytes per GPU of one micro-batch's tower: kept for backward, its backward working set, one block's forward. */
export interface TowerBytes {
  mode: TowerMode;
  /** Saved for backward by every block (per checkpointing), all images of the micro-batch. */
  saved: number;
  /** While the tower runs backward: one recomputed block (checkpointing) and the gradient working set. */
  backward: number;
  /** One block's forward transients (q/k/v, MLP intermediates, fp32 norm copy) over all the patches. */
  forward: number;
}

const FROZEN: Trainable = { full: false, roles: new Set(), embed: false, lmHead: false };
const ALL: Trainable = { full: true, roles: new Set(), embed: false, lmHead: false };

/**
 * The tower's bytes for `batch` samples of `run.images` images each. Attention runs per image (Qwen cu_seqlens,
 * Pixtral's block-diagonal mask), per window (Qwen2.5-VL) or per tile (Llama 4): each span is its own sequence,
 * so flash / SDPA keep no span² term and eager attention keeps span² probabilities per head (activations.ts).
 * The tower is not split by tensor or sequence parallelism (transformers runs it whole on each rank).
 */
export function towerBytes(
  run: TowerRun,
  o: EstimateOptions,
  x: ActCtx,
  mode: TowerMode,
  streamBytes: number,
): TowerBytes {
  const g = run.group;
  const patches = o.batch * run.images * run.patchesPerImage;
  const forward = forwardBytes(run, o, x.c, patches);
  if (mode === 'frozen') return { mode, saved: 0, backward: 0, forward };
  const t = mode === 'trained' ? ALL : mode === 'adapters' ? x.t : FROZEN;
  const saves = mode === 'trained' ? () => true : x.saves;
  let saved = 0;
  let recomputed = 0;
  let bwd = 0;
  for (const s of run.spans) {
    const ctx: ActCtx = { ...x, t, saves, seq: s.span, tp: 1, sp: 1 };
    const full = layerBytes(g, ctx);
    bwd = Math.max(bwd, backwardWorkingBytes(g, ctx));
    switch (o.checkpointing) {
      case 'none':
        saved += s.layers * full * patches;
        break;
      case 'selective':
        saved += s.layers * selectiveLayerBytes(g, ctx) * patches;
        break;
      default:
        // full / offload: each block is a GradientCheckpointingLayer (Qwen2_5_VLVisionBlock,
        // SiglipEncoderLayer...), so gradient_checkpointing_enable keeps only its input and recomputes one
        // block in backward; the input is kept on the GPU here (offloading the tower's inputs is not modelled).
        saved += s.layers * streamBytes * g.hidden * patches;
        recomputed = Math.max(recomputed, full * patches);
    }
  }
  return { mode, saved, backward: recomputed + bwd * patches, forward };
}

/**
 * One block's forward transients over `patches` patches, as the language model's prefill layer is counted
 * (inference.ts kvAndPrefill: fp32 norm copy, q/k/v or the MLP intermediates, whichever is wider), plus the
 * span² scores per head of eager attention for every span.
 */
function forwardBytes(run: TowerRun, o: EstimateOptions, c: number, patches: number): number {
  const g = run.group;
  const qd = g.heads * g.headDim;
  let b =
    patches *
    (4 * g.hidden + c * (2 * g.hidden + Math.max(3 * qd + qd, (g.gated ? 3 : 2) * g.ffn)));
  if (o.attention === 'eager') {
    const widest = Math.max(...run.spans.map((s) => s.span));
    b += patches * g.heads * widest * (4 + c);
  }
  return b;
}
