/** Optimizer step traffic per trainable parameter: the optimizer's fused row, or torch AdamW's foreach ops. */
import { OPTIMIZER_PROFILES } from '../engines/optimizers.js';
import { FRAMEWORKS } from '../memory/frameworks.js';
import { stateValueBytes } from '../memory/optimizer-states.js';
import { steppedElementBytes, trainableElementBytes } from '../memory/trainable-width.js';
import { type EstimateOptions } from '../../schema/estimate.js';
import { type TimeOptions } from '../../schema/time.js';
import type { ModelFacts } from './model-facts.js';
import type { FrameworkProfile } from '../memory/framework-profile.js';

// DeepSpeedCPUAdam / torch fused CPU AdamW stream ~28 B per parameter through host memory; a server node
// sustains ~100 GB/s for it (ZeRO-Offload, arXiv:2101.06840 §5: CPU-Adam 5-7x over PyTorch, ~1 s per
// billion-scale step on a DGX-2 node), shared by the node's ranks: assumed 100 GB/s per node.
export const HOST_ADAM_BYTES_PER_S = 100e9;

/**
 * The node's rate for an offloaded optimizer step's bytes: the engine's measured whole-step rate (or CPU-Adam's), per
 * physical core of the node it was measured on times the run's node's cores where both are known
 * (FrameworkProfile.hostStepCores, TimeOptions.hostCores), at the share an unbound host reaches where that rate was
 * measured with the ranks bound to their own cores (FrameworkProfile.hostStepUnboundShare) unless the run binds them too
 * (TimeOptions.hostCoresBound).
 */
export const hostStepRate = (
  fw: FrameworkProfile,
  t: Pick<TimeOptions, 'hostCores' | 'hostCoresBound'> = {},
): number => {
  const cores =
    t.hostCores !== undefined && fw.hostStepCores !== undefined
      ? t.hostCores / fw.hostStepCores
      : 1;
  const unbound = t.hostCoresBound === true ? 1 : (fw.hostStepUnboundShare ?? 1);
  return (fw.hostStepBytesPerS ?? HOST_ADAM_BYTES_PER_S) * cores * unbound;
};

// torch.optim.AdamW with foreach and fused unset steps foreach on CUDA ("we default to foreach and pass False to
// use_fused"), and its foreach step (_multi_tensor_adamw, capturable False; pytorch/pytorch@002d2f0bb40cf08beb74bce80f52ce4f2eda46a0
// torch/optim/adamw.py) runs one tensor-wide kernel per op, each reading its operands and writing its result in the
// parameter's width (p: params and grads) or the states' (s: exp_avg, exp_avg_sq and the sqrt temporary, made like
// them):
//   _foreach_mul_(params, 1 - lr * weight_decay)              2p (weight_decay 0.01 by default)
//   _foreach_lerp_(exp_avgs, grads, 1 - beta1)                p + 2s
//   _foreach_mul_(exp_avg_sqs, beta2)                         2s
//   _foreach_addcmul_(exp_avg_sqs, grads, grads, 1 - beta2)   p + 2s (one gradient read)
//   exp_avg_sq_sqrt = _foreach_sqrt(exp_avg_sqs)              2s
//   _foreach_div_(exp_avg_sq_sqrt, bias_correction2_sqrt)     2s
//   _foreach_add_(exp_avg_sq_sqrt, eps)                       2s
//   _foreach_addcdiv_(params, exp_avgs, exp_avg_sq_sqrt, ...) 2p + 2s
// 6p + 14s a parameter, against the fused kernel's one read of p, g, m, v and one write of p, m, v.
const FOREACH_ADAMW_PARAM_PASSES = 6;
const FOREACH_ADAMW_STATE_PASSES = 14;
// The Trainer's `optim="adamw_hf"` (its default before transformers 4.x's adamw_torch), transformers.AdamW, steps each
// parameter tensor in a Python loop of in-place ops (AdamW.step,
// https://github.com/huggingface/transformers/blob/v4.18.0/src/transformers/optimization.py), weight_decay 0.0 (the
// TrainingArguments default) skipping its last `add_`:
//   exp_avg.mul_(beta1)                          2s
//   .add_(grad, alpha=1 - beta1)                 p + 2s
//   exp_avg_sq.mul_(beta2)                       2s
//   .addcmul_(grad, grad, value=1 - beta2)       p + 2s (one gradient read)
//   denom = exp_avg_sq.sqrt()                    2s
//   .add_(eps)                                   2s
//   p.data.addcdiv_(exp_avg, denom, -step_size)  2p + 2s
// 4p + 14s a parameter (72 B in fp32), seven kernels a parameter tensor.
const HF_ADAMW_PARAM_PASSES = 4;
const HF_ADAMW_STATE_PASSES = 14;
// Seven tensor ops a parameter inside `for p in group["params"]` (AdamW.step,
// https://github.com/huggingface/transformers/blob/v4.18.0/src/transformers/optimization.py).
export const HF_ADAMW_OPS_PER_TENSOR = 7;

/**
 * Bytes the optimizer step moves per trainable parameter on the GPU: the optimizer's row (engines/optimizers.ts
 * stepTraffic, a fused kernel's passes: the launchers write AdamW fused, e.g. TrainingArguments adamw_torch_fused), or
 * the foreach ops' where the run stepped torch.optim.AdamW with its defaults (TimeOptions.adamForeach).
 */
export function optimizerStepBytes(o: EstimateOptions, t: TimeOptions): number {
  const fw = FRAMEWORKS[o.framework];
  // The states' and the stepped parameter's widths as memory counts them, with the build's (trainable-width.ts).
  const s = stateValueBytes(o, fw, o.method === 'full', t);
  if (o.optimizer === 'adamw' && t.adamHfLoop === true)
    return HF_ADAMW_PARAM_PASSES * steppedElementBytes(o, fw, t) + HF_ADAMW_STATE_PASSES * s;
  if (o.optimizer !== 'adamw' || t.adamForeach !== true)
    return OPTIMIZER_PROFILES[o.optimizer].stepTraffic(s);
  return (
    FOREACH_ADAMW_PARAM_PASSES * steppedElementBytes(o, fw, t) + FOREACH_ADAMW_STATE_PASSES * s
  );
}

/**
 * Bytes per trainable parameter the trainer's gradient-norm clip moves on the GPU each optimizer step
 * (FrameworkProfile.gradClip): the norm's read of each gradient, in the width the optimizer steps it or the 16-bit
 * gradient's own, and any copy it makes, then the scaling's read and write in the stepped width. Nothing without an
 * optimizer, or where the measured run's loop clipped nothing (TimeOptions.noGradClip).
 */
export function gradClipBytes(o: EstimateOptions, t: TimeOptions): number {
  const fw = FRAMEWORKS[o.framework];
  const clip = fw.gradClip;
  if (o.optimizer === 'none' || clip === undefined || t.noGradClip === true) return 0;
  const stepped = steppedElementBytes(o, fw, t);
  const norm = clip.normRead === 'grad' ? trainableElementBytes(o, fw, t) : stepped;
  return norm + clip.normCopyBytes + clip.scalePasses * stepped;
}

/**
 * Scalar all-reduces of the gradient norm a step (FrameworkProfile.gradClip.normAllReduce): a DTensor norm's
 * full_tensor() redistributes its partial sum to replicated one mesh dimension at a time, so one all-reduce per
 * dimension the gradients are sharded over (FSDP's data-parallel shard, TP), and torchtitan's clip_grad_norm_ one more
 * over the pipeline stages (pytorch/torchtitan@b5bcd76c torchtitan/distributed/utils.py clip_grad_norm_). 0 where
 * nothing is clipped on the GPU.
 */
export function gradClipAllReduces(
  o: EstimateOptions,
  t: TimeOptions,
  g: { zeroRanks: number; tp: number; pp: number },
): number {
  const clip = FRAMEWORKS[o.framework].gradClip;
  if (o.optimizer === 'none' || clip?.normAllReduce !== true || t.noGradClip === true) return 0;
  if (o.offload !== 'none') return 0;
  const sharded = o.zero >= 1 && g.zeroRanks > 1 ? 1 : 0;
  return sharded + (g.tp > 1 ? 1 : 0) + (g.pp > 1 ? 1 : 0);
}

/**
 * The model's parameter tensors, each a turn of a per-tensor optimizer loop: every layer's linears (a weight, and a
 * bias where it has one, per copy) and norms (a weight, and a bias for LayerNorm), plus the embedding, the final
 * norm and the head (3, taken whole: BERT's embeddings, pooler and classifier hold 9).
 */
export function parameterTensors(m: ModelFacts): number {
  let n = 3;
  for (const g of m.arch.groups) {
    let linears = 0;
    for (const l of g.linears) linears += l.copies * (l.bias ? 2 : 1);
    n += g.count * (linears + g.normsPerLayer * (g.norm === 'layer' ? 2 : 1));
  }
  return n;
}

/**
 * Eager ops of the optimizer's own Python loop a step (transformers.AdamW: seven a trainable tensor,
 * TimeOptions.adamHfLoop); 0 for a fused or foreach step. Full fine-tuning only: an adapter run's tensors are not
 * counted here.
 */
export function optimizerLoopOps(m: ModelFacts, o: EstimateOptions, t: TimeOptions): number {
  if (o.optimizer !== 'adamw' || t.adamHfLoop !== true || o.method !== 'full') return 0;
  return parameterTensors(m) * HF_ADAMW_OPS_PER_TENSOR;
}
