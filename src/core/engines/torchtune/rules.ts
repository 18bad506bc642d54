/** What torchtune 0.6.1's recipes reject, as data (rules.ts); torchtuneBlocker returns the first match. */
import type { Rule, RuleInput } from '../rules.js';
import { tuneOptimizer } from './components.js';
import { tuneModelOf } from './builders.js';
import { TORCHTUNE_ARCH_RULE } from './architectures.js';

const T = 'https://github.com/pytorch/torchtune/blob/v0.6.1/recipes';
const adapter = (x: RuleInput): boolean =>
  x.options.method === 'lora' || x.options.method === 'qlora';

/** The plan's optimizer is written as a bitsandbytes class (not one of torchao's, components.ts tuneOptimizer). */
export function bitsandbytesOptimizer(x: RuleInput): boolean {
  const c = tuneOptimizer(x.options, x.dp)?._component_;
  return typeof c === 'string' && c.startsWith('bitsandbytes.');
}

export const TORCHTUNE_RULES: readonly Rule[] = [
  TORCHTUNE_ARCH_RULE,
  {
    id: 'torchtune-distributed-shards',
    says: 'torchtune distributed recipes always shard the model with FSDP2 (training.shard_model): on more than one GPU the run is ZeRO-2 (fsdp_reshard_after_forward False) or ZeRO-3, never unsharded DDP',
    library: 'torchtune',
    versions: '==0.6.1',
    source: `${T}/full_finetune_distributed.py`,
    effect: 'forbid',
    applies: (x) => x.dp > 1 && x.options.zero < 2,
  },
  {
    id: 'torchtune-cpu-offload-adamw',
    says: "torchao's CPUOffloadOptimizer steps its optimizer_class, a Python class a recipe YAML cannot name (config.instantiate passes strings as strings): from a torchtune config it steps its default, torch.optim.AdamW (fused on the host)",
    library: 'torchao',
    versions: '==0.10.0',
    source:
      'https://github.com/pytorch/ao/blob/v0.10.0/torchao/prototype/low_bit_optim/cpu_offload.py',
    effect: 'forbid',
    applies: (x) => x.options.offload === 'optimizer' && x.options.optimizer !== 'adamw',
  },
  {
    id: 'torchtune-nf4-double-quant',
    says: 'torchtune QLoRA stores NF4Tensor weights, which always quantize their scalers (double quantization); nf4 without it is not a torchtune run',
    library: 'torchao',
    versions: '==0.10.0',
    // to_nf4(block_size=64, scaler_block_size=256): double_quantize_scalers.
    source: 'https://github.com/pytorch/ao/blob/v0.10.0/torchao/dtypes/nf4tensor.py',
    effect: 'forbid',
    applies: (x) => x.options.weights === 'nf4' && !x.options.doubleQuant,
  },
  {
    id: 'torchtune-no-builder',
    says: 'torchtune 0.6.1 ships no model builder vramplan maps for this model (llama2/3/3.1/3.2/3.3, code_llama2, mistral, gemma, gemma2, phi3 are mapped)',
    library: 'torchtune',
    versions: '==0.6.1',
    // The __all__ of torchtune/models/*/__init__.py at the tag.
    source: 'https://github.com/pytorch/torchtune/tree/v0.6.1/torchtune/models',
    effect: 'forbid',
    applies: (x) => x.options.method !== 'inference' && !tuneModelOf(x.arch),
    // What the launcher maps; torchtune builds every family its architecture table lists (qwen2, phi4, ...).
    scope: 'writer',
  },
  {
    id: 'torchtune-qlora-no-builder',
    says: 'torchtune 0.6.1 has no qlora_ builder for this model',
    library: 'torchtune',
    versions: '==0.6.1',
    source: 'https://github.com/pytorch/torchtune/tree/v0.6.1/torchtune/models',
    effect: 'forbid',
    applies: (x) => x.options.method === 'qlora' && tuneModelOf(x.arch)?.qlora === false,
  },
  {
    id: 'torchtune-no-fp16',
    says: 'torchtune recipes raise ValueError for dtype fp16 ("full fp16 training is not supported"); use bf16 or fp32',
    library: 'torchtune',
    versions: '==0.6.1',
    source: `${T}/full_finetune_single_device.py#L124-L127`,
    effect: 'forbid',
    applies: (x) => x.options.method !== 'inference' && x.options.compute === 'fp16',
  },
  {
    id: 'torchtune-bnb-optimizer-fsdp2',
    says: 'bitsandbytes paged optimizers and Lion fail on the FSDP2 (DTensor) parameters of the distributed recipes, and torchao has no paged or Lion class; use torch AdamW, adamw-8bit (torchao AdamW8bit) or one GPU',
    library: 'bitsandbytes',
    versions: '>=0.43.0,<=0.50.1',
    // Also https://github.com/bitsandbytes-foundation/bitsandbytes/issues/1633 (open: illegal memory access with FSDP2).
    source: 'https://github.com/meta-pytorch/torchtune/issues/1856',
    effect: 'forbid',
    applies: (x) => x.options.method !== 'inference' && x.dp > 1 && bitsandbytesOptimizer(x),
  },
  {
    id: 'torchtune-optimizer-in-bwd-accum',
    says: 'optimizer_in_bwd raises RuntimeError with gradient_accumulation_steps > 1 ("Gradient accumulation is not supported with optimizer in bwd")',
    library: 'torchtune',
    versions: '==0.6.1',
    // Same check in full_finetune_distributed.py#L192-L196.
    source: `${T}/full_finetune_single_device.py#L153-L157`,
    effect: 'forbid',
    applies: (x) => x.options.optimizerInBackward && x.accum > 1,
  },
  {
    id: 'torchtune-optimizer-in-bwd-lora',
    says: 'the LoRA/QLoRA recipes have no optimizer_in_bwd (only full_finetune_single_device and full_finetune_distributed read it)',
    library: 'torchtune',
    versions: '==0.6.1',
    source: `${T}/lora_finetune_single_device.py`,
    effect: 'forbid',
    applies: (x) => x.options.optimizerInBackward && adapter(x),
  },
  {
    id: 'torchtune-ppo-full-single-device',
    says: 'torchtune 0.6.1 runs PPO only as ppo_full_finetune_single_device: a full fine-tune of the policy and value model on one GPU, generating with its own KV-cache decoding (no vLLM)',
    library: 'torchtune',
    versions: '==0.6.1',
    source: `${T}/ppo_full_finetune_single_device.py`,
    effect: 'forbid',
    applies: (x) =>
      x.options.objective === 'ppo' &&
      (x.options.method !== 'full' || x.dp > 1 || (x.options.rollout ?? 'hf') !== 'hf'),
  },
  {
    id: 'torchtune-grpo-full',
    says: 'torchtune 0.6.1 runs GRPO only as dev/grpo_full_finetune_distributed: a full fine-tune beside a reference model, generating with its own KV-cache decoding (no vLLM)',
    library: 'torchtune',
    versions: '==0.6.1',
    source: `${T}/dev/grpo_full_finetune_distributed.py`,
    effect: 'forbid',
    applies: (x) =>
      x.options.objective === 'grpo' &&
      (x.options.method !== 'full' || (x.options.rollout ?? 'hf') !== 'hf'),
  },
  {
    id: 'torchtune-tp-full-distributed',
    says: 'torchtune 0.6.1 runs tensor parallelism only in full_finetune_distributed (tensor_parallel_dim with a tensor_parallel_plan): the LoRA, DPO, PPO and GRPO recipes have none',
    library: 'torchtune',
    versions: '==0.6.1',
    source: `${T}/full_finetune_distributed.py`,
    effect: 'forbid',
    applies: (x) =>
      x.options.tp > 1 && (x.options.method !== 'full' || (x.options.objective ?? 'sft') !== 'sft'),
  },
  {
    id: 'torchtune-selective-ac-full-distributed',
    says: 'torchtune 0.6.1 checkpoints selectively (ac_mode "selective") only in full_finetune_distributed: the other recipes checkpoint every layer or none',
    library: 'torchtune',
    versions: '==0.6.1',
    source: `${T}/full_finetune_distributed.py`,
    effect: 'forbid',
    applies: (x) =>
      x.options.checkpointing === 'selective' &&
      (x.options.method !== 'full' || (x.options.objective ?? 'sft') !== 'sft'),
  },
];
