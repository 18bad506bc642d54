/**
 * Accelerate config YAML (as `accelerate config` writes it) → contract flags: processes, machines,
 * mixed precision, FSDP or DeepSpeed plugin settings.
 * Fields: https://huggingface.co/docs/accelerate/package_reference/cli#accelerate-config ,
 * https://huggingface.co/docs/accelerate/usage_guides/fsdp , https://huggingface.co/docs/accelerate/usage_guides/deepspeed
 */
import { FieldReader, FromError, type FromFlags, type FromMapping } from '../../../from/common.js';
import { mapFsdp } from './fsdp.js';

const MEMORY_KEYS = [
  'distributed_type',
  'num_processes',
  'num_machines',
  'mixed_precision',
  'fsdp_config',
  'deepspeed_config',
  'dynamo_config',
] as const;

const OTHER_KEYS = new Set([
  'compute_environment',
  'debug',
  'downcast_bf16',
  'gpu_ids',
  'machine_rank',
  'main_process_ip',
  'main_process_port',
  'main_training_function',
  'rdzv_backend',
  'same_network',
  'tpu_env',
  'tpu_use_cluster',
  'tpu_use_sudo',
  'use_cpu',
  'enable_cpu_affinity',
  'ipex_config',
  'mpirun_config',
  'megatron_lm_config',
  'parallelism_config',
]);

const DISTRIBUTED = ['NO', 'MULTI_GPU', 'DEEPSPEED', 'FSDP', 'MULTI_NPU', 'MULTI_XPU', 'MULTI_MLU'];

export function mapAccelerate(doc: Record<string, unknown>): FromMapping {
  const r = new FieldReader(doc);
  const flags: FromFlags = {};
  const warnings: string[] = [];
  const type = (r.str('distributed_type') ?? 'NO').toUpperCase();
  if (type === 'MEGATRON_LM')
    warnings.push(
      'distributed_type: MEGATRON_LM: tensor/pipeline degrees are not read; give --tp/--pp',
    );
  else if (!DISTRIBUTED.includes(type) && type !== 'XLA')
    throw new FromError('distributed_type', type, `${DISTRIBUTED.join(', ')} or MEGATRON_LM`);
  const processes = r.int('num_processes');
  const machines = r.int('num_machines') ?? 1;
  if (processes !== undefined && type !== 'NO') flags.gpus = processes;
  if (machines > 1 && processes !== undefined)
    flags['gpus-per-node'] = Math.max(1, Math.ceil(processes / machines));
  const mp = r.str('mixed_precision');
  if (mp === 'bf16' || mp === 'fp16') flags.compute = mp;
  // fp8: torchao's float8 linears (AO backend) or Transformer Engine: FP8 matmuls, bf16 elsewhere.
  else if (mp === 'fp8') {
    flags.compute = 'fp8';
    warnings.push(
      'mixed_precision: fp8 trains the linears in FP8 (full fine-tuning; beside an adapter estimated in bf16)',
    );
  } else if (mp === 'no') flags.compute = 'fp32';
  else if (mp !== undefined) throw new FromError('mixed_precision', mp, 'no, fp16, bf16 or fp8');
  let deepspeedRef: string | null = null;
  const fsdpConfig = r.record('fsdp_config');
  if (type === 'FSDP') {
    Object.assign(flags, mapFsdp([], fsdpConfig ?? {}, 'fsdp'));
    // FSDP mixed precision keeps fp32 sharded parameters (MixedPrecision param_dtype gathers 16-bit units).
    flags.weights = 'fp32';
  }
  const ds = r.record('deepspeed_config');
  if (type === 'DEEPSPEED') {
    flags.framework = 'deepspeed';
    const d = new FieldReader(ds ?? {}, 'deepspeed_config.');
    const file = d.str('deepspeed_config_file');
    if (file) deepspeedRef = file;
    else {
      const stage = d.int('zero_stage', 0);
      if (stage !== undefined) {
        if (stage > 3) throw new FromError('deepspeed_config.zero_stage', stage, '0, 1, 2 or 3');
        flags.zero = stage;
      }
      const optDev = d.str('offload_optimizer_device');
      const paramDev = d.str('offload_param_device');
      if (paramDev === 'cpu' || paramDev === 'nvme') flags.offload = 'optimizer+params';
      else if (optDev === 'cpu' || optDev === 'nvme') flags.offload = 'optimizer';
      const accum = d.int('gradient_accumulation_steps');
      if (accum !== undefined) flags['grad-accum'] = accum;
    }
  }
  const dynamo = r.record('dynamo_config');
  const backend = dynamo?.dynamo_backend;
  if (typeof backend === 'string' && backend.toUpperCase() !== 'NO') flags.compile = true;
  const rest = r.unused();
  return {
    format: 'accelerate',
    model: null,
    flags,
    warnings,
    ignored: rest.filter((k) => OTHER_KEYS.has(k)),
    unknown: rest.filter((k) => !OTHER_KEYS.has(k)),
    deepspeedRef,
    deepspeedInline: null,
    memoryKeys: MEMORY_KEYS,
  };
}
