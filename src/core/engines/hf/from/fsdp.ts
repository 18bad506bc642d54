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

/**
 * The config's FSDP generation: `fsdp_version` in the block (or `version`, axolotl's top-level key as `given`).
 * Absent it is FSDP1: accelerate's FullyShardedDataParallelPlugin defaults fsdp_version to 1 (accelerate v1.14.0
 * src/accelerate/utils/dataclasses.py, https://huggingface.co/docs/accelerate/package_reference/fsdp), as
 * transformers' TrainingArguments.fsdp_config does ("fsdp_version (int, optional, defaults to 1)").
 */
function fsdpVersionOf(
  config: Record<string, unknown> | undefined,
  given: unknown,
  field: string,
): 1 | 2 {
  const v = given ?? (isRecord(config) ? fsdpValue(config, 'version') : undefined);
  if (v === undefined || v === null) return 1;
  const s = String(v).trim();
  if (s !== '1' && s !== '2') throw new FromError(`${field}_config.fsdp_version`, v, '1 or 2');
  return s === '1' ? 1 : 2;
}

/**
 * Flags for an FSDP setup; `options` is the Trainer's `fsdp` word list (may be empty), `config` its block,
 * `version` a top-level fsdp_version beside the block (axolotl's).
 */
export function mapFsdp(
  options: readonly string[],
  config: Record<string, unknown> | undefined,
  field: string,
  version?: unknown,
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
  // FSDP CPUOffload(offload_params=True) needs parameter sharding: it is ZeRO-3 with parameter offload.
  const zero = offload ? 3 : (stage ?? 3);
  flags.zero = zero;
  if (offload) flags.offload = 'optimizer+params';
  if (zero >= 2) flags['fsdp-version'] = fsdpVersionOf(config, version, field);
  return flags;
}
