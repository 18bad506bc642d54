/** How the plan's data parallelism and sharding map onto launchers: single process, DDP, DeepSpeed ZeRO or FSDP. */
import type { EstimateOptions, Optimizer } from '../../../schema/estimate.js';
import { dataParallel, hfStackBlocker, is4bit, shardingOf } from '../../launch/common.js';
import type { LaunchInput } from '../../launch/types.js';
import { shardedQuantLoadOf } from '../../memory/sharded-load.js';
import { HF_MEMORY } from './memory.js';

export type DistKind = 'single' | 'ddp' | 'deepspeed' | 'fsdp';

export interface Distribution {
  kind: DistKind;
  processes: number;
  /** Why the plan cannot run on the HF stack (Trainer/Accelerate/DeepSpeed/axolotl); null when it can. */
  blocker: string | null;
  /** Where the engine config differs slightly from the plan (and errs toward less memory). */
  notes: string[];
}

// DeepSpeed natively builds Adam/AdamW/Lion (and imports other torch.optim classes by name):
// https://www.deepspeed.ai/docs/config-json/#optimizer-parameters
const DS_OWNED: readonly Optimizer[] = ['adamw', 'lion', 'sgd', 'sgd-momentum'];
// ZeRO-Offload steps on the CPU with DeepSpeedCPUAdam / CPUAdagrad / CPULion only:
// https://www.deepspeed.ai/tutorials/zero-offload/
const CPU_STEPPABLE: readonly Optimizer[] = ['adamw', 'lion'];

/** The DeepSpeed config names the optimizer (otherwise the Trainer builds it and DeepSpeed wraps it). */
export const deepspeedOwnsOptimizer = (o: EstimateOptions): boolean =>
  DS_OWNED.includes(o.optimizer);

function deepspeedBlocker(o: EstimateOptions): string | null {
  if (o.optimizer === 'adam-mini')
    return 'Adam-mini is not a DeepSpeed config optimizer: build it in code (adam-mini package) and pass it to deepspeed.initialize';
  if (o.offload !== 'none' && !CPU_STEPPABLE.includes(o.optimizer))
    return `ZeRO-Offload steps the optimizer on the CPU (DeepSpeedCPUAdam/CPULion only); ${o.optimizer} has no CPU implementation`;
  return null;
}

function fsdpBlocker(o: EstimateOptions): string | null {
  if (o.offload === 'optimizer')
    return 'FSDP offloads parameters, gradients and optimizer states together; optimizer-only offload is DeepSpeed ZeRO-Offload (use --sharding deepspeed)';
  if (o.optimizer === 'adam-mini') return 'Adam-mini has no Trainer/Accelerate switch';
  return null;
}

/**
 * Why the plan cannot run on the HF stack (distributionOf's `blocker`), without building the rest: the
 * planner asks for every configuration group and layout shape.
 */
export function distributionBlocker(x: Pick<LaunchInput, 'options'>): string | null {
  const o = x.options;
  const base = hfStackBlocker(o);
  if (base !== null || o.zero === 0) return base;
  return shardingOf(x) === 'fsdp' ? fsdpBlocker(o) : deepspeedBlocker(o);
}

export function distributionOf(x: Pick<LaunchInput, 'options'>): Distribution {
  const o = x.options;
  const processes = dataParallel(o) * o.tp * o.pp;
  const notes: string[] = [];
  const blocker = distributionBlocker(x);
  if (o.zero === 0) return { kind: processes > 1 ? 'ddp' : 'single', processes, blocker, notes };
  if (shardingOf(x) === 'fsdp') {
    if (o.zero === 1)
      notes.push(
        'FSDP has no ZeRO-1: SHARD_GRAD_OP (ZeRO-2) shards gradients too, using less memory than planned',
      );
    return { kind: 'fsdp', processes, blocker, notes };
  }
  return { kind: 'deepspeed', processes, blocker, notes };
}

/**
 * FSDP and DeepSpeed ZeRO-3 flatten 4-bit weights with the other parameters, so bitsandbytes must store
 * them in the compute dtype (bnb_4bit_quant_storage; PEFT docs "FSDP + QLoRA" and "DeepSpeed + QLoRA"):
 * https://huggingface.co/docs/peft/accelerate/fsdp, https://huggingface.co/docs/peft/accelerate/deepspeed
 */
export const flattens4bit = (d: Distribution, o: EstimateOptions): boolean =>
  is4bit(o) && shardsWeights(d, o);

/** FSDP (any stage) and DeepSpeed ZeRO-3 place the weights' shards themselves: no rank loads the whole model. */
export const shardsWeights = (d: Distribution, o: EstimateOptions): boolean =>
  d.kind === 'fsdp' || (d.kind === 'deepspeed' && o.zero === 3);

/**
 * The plan loads its 4-bit base through axolotl's layer-by-layer loader (hf/memory.ts AXOLOTL_SHARDED_QUANT_LOAD,
 * FrameworkProfile.shardedQuantLoad, as the memory model reads it: memory/sharded-load.ts): QLoRA of a dense model
 * with NF4 weights under FSDP FULL_SHARD over more than one rank.
 * axolotl.yaml sets qlora_sharded_model_loading for it; the Trainer's train.py would load the model whole.
 */
export const axolotlShardedLoad = (x: LaunchInput, d: Distribution): boolean =>
  d.kind === 'fsdp' &&
  x.options.method === 'qlora' &&
  shardedQuantLoadOf(HF_MEMORY, x.options, x.arch, dataParallel(x.options)) !== undefined;

/** The note of an emitter that sets bnb_4bit_quant_storage (flattens4bit). */
export const quantStorageNote = (o: EstimateOptions, storage: string): string =>
  `4-bit weights stored as ${storage} (bnb_4bit_quant_storage, the compute dtype): ${o.zero === 3 ? 'ZeRO-3' : 'FSDP'} shards them with the other parameters`;
