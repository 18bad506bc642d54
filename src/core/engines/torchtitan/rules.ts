/** torchtitan's behaviour rules (profile data: the planner and `launch` check them), each at a source line. */
import { trainingGpus, type EstimateOptions } from '../../../schema/estimate.js';
import type { Arch } from '../../model/arch.js';
import type { Rule } from '../rules.js';
import {
  TITAN_HF_BACKEND,
  TITAN_HF_BACKEND_SOURCE,
  TORCHTITAN_ARCH_RULE,
} from './architectures.js';

/** torchtitan main at b5bcd76c66d0 (2026-08-21), the newest commit before 0.3.0 in the mirror read. */
export const TT =
  'https://github.com/pytorch/torchtitan/blob/b5bcd76c66d0acb1a08b176d9639425bc55e0b2a';
const TT_VERSIONS = '==0.3.0';

export const dec = (a: Arch) => a.groups.find((g) => g.name === 'decoder');
/** GPUs per data-parallel shard group: gpus / (tp * pp * cp) (TT parallel_dims.py L182). */
export const dpShard = (o: EstimateOptions): number => o.gpus / (o.tp * o.pp * o.cp);

/** Behaviour of torchtitan 0.3.0 that decides or changes a plan, each at a source line (TT). */
export const TORCHTITAN_RULES: readonly Rule[] = [
  TORCHTITAN_ARCH_RULE,
  {
    id: 'torchtitan-hf-backend-full-sft',
    says: `torchtitan 0.3.0 trains this model_type only through experiments/transformers_modeling_backend, as a full fine-tune: the backend has no LoRA ("Further work: ... Add LORA support") and experiments/rl builds torchtitan's own models (llama3, qwen3)`,
    library: 'torchtitan',
    versions: TT_VERSIONS,
    source: TITAN_HF_BACKEND_SOURCE,
    effect: 'forbid',
    applies: ({ arch, options: o }) =>
      TITAN_HF_BACKEND.includes(arch.modelType) &&
      (o.method !== 'full' || (o.objective !== undefined && o.objective !== 'sft')),
  },
  {
    id: 'torchtitan-mesh-product',
    says: 'torchtitan needs dp_replicate * dp_shard * cp * tp * pp to equal the GPU count',
    library: 'torchtitan',
    versions: TT_VERSIONS,
    source: `${TT}/torchtitan/distributed/parallel_dims.py#L182`,
    effect: 'forbid',
    applies: ({ options: o }) => !Number.isInteger(dpShard(o)),
  },
  {
    id: 'torchtitan-tp-divides-heads',
    says: 'torchtitan requires tensor_parallel_degree to divide both the attention heads and the KV heads',
    library: 'torchtitan',
    versions: TT_VERSIONS,
    source: `${TT}/torchtitan/models/common/decoder.py#L190-L199`,
    effect: 'forbid',
    applies: ({ arch, options: o }) => {
      const g = dec(arch);
      return o.tp > 1 && !!g && (g.heads % o.tp !== 0 || g.kvHeads % o.tp !== 0);
    },
  },
  {
    id: 'torchtitan-pp-stages-vs-layers',
    says: 'torchtitan cannot split the model into more pipeline stages than layers + 2 (embedding and output count as one layer each)',
    library: 'torchtitan',
    versions: TT_VERSIONS,
    source: `${TT}/torchtitan/distributed/pipeline_parallel.py#L392-L395`,
    effect: 'forbid',
    applies: ({ arch, options: o }) => o.pp > 1 && o.pp > (dec(arch)?.count ?? 0) + 2,
  },
  {
    id: 'torchtitan-tp-loss-parallel',
    says: 'with tensor parallelism torchtitan always computes the loss vocabulary-parallel (there is no switch to gather the logits)',
    library: 'torchtitan',
    versions: TT_VERSIONS,
    source: `${TT}/torchtitan/components/loss.py#L49-L55`,
    effect: 'forbid',
    applies: ({ options: o }) => o.tp > 1 && !o.lossParallel,
  },
  {
    id: 'torchtitan-no-fp16',
    says: 'torchtitan mixed precision takes bfloat16 or float32 parameters only (training.mixed_precision_param): no fp16',
    library: 'torchtitan',
    versions: TT_VERSIONS,
    source: `${TT}/torchtitan/config/configs.py#L94`,
    effect: 'forbid',
    applies: ({ options: o }) => o.compute === 'fp16',
  },
  {
    id: 'torchtitan-pp-cuda-graphs',
    says: 'CUDA graphs (on by default) reject pipeline parallelism: the launcher sets training.disable_cuda_graphs = True',
    library: 'torchtitan',
    versions: TT_VERSIONS,
    source: `${TT}/torchtitan/trainer.py#L172-L176`,
    effect: 'change',
    applies: ({ options: o }) => o.pp > 1,
  },
  {
    id: 'torchtitan-no-sdpa-attention',
    says: 'torchtitan language models no longer take sdpa attention: the launcher writes attn_backend "flex" (FlexAttention, no score matrix, like SDPA flash)',
    library: 'torchtitan',
    versions: TT_VERSIONS,
    source: `${TT}/torchtitan/models/common/config_utils.py#L97-L100`,
    effect: 'change',
    applies: ({ options: o }) => o.attention !== 'eager',
  },
  {
    id: 'torchtitan-ep-needs-moe',
    says: 'torchtitan expert_parallel_degree shards routed experts, which a dense model has none of ("No effect for non-MoE models"): estimate it with --ep 1',
    library: 'torchtitan',
    versions: TT_VERSIONS,
    source: `${TT}/torchtitan/config/configs.py#L282-L290`,
    effect: 'forbid',
    applies: ({ arch, options: o }) =>
      o.method !== 'inference' && (o.ep ?? 1) > 1 && !arch.groups.some((g) => g.experts > 1),
  },
  {
    id: 'torchtitan-ep-divides-experts',
    says: "torchtitan's all-to-all dispatch splits each layer's routed experts evenly over the expert-parallel ranks (num_tokens_per_expert.view(ep_size, -1)): expert_parallel_degree must divide the routed experts",
    library: 'torchtitan',
    versions: TT_VERSIONS,
    source: `${TT}/torchtitan/models/common/token_dispatcher.py#L261-L266`,
    effect: 'forbid',
    applies: ({ arch, options: o }) =>
      o.method !== 'inference' &&
      (o.ep ?? 1) > 1 &&
      arch.groups.some((g) => g.experts > 1 && g.experts % (o.ep ?? 1) !== 0),
  },
  {
    id: 'torchtitan-grpo-vllm-server',
    says: 'torchtitan 0.3.0 runs GRPO only as experiments/rl: a full fine-tune with GRPOLoss (no KL term, no reference model), generating with vLLM on GPUs of its own (--rollout vllm-server)',
    library: 'torchtitan',
    versions: TT_VERSIONS,
    source:
      'https://github.com/pytorch/torchtitan/blob/v0.3.0/torchtitan/experiments/rl/actors/generator.py',
    effect: 'forbid',
    applies: ({ options: o }) =>
      o.objective === 'grpo' &&
      (o.method !== 'full' ||
        o.rollout !== 'vllm-server' ||
        o.reference === 'model' ||
        trainingGpus(o) < 1),
  },
];
