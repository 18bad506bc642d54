/** What vLLM rejects for a serving plan, as data (rules.ts); vllmBlocker returns the first match. */
import type { Rule } from '../rules.js';
import { int4CheckpointRule, mtpCheckpointRule } from '../serve-common.js';
import { VLLM_ARCH_RULE } from './architectures.js';
import { blockFp8RefusedShard, type BlockFp8Sharding } from '../block-fp8-shard.js';
import { moeGroupOf } from '../../../schema/estimate.js';
import { INT4_GROUP_SOURCE, int4GroupRefusedShard } from './int4-group.js';

/** The vLLM release serve.sh is written for (its own environment: vllm pins the torch it was built with). */
export const VLLM_VERSION = '0.33.0';

/** Attention heads of the decoder (the group vLLM's config verifier reads num_attention_heads of). */
const heads = (x: Parameters<Rule['applies']>[0]): number =>
  x.arch.groups.find((g) => g.name === 'decoder' && g.heads > 0)?.heads ??
  x.arch.groups.find((g) => g.heads > 0)?.heads ??
  0;

const BLOCK_FP8_SHARD_SOURCE =
  'https://pypi.org/project/vllm/0.33.0/ (wheel) vllm/model_executor/layers/quantization/utils/fp8_utils.py:1296-1373 (validate_fp8_block_shape, validate_fp8_block_shape_moe), vllm/model_executor/layers/fused_moe/oracle/fp8.py:292-320 (refine_fp8_moe_block_shape), vllm/model_executor/layers/linear.py:562-581';

/**
 * How vLLM 0.33.0 splits a block-scaled FP8 checkpoint's MLPs (engines/block-fp8-shard.ts), read in the wheel:
 * - Routed experts over the MoE layer's TP ranks (FusedMoEConfig: intermediate_size // moe tp_size, which is the TP
 *   size times the data-parallel size without --enable-expert-parallel and 1 with it, fused_moe/config.py:1350-1353).
 *   A share the [block_n, block_k] blocks do not tile gets its scales refined to gcd(block_n, block_k, share,
 *   hidden) where that is at least 32 and run by the Triton MoE kernels (refine_fp8_moe_block_shape, oracle/fp8.py:
 *   292-320); below 32 validate_fp8_block_shape_moe raises ("The output_size of gate's and up's weight = ... is not
 *   divisible by weight quantization block_n").
 * - A dense MLP over --tensor-parallel-size (DP attention keeps it within each rank's TP group): the down projection
 *   (RowParallelLinear) raises unless its input share is a multiple of block_k (validate_fp8_block_shape, "Required
 *   by row parallel"); the merged gate/up projection skips the check wherever a share does not tile
 *   (ColumnParallelLinear._maybe_allow_fp8_block_shape_mismatch, linear.py:562-581).
 */
export const VLLM_BLOCK_FP8_SHARDING: BlockFp8Sharding = {
  moeWays: (o) => ((o.ep ?? 1) > 1 ? 1 : moeGroupOf(o)),
  denseWays: (o) => o.tp,
  denseSides: 'k',
  moeRefineMin: 32, // refine_fp8_moe_block_shape: "if refine < 32: return None"
};

export const VLLM_RULES: readonly Rule[] = [
  VLLM_ARCH_RULE,
  {
    id: 'vllm-max-lora-rank',
    says: 'vLLM takes --max-lora-rank from 1, 8, 16, 32, 64, 128, 256, 320 or 512 (LoRAConfig.max_lora_rank: MaxLoRARanks)',
    library: 'vllm',
    versions: '>=0.11',
    source: 'https://github.com/vllm-project/vllm/blob/v0.26.0/vllm/config/lora.py',
    effect: 'forbid',
    applies: (x) =>
      x.options.maxLoras !== undefined &&
      ![1, 8, 16, 32, 64, 128, 256, 320, 512].includes(x.options.loraRank),
  },
  {
    id: 'vllm-mtp-needs-mtp-layers',
    says: 'MTP speculative decoding runs the MTP layers the checkpoint ships (num_nextn_predict_layers); this model has none',
    library: 'vllm',
    versions: '>=0.11',
    source:
      'https://github.com/vllm-project/vllm/blob/002e77c1f0ef9b19cff8b9e21cfbd6feb3d6b443/vllm/config/speculative.py',
    effect: 'forbid',
    applies: (x) => x.options.speculative === 'mtp' && !((x.arch.mtpLayers ?? 0) > 0),
  },
  mtpCheckpointRule('vllm', '>=0.11'),
  int4CheckpointRule('vllm', '>=0.11'),
  {
    id: 'vllm-expert-parallel-needs-moe',
    says: 'vLLM\'s expert parallelism and data-parallel MoE layers act on MoE layers only (ParallelConfig.enable_expert_parallel: "for MoE layers"); a dense model has none: serve it as replicas',
    // vLLM itself runs --data-parallel-size N on a dense model as N engine cores behind one server (replicas, which
    // estimate models them as) and ignores --enable-expert-parallel there: what vramplan writes, not what vLLM refuses.
    library: 'vllm',
    versions: '>=0.11',
    source:
      'https://github.com/vllm-project/vllm/blob/00193b82b0e2d4faea5d3b4ea4f6c4c2bd9d057a/vllm/config/parallel.py',
    effect: 'forbid',
    scope: 'writer',
    applies: (x) =>
      ((x.options.ep ?? 1) > 1 || x.options.dpAttention === true) &&
      !x.arch.groups.some((g) => g.experts > 1),
  },
  {
    id: 'vllm-block-fp8-shard',
    says: 'vLLM refuses a block-scaled FP8 checkpoint whose MLP, split over tensor-parallel ranks, leaves each rank a width its 128-wide weight blocks do not tile and that no block of 32 or more divides (experts: refine_fp8_moe_block_shape; a dense MLP\'s down projection: "Weight input_size_per_partition = ... is not divisible by weight quantization block_k"): serve it on fewer GPUs per replica, or with expert parallelism so each rank holds whole experts',
    reason: (x) =>
      `vLLM refuses ${x.arch.id}'s block-scaled FP8 MLP split over its TP ranks: each rank's ${blockFp8RefusedShard(x, VLLM_BLOCK_FP8_SHARDING) ?? 0} of the intermediate width is not a multiple of its ${x.arch.quant?.block?.join('x') ?? ''} weight blocks, and for experts no block of 32 or more divides it (validate_fp8_block_shape raises); serve it on fewer GPUs per replica, or with --enable-expert-parallel so each rank holds whole experts (rule vllm-block-fp8-shard: vllm ==${VLLM_VERSION}, ${BLOCK_FP8_SHARD_SOURCE})`,
    library: 'vllm',
    // The refinement is read in the 0.33.0 wheel only; releases without it refuse every expert share that does not
    // tile (the Qwen3-235B-A22B-FP8 model card's TP 8 note), which this rule does not model.
    versions: `==${VLLM_VERSION}`,
    source: BLOCK_FP8_SHARD_SOURCE,
    effect: 'forbid',
    applies: (x) => blockFp8RefusedShard(x, VLLM_BLOCK_FP8_SHARDING) !== null,
  },
  {
    id: 'vllm-int4-group-shard',
    says: 'vLLM refuses a group-quantized int4 checkpoint whose row-parallel linears (attention output, dense MLP down projection), split over --tensor-parallel-size, leave each rank an input width that is not a whole number of scale groups ("The input size is not aligned with the quantized weight shape. This can be caused by too large tensor parallel size"): serve it on fewer GPUs per replica',
    reason: (x) =>
      `vLLM refuses ${x.arch.id}'s int4 weights split over ${x.options.tp} TP ranks: a row-parallel linear's ${int4GroupRefusedShard(x) ?? 0} input columns a rank are not a whole number of its scale groups (verify_group_size_divides_partition); serve it on fewer GPUs per replica (rule vllm-int4-group-shard: vllm ==${VLLM_VERSION}, ${INT4_GROUP_SOURCE})`,
    library: 'vllm',
    versions: `==${VLLM_VERSION}`,
    source: INT4_GROUP_SOURCE,
    effect: 'forbid',
    applies: (x) => int4GroupRefusedShard(x) !== null,
  },
  {
    id: 'vllm-tp-divides-heads',
    says: 'vLLM raises ValueError unless the number of attention heads is divisible by --tensor-parallel-size',
    library: 'vllm',
    versions: '>=0.4',
    // ModelConfig.verify_with_parallel_config: "Total number of attention heads (…) must be divisible by tensor parallel size".
    source:
      'https://github.com/vllm-project/vllm/blob/0052a5b818980ce8a0477706aaf9f75bd5af72cd/vllm/config/model.py',
    effect: 'forbid',
    applies: (x) => x.options.tp > 1 && heads(x) % x.options.tp !== 0,
  },
  {
    id: 'vllm-no-bnb-fp4',
    says: 'vLLM quantizes in flight to bitsandbytes NF4 only (--quantization bitsandbytes); an FP4 checkpoint must be pre-quantized, which vramplan does not write: use nf4 or an AWQ/GPTQ int4 checkpoint',
    library: 'vllm-bnb-plugin',
    versions: '==0.0.3',
    // vllm_bnb_plugin/bitsandbytes_loader.py:373 quantize_4bit(..., quant_type="nf4") in flight; :348 loads a
    // pre-quantized checkpoint's quant_state.bitsandbytes__fp4 (vllm-bnb-plugin 0.0.3 wheel): `estimate` models it.
    source:
      'https://pypi.org/project/vllm-bnb-plugin/0.0.3/ (wheel) vllm_bnb_plugin/bitsandbytes_loader.py:348-373',
    effect: 'forbid',
    scope: 'writer',
    applies: (x) => x.options.weights === 'fp4',
  },
  {
    id: 'vllm-no-context-parallel',
    says: 'vLLM has no context parallelism over the prompt that serve.sh could write (EngineArgs has tensor, pipeline, data and decode-context parallel sizes)',
    library: 'vllm',
    versions: '>=0.11',
    // EngineArgs fields in vllm/engine/arg_utils.py (read at commit 99d7eb5d6a512cfcc5a2b104f24ebf2d6cda772b).
    source:
      'https://github.com/vllm-project/vllm/blob/99d7eb5d6a512cfcc5a2b104f24ebf2d6cda772b/vllm/engine/arg_utils.py',
    effect: 'forbid',
    applies: (x) => x.options.cp > 1,
  },
];

/**
 * The `vllm serve` flags serve.sh writes: EngineArgs fields of vllm/engine/arg_utils.py (dataclass field
 * name with _ → -, read at commit 99d7eb5d…) plus --port of the OpenAI server (vllm/entrypoints/openai/cli_args.py).
 */
export const VLLM_SERVE_FLAGS = [
  '--port', // FrontendArgs.port (openai/cli_args.py)
  '--tensor-parallel-size', // EngineArgs.tensor_parallel_size
  '--pipeline-parallel-size', // EngineArgs.pipeline_parallel_size
  '--data-parallel-size', // EngineArgs.data_parallel_size
  '--enable-expert-parallel', // EngineArgs.enable_expert_parallel (bool: argparse BooleanOptionalAction)
  '--max-model-len', // EngineArgs.max_model_len
  '--max-num-seqs', // EngineArgs.max_num_seqs
  '--dtype', // EngineArgs.dtype (ModelDType: auto, half, float16, bfloat16, float, float32)
  '--kv-cache-dtype', // EngineArgs.kv_cache_dtype (CacheDType: auto, fp8, …)
  '--block-size', // EngineArgs.block_size (CacheConfig.block_size)
  '--quantization', // EngineArgs.quantization (QuantizationMethods)
  '--gpu-memory-utilization', // EngineArgs.gpu_memory_utilization
  '--hf-overrides', // ModelConfig.hf_overrides (JSON merged into the HF config before RoPE is read)
  '--speculative-config', // EngineArgs.speculative_config (SpeculativeConfig as JSON)
  '--enable-lora', // EngineArgs.enable_lora (bool)
  '--max-loras', // EngineArgs.max_loras (LoRAConfig.max_loras)
  '--max-lora-rank', // EngineArgs.max_lora_rank (LoRAConfig.max_lora_rank)
  '--enable-prefix-caching', // EngineArgs.enable_prefix_caching (bool: argparse BooleanOptionalAction)
  '--no-enable-prefix-caching', // its negation, the same BooleanOptionalAction
] as const;
