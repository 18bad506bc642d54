/** What vLLM rejects for a serving plan, as data (rules.ts); vllmBlocker returns the first match. */
import type { Rule } from '../rules.js';
import { int4CheckpointRule, mtpCheckpointRule } from '../serve-common.js';
import { VLLM_ARCH_RULE } from './architectures.js';

/** The vLLM release serve.sh is written for (its own environment: vllm pins the torch it was built with). */
export const VLLM_VERSION = '0.33.0';

/** Attention heads of the decoder (the group vLLM's config verifier reads num_attention_heads of). */
const heads = (x: Parameters<Rule['applies']>[0]): number =>
  x.arch.groups.find((g) => g.name === 'decoder' && g.heads > 0)?.heads ??
  x.arch.groups.find((g) => g.heads > 0)?.heads ??
  0;

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
