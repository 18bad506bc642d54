/**
 * FSDP settings as the Trainer (`fsdp`, `fsdp_config`), axolotl and Accelerate (`fsdp_config`) write them →
 * ZeRO-equivalent stage and offload. FULL_SHARD / HYBRID_SHARD / reshard_after_forward=true shard
 * parameters (ZeRO-3); SHARD_GRAD_OP / reshard_after_forward=false keep them gathered (ZeRO-2);
 * offload_params moves parameters, gradients and the optimizer step to the CPU.
 * Docs: https://huggingface.co/docs/accelerate/usage_guides/fsdp ,
 * https://huggingface.co/docs/transformers/main_classes/trainer#transformers.TrainingArguments.fsdp
 */
import { FromError, type FromFlags, isRecord } from '../../../from/common.js';

const STRATEGY_STAGE: Record<string, 0 | 2 | 3> = {
  full_shard: 3,
  hybrid_shard: 3,
  hybrid_shard_zero2: 2,
  shard_grad_op: 2,
  no_shard: 0,
  // Accelerate's numbered sharding strategies (1 FULL_SHARD, 2 SHARD_GRAD_OP, 3 NO_SHARD, 4 HYBRID_SHARD, 5 _HYBRID_SHARD_ZERO2).
  '1': 3,
  '2': 2,
  '3': 0,
  '4': 3,
  '5': 2,
};

/** The value of `key` or `fsdp_<key>` in an FSDP config block (both spellings are in use). */
export function fsdpValue(config: Record<string, unknown>, key: string): unknown {
  return config[`fsdp_${key}`] ?? config[key];
}

/** Flags for an FSDP setup; `options` is the Trainer's `fsdp` word list (may be empty), `config` its block. */
export function mapFsdp(
  options: readonly string[],
  config: Record<string, unknown> | undefined,
  field: string,
): FromFlags {
  const flags: FromFlags = { framework: 'hf' };
  let stage: 0 | 2 | 3 | undefined;
  let offload = false;
  for (const word of options) {
    const w = word.toLowerCase();
    if (w in STRATEGY_STAGE) stage = STRATEGY_STAGE[w];
    else if (w === 'offload') offload = true;
    else if (w !== 'auto_wrap')
      throw new FromError(
        field,
        word,
        'full_shard, shard_grad_op, hybrid_shard, hybrid_shard_zero2, no_shard, offload, auto_wrap',
      );
  }
  if (isRecord(config)) {
    const strategy = fsdpValue(config, 'sharding_strategy');
    if (strategy !== undefined && strategy !== null) {
      const s = String(strategy).toLowerCase();
      if (!(s in STRATEGY_STAGE))
        throw new FromError(
          `${field}_config.fsdp_sharding_strategy`,
          strategy,
          'FULL_SHARD, SHARD_GRAD_OP, HYBRID_SHARD, HYBRID_SHARD_ZERO2, NO_SHARD or 1-5',
        );
      stage = STRATEGY_STAGE[s];
    }
    const reshard = fsdpValue(config, 'reshard_after_forward');
    if (typeof reshard === 'boolean') stage = reshard ? 3 : 2;
    else if (typeof reshard === 'string' && reshard.toLowerCase() in STRATEGY_STAGE)
      stage = STRATEGY_STAGE[reshard.toLowerCase()];
    const off = fsdpValue(config, 'offload_params');
    if (off === true || off === 'true') offload = true;
    const ac = fsdpValue(config, 'activation_checkpointing');
    if (ac === true || ac === 'true') flags.checkpointing = 'full';
  }
  flags.zero = stage ?? 3;
  // FSDP CPUOffload(offload_params=True) needs parameter sharding: it is ZeRO-3 with parameter offload.
  if (offload) {
    flags.offload = 'optimizer+params';
    flags.zero = 3;
  }
  return flags;
}
