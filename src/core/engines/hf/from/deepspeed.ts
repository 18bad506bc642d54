/**
 * DeepSpeed config JSON → contract flags: ZeRO stage, offload, precision, micro-batch, accumulation.
 * Keys: https://www.deepspeed.ai/docs/config-json/
 */
import {
  type DeepSpeedMapping,
  FieldReader,
  FromError,
  type FromFlags,
  isRecord,
} from '../../../from/common.js';

export const DEEPSPEED_MEMORY_KEYS = [
  'zero_optimization',
  'bf16',
  'fp16',
  'train_micro_batch_size_per_gpu',
  'gradient_accumulation_steps',
  'optimizer',
  'activation_checkpointing',
] as const;

// Top-level keys that do not change per-GPU memory (https://www.deepspeed.ai/docs/config-json/).
const DEEPSPEED_OTHER = new Set([
  'train_batch_size',
  'gradient_clipping',
  'steps_per_print',
  'wall_clock_breakdown',
  'zero_allow_untested_optimizer',
  'zero_force_ds_cpu_optimizer',
  'scheduler',
  'prescale_gradients',
  'gradient_predivide_factor',
  'communication_data_type',
  'flops_profiler',
  'tensorboard',
  'wandb',
  'csv_monitor',
  'comms_logger',
  'dump_state',
  'memory_breakdown',
  'checkpoint',
  'data_types',
  'amp',
  'sparse_gradients',
]);

export type { DeepSpeedMapping };

const offloadTarget = (v: unknown): boolean => {
  if (!isRecord(v)) return false;
  const device = v.device;
  return device === 'cpu' || device === 'nvme';
};

/** What of a zero_optimization block the time does not follow. */
function timeWarnings(zero: Record<string, unknown>, stage: number): string[] {
  const out: string[] = [];
  // DeepSpeed v0.16.5 stage_1_and_2.py average_tensor / stage3.py reduce_and_partition_stream: without
  // overlap_comm the gradient reduces run on the compute stream, waited on there (time/train-step.ts serialComm).
  if (zero.overlap_comm === false && stage >= 2)
    out.push(
      'zero_optimization.overlap_comm: false reduces each gradient bucket in series with backward; the time assumes the reduces overlap it',
    );
  // Left out, DeepSpeed sets overlap_comm to `stage == 3` (runtime/zero/config.py overlap_comm_valid, v0.9 to v0.19.8):
  // a ZeRO-2 config without the key reduces in series as one that sets it false.
  if (zero.overlap_comm === undefined && stage === 2)
    out.push(
      "zero_optimization.overlap_comm unset is false below stage 3 (DeepSpeed's default), so each gradient bucket reduces in series with backward; the time assumes the reduces overlap it",
    );
  // transformers' Trainer fills an 'auto' reduce_bucket_size with the hidden size squared (integrations/deepspeed.py
  // trainer_config_finalize): ZeRO-3 then issues one reduce-scatter per bucket of that size (time/zero-hooks.ts).
  if (zero.reduce_bucket_size === 'auto' && stage === 3)
    out.push(
      "zero_optimization.reduce_bucket_size: 'auto' is the hidden size squared, a reduce-scatter per bucket; the time assumes DeepSpeed's 5e8",
    );
  return out;
}

/** Maps one DeepSpeed config; `where` prefixes field names in messages (the JSON file). */
export function mapDeepSpeed(doc: Record<string, unknown>): DeepSpeedMapping {
  const r = new FieldReader(doc);
  const flags: FromFlags = { framework: 'deepspeed' };
  const warnings: string[] = [];
  const zero = r.record('zero_optimization');
  if (zero) {
    const z = new FieldReader(zero, 'zero_optimization.');
    const stage = z.int('stage', 0);
    if (stage !== undefined) {
      if (stage > 3) throw new FromError('zero_optimization.stage', stage, '0, 1, 2 or 3');
      flags.zero = stage;
    }
    const optOff = offloadTarget(z.raw('offload_optimizer'));
    const paramOff = offloadTarget(z.raw('offload_param'));
    // offload_param is ZeRO-3 only; DeepSpeed offloads the optimizer with it (ZeRO-Infinity).
    if (paramOff) flags.offload = 'optimizer+params';
    else if (optOff) flags.offload = 'optimizer';
    const nvme = [zero.offload_optimizer, zero.offload_param].some(
      (v) => isRecord(v) && v.device === 'nvme',
    );
    if (nvme)
      warnings.push(
        'zero_optimization: NVMe offload estimated as CPU offload (GPU memory is the same)',
      );
    warnings.push(...timeWarnings(zero, stage ?? 0));
  } else flags.zero = 0;
  const bf16 = r.record('bf16');
  const fp16 = r.record('fp16');
  const on = (v: Record<string, unknown> | undefined) =>
    v?.enabled === true || v?.enabled === 'true';
  const auto = (v: Record<string, unknown> | undefined) => v?.enabled === 'auto';
  if (on(bf16)) flags.compute = 'bf16';
  else if (on(fp16)) flags.compute = 'fp16';
  const precisionAuto = !on(bf16) && !on(fp16) && (auto(bf16) || auto(fp16));
  if (!on(bf16) && !on(fp16) && !precisionAuto) flags.compute = 'fp32';
  const micro = r.intOrAuto('train_micro_batch_size_per_gpu');
  if (micro !== undefined) flags.batch = micro;
  const accum = r.intOrAuto('gradient_accumulation_steps');
  if (accum !== undefined) flags['grad-accum'] = accum;
  // train_batch_size = micro-batch x accumulation x GPUs, which DeepSpeed asserts at start-up
  // (https://www.deepspeed.ai/docs/config-json/#batch-size-related-parameters): the world size.
  const total = r.intOrAuto('train_batch_size');
  if (
    total !== undefined &&
    micro !== undefined &&
    accum !== undefined &&
    total % (micro * accum) === 0
  )
    flags.gpus = total / (micro * accum);
  const optimizer = r.record('optimizer');
  if (optimizer) {
    const type = typeof optimizer.type === 'string' ? optimizer.type.toLowerCase() : '';
    // DeepSpeed optimizer types: https://www.deepspeed.ai/docs/config-json/#optimizer-parameters
    if (['adam', 'adamw', 'cpuadam', 'fusedadam'].includes(type)) flags.optimizer = 'adamw';
    else if (type === 'lion') flags.optimizer = 'lion';
    else if (type === 'onebitadam' || type === 'zerooneadam' || type === 'onebitlamb')
      warnings.push(
        `optimizer.type: ${String(optimizer.type)} estimated as AdamW (same fp32 states plus compression buffers)`,
      );
    else if (type !== '')
      warnings.push(
        `optimizer.type: '${String(optimizer.type)}' is not modelled; estimated as AdamW`,
      );
  }
  const act = r.record('activation_checkpointing');
  if (act && (act.cpu_checkpointing === true || act.partition_activations === true))
    warnings.push(
      'activation_checkpointing: partition_activations/cpu_checkpointing apply to Megatron-style models only; not modelled',
    );
  const rest = r.unused();
  return {
    flags,
    warnings,
    ignored: rest.filter((k) => DEEPSPEED_OTHER.has(k)),
    unknown: rest.filter((k) => !DEEPSPEED_OTHER.has(k)),
    precisionAuto,
  };
}
