/** DeepSpeed config JSON for the plan's ZeRO stage, offload, precision and batch. */
import { MAX_GRAD_NORM, globalBatch, learningRate } from './common.js';
import { deepspeedOwnsOptimizer, distributionOf } from './distribution.js';
import type { EngineOutput, LaunchInput } from './types.js';

export const DEEPSPEED_FILE = 'deepspeed.json';

// Adam defaults match TrainingArguments (adam_beta1 0.9, adam_beta2 0.999, adam_epsilon 1e-8, weight_decay 0).
const ADAM_BETAS = [0.9, 0.999];
const ADAM_EPS = 1e-8;
// Lion paper (Chen et al. 2023, §5) recommends betas (0.9, 0.99).
const LION_BETAS = [0.9, 0.99];
const SGD_MOMENTUM = 0.9;

function optimizerBlock(x: LaunchInput): Record<string, unknown> | null {
  const o = x.options;
  const lr = learningRate(o);
  switch (o.optimizer) {
    case 'adamw':
      return { type: 'AdamW', params: { lr, betas: ADAM_BETAS, eps: ADAM_EPS, weight_decay: 0.0 } };
    case 'lion':
      return { type: 'Lion', params: { lr, betas: LION_BETAS, weight_decay: 0.0 } };
    case 'sgd':
      return { type: 'SGD', params: { lr, momentum: 0.0 } };
    case 'sgd-momentum':
      return { type: 'SGD', params: { lr, momentum: SGD_MOMENTUM } };
    default:
      return null;
  }
}

// Keys: https://www.deepspeed.ai/docs/config-json/
export function emitDeepSpeed(x: LaunchInput): EngineOutput {
  const engine = 'DeepSpeed';
  const o = x.options;
  const d = distributionOf(x);
  if (d.kind !== 'deepspeed')
    return {
      engine,
      ok: false,
      reason:
        o.zero === 0
          ? 'the plan uses no ZeRO sharding (--zero 0): no DeepSpeed config needed'
          : 'the plan shards with FSDP',
    };
  if (d.blocker) return { engine, ok: false, reason: d.blocker };
  const zero: Record<string, unknown> = {
    stage: o.zero,
    overlap_comm: true,
    contiguous_gradients: true,
  };
  if (o.offload !== 'none') zero.offload_optimizer = { device: 'cpu', pin_memory: true };
  if (o.offload === 'optimizer+params') zero.offload_param = { device: 'cpu', pin_memory: true };
  if (o.zero === 3) zero.stage3_gather_16bit_weights_on_model_save = true;
  const config: Record<string, unknown> = {
    train_batch_size: globalBatch(x),
    train_micro_batch_size_per_gpu: o.batch,
    gradient_accumulation_steps: x.gradAccum,
    gradient_clipping: MAX_GRAD_NORM,
    bf16: { enabled: o.compute === 'bf16' },
    // Dynamic loss scaling (loss_scale 0) as in the DeepSpeed fp16 docs.
    fp16:
      o.compute === 'fp16'
        ? {
            enabled: true,
            loss_scale: 0,
            initial_scale_power: 16,
            loss_scale_window: 1000,
            hysteresis: 2,
            min_loss_scale: 1,
          }
        : { enabled: false },
    zero_optimization: zero,
    steps_per_print: 100,
    wall_clock_breakdown: false,
  };
  const opt = optimizerBlock(x);
  if (opt && deepspeedOwnsOptimizer(o)) config.optimizer = opt;
  // Optimizers DeepSpeed does not build come from the Trainer (optim=...); DeepSpeed must be told to accept them.
  else config.zero_allow_untested_optimizer = true;
  const notes = [...d.notes];
  if (!config.optimizer)
    notes.push(
      `the optimizer (${o.optimizer}) is built by the Trainer from hf-args.json and wrapped by DeepSpeed`,
    );
  if (o.optimizerStates === 'bf16')
    notes.push(
      'DeepSpeed keeps fp32 optimizer states; bf16 states are not a config switch (uses more memory than planned)',
    );
  return {
    engine,
    ok: true,
    files: [{ path: DEEPSPEED_FILE, content: `${JSON.stringify(config, null, 2)}\n` }],
    notes,
  };
}
