/** What SGLang rejects for a serving plan, as data (rules.ts); the launcher refuses the first match. */
import type { Rule } from '../rules.js';
import { int4CheckpointRule, mtpCheckpointRule } from '../serve-common.js';
import { SGLANG_ARCH_RULE } from './architectures.js';
import { nativeWeights } from '../../model/native-weights.js';
import { moeGroupOf } from '../../../schema/estimate.js';
import { blockFp8RefusedShard, type BlockFp8Sharding } from '../block-fp8-shard.js';

export { SGLANG_VERSION } from './version.js';

const BLOCK_FP8_SHARD_SOURCE =
  'https://pypi.org/project/sglang/0.5.23/ (wheel) sglang/srt/layers/quantization/fp8.py:585-609 and 1578-1600, sglang/srt/layers/moe/fused_moe_triton/layer.py:427-428';

const heads = (x: Parameters<Rule['applies']>[0]): number =>
  x.arch.groups.find((g) => g.heads > 0)?.heads ?? 0;

/**
 * The model_types whose SGLang MoE applies the router weight to the expert input (FusedMoE
 * apply_router_weight_on_input=True): Llama4MoE in models/llama4.py:127 of the 0.5.23 wheel; llama4_text is its
 * text-only config, served by the same class.
 */
const ROUTER_WEIGHT_ON_INPUT = ['llama4', 'llama4_text'];

/**
 * How SGLang splits a block-scaled FP8 checkpoint's MLPs (engines/block-fp8-shard.ts). Each routed expert over the MoE
 * tensor-parallel ranks (FusedMoE intermediate_size // moe_tp_size, moe_tp_size = --tp-size / --ep-size: every rank
 * of the MoE layer with DP attention): Fp8MoEMethod.create_weights raises unless that share is a multiple of block_n
 * and block_k; a dense MLP's gate/up (column-parallel) and down (row-parallel) linears split over --tp-size meet the
 * same check in validate_fp8_block_shape (fp8_utils.py:2852-2890; DeepSeek-R1's 18,432 over 32 ranks in
 * sgl-project/sglang#3345). Dense MLPs under DP attention are not checked. No finer block is tried.
 */
export const SGLANG_BLOCK_FP8_SHARDING: BlockFp8Sharding = {
  moeWays: (o) => moeGroupOf(o) / (o.ep ?? 1),
  denseWays: (o) => (o.dpAttention === true ? 1 : o.tp),
  denseSides: 'nk',
  moeRefineMin: null,
};

/** The MLP intermediate width one rank holds where SGLang refuses its block-FP8 share; null where every share tiles. */
export const blockFp8ExpertShard = (x: Parameters<Rule['applies']>[0]): number | null =>
  blockFp8RefusedShard(x, SGLANG_BLOCK_FP8_SHARDING);

export const SGLANG_RULES: readonly Rule[] = [
  SGLANG_ARCH_RULE,
  {
    id: 'sglang-mtp-needs-mtp-layers',
    says: 'MTP speculative decoding (--speculative-algorithm NEXTN, run as EAGLE) drafts with the MTP layers the checkpoint ships (num_nextn_predict_layers): SGLang makes the target checkpoint its own draft only for architectures that ship them (_handle_eagle_family) and loads that draft as their NextN class (ModelConfig._config_draft_model); this model has none, so there is no draft to load: name an EAGLE-3 draft (--speculative eagle3) or use n-gram',
    library: 'sglang',
    versions: '>=0.5',
    // Read in the 0.5.23 wheel: the architecture list at speculative_hook.py:1121-1146 (DeepseekV3ForCausalLM,
    // Glm4MoeForCausalLM, BailingMoe*, ...), the NextN swaps at configs/model_config.py:1010-1212.
    source:
      'https://pypi.org/project/sglang/0.5.23/ (wheel) sglang/srt/arg_groups/speculative_hook.py:1121-1146, sglang/srt/configs/model_config.py:1010-1212',
    effect: 'forbid',
    applies: (x) => x.options.speculative === 'mtp' && !((x.arch.mtpLayers ?? 0) > 0),
  },
  mtpCheckpointRule('sglang', '>=0.5'),
  int4CheckpointRule('sglang', '>=0.5'),
  {
    id: 'sglang-ngram-no-dp-attention',
    says: 'SGLang refuses n-gram speculative decoding with DP attention ("Currently ngram speculative decoding does not support dp attention"); EAGLE, EAGLE3 and NEXTN (MTP) run with it',
    library: 'sglang',
    versions: '>=0.5',
    // _handle_ngram in the sglang 0.5.23 wheel.
    source:
      'https://pypi.org/project/sglang/0.5.23/ (wheel) sglang/srt/arg_groups/speculative_hook.py:1367',
    effect: 'forbid',
    applies: (x) => x.options.speculative === 'ngram' && x.options.dpAttention === true,
  },
  {
    id: 'sglang-expert-parallel-needs-moe',
    // Read in the 0.5.23 wheel: Qwen3Attention takes attn_tp_size (models/qwen3.py:164) where LlamaAttention and
    // Qwen2Attention take the whole tp_size (models/llama.py, models/qwen2.py).
    says: "SGLang's --ep-size shards MoE experts, which a dense model has none of; DP attention on a dense model runs only where its attention takes the attention-TP group (Qwen3Attention: attn_tp_size; LlamaAttention and Qwen2Attention shard heads over the whole --tp-size), with the MLP tensor-parallel over every GPU, a layout not modelled: serve it as replicas",
    library: 'sglang',
    versions: '>=0.5',
    source: 'https://pypi.org/project/sglang/0.5.23/ (wheel) sglang/srt/models/qwen3.py:164',
    effect: 'forbid',
    applies: (x) =>
      ((x.options.ep ?? 1) > 1 || x.options.dpAttention === true) &&
      !x.arch.groups.some((g) => g.experts > 1),
  },
  {
    id: 'sglang-w4a16-moe-router-weight-on-input',
    // 0.5.23 wheel: Llama4MoE builds FusedMoE with apply_router_weight_on_input=True (models/llama4.py:127); a
    // compressed-tensors int4 MoE on CUDA gets CompressedTensorsWNA16MoE unless --moe-runner-backend triton or
    // SM100's auto default picks the Triton one (compressed_tensors.py:924-951); its apply_weights calls
    // fused_marlin_moe without the flag (compressed_tensors_wNa16_moe.py:473-496), which weights the second GEMM's
    // rows by the router (fused_marlin_moe.py:332, 396); only the moe_runner paths read it (moe_runner/triton.py:110).
    says: 'SGLang serves a compressed-tensors int4 (W4A16) MoE through its Marlin MoE method, whose apply_weights never passes apply_router_weight_on_input: Llama 4 scales the expert input by the router weight (Llama4MoE: apply_router_weight_on_input=True), Marlin scales the expert output instead, a silent change to the outputs through the nonlinear expert (marlin_utils.py: "apply_router_weight_on_input is not supported for moe marlin", a check this method never calls); serve Llama 4 on SGLang in bf16 or fp8, whose MoE runs through the MoE runner that takes the flag (moe_runner/triton.py)',
    library: 'sglang',
    versions: '==0.5.23',
    source:
      'https://pypi.org/project/sglang/0.5.23/ (wheel) sglang/srt/layers/quantization/compressed_tensors/schemes/compressed_tensors_wNa16_moe.py:444-496, sglang/srt/models/llama4.py:127, sglang/srt/layers/quantization/marlin_utils.py:232-233',
    effect: 'forbid',
    applies: (x) =>
      x.options.weights === 'int4' &&
      ROUTER_WEIGHT_ON_INPUT.includes(x.arch.modelType) &&
      x.arch.groups.some((g) => g.experts > 1) &&
      // An int4 checkpoint vramplan loads or makes for a 16-bit model is compressed-tensors (RedHatAI's w4a16,
      // llm-compressor's W4A16); a repository that ships AWQ/GPTQ itself loads through another method.
      nativeWeights(x.arch) !== 'int4',
  },
  {
    id: 'sglang-block-fp8-expert-shard',
    says: 'SGLang refuses a block-scaled FP8 checkpoint whose MLP, split over tensor-parallel ranks (routed experts over --tp-size / --ep-size, a dense MLP over --tp-size), leaves each rank a width that is not a multiple of the 128-wide weight block ("The output_size of gate\'s and up\'s weight = 192 is not divisible by weight quantization block_n = 128"): serve it on fewer GPUs per replica, or with expert parallelism so each rank holds whole experts',
    reason: (x) =>
      `SGLang refuses ${x.arch.id}'s block-scaled FP8 MLP split over its TP ranks: each rank's ${blockFp8ExpertShard(x) ?? 0} of the intermediate width is not a multiple of its ${x.arch.quant?.block?.join('x') ?? ''} weight blocks (Fp8MoEMethod.create_weights raises); serve it on fewer GPUs per replica, or with expert parallelism (--ep-size) so each rank holds whole experts (rule sglang-block-fp8-expert-shard: sglang >=0.4.6,<=0.5.23, ${BLOCK_FP8_SHARD_SOURCE})`,
    library: 'sglang',
    // Read in the 0.5.23 wheel; the same check fails Qwen3-235B-A22B-FP8 at TP 8 in QwenLM/Qwen3#1485 (0.4.6.post5).
    // With SGLANG_USE_AITER=1 on ROCm the experts are padded to 128 instead (get_moe_padding_size): not told apart.
    versions: '>=0.4.6,<=0.5.23',
    source: BLOCK_FP8_SHARD_SOURCE,
    effect: 'forbid',
    applies: (x) => blockFp8ExpertShard(x) !== null,
  },
  {
    id: 'sglang-tp-divides-heads',
    says: 'SGLang shards attention heads over --tp-size: the number of attention heads must be divisible by it',
    library: 'sglang',
    versions: '>=0.4',
    source:
      'https://github.com/sgl-project/sglang/blob/469c63e54e7d94591617ef9590c6aa26d54dc1bb/python/sglang/srt/configs/model_config.py',
    effect: 'forbid',
    applies: (x) => x.options.tp > 1 && heads(x) % x.options.tp !== 0,
  },
];

/**
 * The `python -m sglang.launch_server` flags serve.sh writes: ServerArgs argparse names as the server
 * arguments reference lists them for SGLang 0.5 (https://docs.sglang.io/docs/advanced_features/server_arguments.md;
 * the stored server_args.py at 469c63e5 is a 2024 copy that predates most of them).
 */
export const SGLANG_SERVE_FLAGS = [
  '--model-path', // ServerArgs.model_path
  '--port', // ServerArgs.port
  '--tp-size', // ServerArgs.tp_size
  '--dp-size', // ServerArgs.dp_size
  '--enable-dp-attention', // ServerArgs.enable_dp_attention (store_true)
  '--ep-size', // ServerArgs.ep_size (https://docs.sglang.io/cookbook/base/reference/server_arguments)
  '--pp-size', // ServerArgs.pp_size
  '--context-length', // ServerArgs.context_length
  '--max-running-requests', // ServerArgs.max_running_requests
  '--dtype', // ServerArgs.dtype
  '--kv-cache-dtype', // ServerArgs.kv_cache_dtype (auto, fp8_e5m2, fp8_e4m3, ...)
  '--quantization', // ServerArgs.quantization
  '--moe-runner-backend', // ServerArgs.moe_runner_backend (marlin: MXFP4 experts on SM90, mxfp4.py at 0.5.23)
  '--mem-fraction-static', // ServerArgs.mem_fraction_static
  '--speculative-algorithm', // ServerArgs.speculative_algorithm (EAGLE, EAGLE3, NGRAM)
  '--speculative-draft-model-path', // ServerArgs.speculative_draft_model_path
  '--speculative-num-steps', // ServerArgs.speculative_num_steps
  '--speculative-eagle-topk', // ServerArgs.speculative_eagle_topk
  '--speculative-num-draft-tokens', // ServerArgs.speculative_num_draft_tokens
  '--enable-lora', // ServerArgs.enable_lora (https://docs.sglang.io/advanced_features/lora.html)
  '--max-loras-per-batch', // ServerArgs.max_loras_per_batch
  '--max-lora-rank', // ServerArgs.max_lora_rank
  '--lora-target-modules', // ServerArgs.lora_target_modules (all: every supported module)
  '--lora-backend', // ServerArgs.lora_backend (triton under DP attention: the default csgmv refuses it)
  '--disable-radix-cache', // ServerArgs.disable_radix_cache (store_true)
  '--enable-metrics', // ServerArgs.enable_metrics (store_true): Prometheus /metrics
  '--json-model-override-args', // ServerArgs.json_model_override_args (JSON set on the HF config)
] as const;
