/**
 * Quality as an axis: what each technique costs the result, as a tier with its reason and source.
 * exact: the same update as fp32-master AdamW; near: published to match it within noise on the tasks
 * measured; lossy: known to lose quality unless the recipe is retuned or compensated. A plan's tier is its
 * worst technique's. A scenario's `quality` is the least tier it accepts (default near).
 */
import type { EstimateOptions } from '../../schema/estimate.js';
import { FRAMEWORKS } from '../memory/frameworks.js';
import { stochasticallyRounded } from '../engines/engines.js';
import { OPTIMIZER_PROFILES } from '../engines/optimizers.js';

export const QUALITY_TIERS = ['exact', 'near', 'lossy'] as const;
export type QualityTier = (typeof QUALITY_TIERS)[number];

export interface QualityItem {
  technique: string;
  tier: QualityTier;
  reason: string;
  source: string;
}

export interface Quality {
  tier: QualityTier;
  /** The techniques that set the tier, worst first. */
  items: QualityItem[];
}

const MIXED = 'https://arxiv.org/abs/1710.03740'; // Micikevicius et al., Mixed Precision Training (ICLR 2018)
const BF16 = 'https://arxiv.org/abs/2010.06192'; // Zamirai et al., Revisiting BFloat16 Training
const QLORA = 'https://arxiv.org/abs/2305.14314'; // Dettmers et al., QLoRA (NF4 + double quant vs 16-bit)
const LORA = 'https://arxiv.org/abs/2405.09673'; // Biderman et al., LoRA Learns Less and Forgets Less
const INT8 = 'https://arxiv.org/abs/2208.07339'; // Dettmers et al., LLM.int8()
const K4 = 'https://arxiv.org/abs/2212.09720'; // Dettmers & Zettlemoyer, The case for 4-bit precision
const FP8 = 'https://arxiv.org/abs/2209.05433'; // Micikevicius et al., FP8 Formats for Deep Learning

const RANK: Record<QualityTier, number> = { exact: 0, near: 1, lossy: 2 };

export function tierRank(t: QualityTier): number {
  return RANK[t];
}

type AddItem = (technique: string, tier: QualityTier, reason: string, source: string) => void;

/** What the method and the trained weights' precision cost. */
function methodQuality(o: EstimateOptions, add: AddItem): void {
  const sixteen = o.weights === 'bf16' || o.weights === 'fp16';
  if (o.method === 'full') {
    const master = o.masterWeights || FRAMEWORKS[o.framework].deepspeedOptimizer;
    if (sixteen && !master && stochasticallyRounded(o))
      add(
        'bf16 weights, stochastic rounding',
        'near',
        'the fp32 update is rounded stochastically into the bf16 weight: unbiased, small updates are kept on average',
        BF16,
      );
    else if (sixteen && !master)
      add(
        `pure ${o.weights} weights`,
        'lossy',
        'updates rounded to 16 bits without an fp32 master copy (no Kahan summation / stochastic rounding) are lost',
        BF16,
      );
    else
      add(
        master ? 'fp32 master weights' : `${o.weights} weights`,
        'exact',
        'fp32 copy of the weights takes every update (mixed precision)',
        MIXED,
      );
  } else if (o.method === 'lora') {
    add(
      'LoRA',
      'near',
      'low-rank adapters match full fine-tuning on most tasks, less on some',
      LORA,
    );
  }
}

// llama.cpp tools/quantize: Q4_K_M +0.0535 ppl, Q5_K_M +0.0142, Q6_K +0.0044, Q8_0 +0.0004 @ LLaMA-v1-7B.
const GGUF_PPL = 'https://github.com/ggml-org/llama.cpp/blob/master/tools/quantize/quantize.cpp';
const FP4_BLOCK =
  'https://developer.nvidia.com/blog/introducing-nvfp4-for-efficient-and-accurate-low-precision-inference/';

const FP8_KV = 'https://docs.vllm.ai/en/latest/features/quantization/quantized_kvcache/';
const FP8_TRAINING = 'https://github.com/pytorch/ao/blob/main/torchao/float8/README.md';

// Unsloth's Qwen3.5 fine-tuning guide: "It is not recommended to do QLoRA (4-bit) training on the Qwen3.5 models, no
// matter MoE or dense, due to higher than normal quantization differences".
const QWEN35_QLORA = 'https://unsloth.ai/docs/models/qwen3.5/fine-tune';
/** config.json model_type of the models whose adapters train poorly on an NF4 base (QWEN35_QLORA). */
const NF4_TRAINS_POORLY = new Set(['qwen3_5', 'qwen3_5_moe']);

// gpt-oss model card: "trained with native MXFP4 precision for the MoE layer"; OpenAI released no 16-bit weights.
const GPT_OSS_CARD = 'https://huggingface.co/openai/gpt-oss-120b';
// DeepSeek-V3 technical report §3.3 (FP8 training: block-scaled E4M3 weights); its README, "How to Run Locally":
// "Since FP8 training is natively adopted in our framework, we only provide FP8 weights" (R1 shares the format).
const DEEPSEEK_V3_FP8 = 'https://arxiv.org/abs/2412.19437';
/** config.json model_type of the models whose only release is in a low-bit format they were trained in. */
const RELEASED_IN: Readonly<Record<string, { weights: string; source: string }>> = {
  gpt_oss: { weights: 'mxfp4', source: GPT_OSS_CARD },
  deepseek_v3: { weights: 'fp8', source: DEEPSEEK_V3_FP8 },
};

/** What quantized frozen weights cost (adapters and inference); `modelType`: the model's config.json model_type. */
function weightQuality(o: EstimateOptions, add: AddItem, modelType?: string): void {
  if (o.method === 'lora' || o.method === 'qlora' || o.method === 'inference') {
    const released = modelType === undefined ? undefined : RELEASED_IN[modelType];
    if (released?.weights === o.weights) {
      add(
        `${o.weights} weights`,
        'exact',
        'the format the model was trained and released in',
        released.source,
      );
      return;
    }
    switch (o.weights) {
      case 'nf4':
        if (o.method !== 'inference' && modelType !== undefined && NF4_TRAINS_POORLY.has(modelType))
          add(
            `${o.weights} weights`,
            'lossy',
            "4-bit QLoRA on Qwen3.5 is not recommended: its quantization differences are larger than other models'",
            QWEN35_QLORA,
          );
        else
          add(`${o.weights} weights`, 'near', 'NF4 (+double quant) matches 16-bit weights', QLORA);
        break;
      case 'int4':
        add('int4 weights', 'near', '4-bit weights keep most zero-shot accuracy', K4);
        break;
      case 'fp4':
        add('fp4 weights', 'lossy', 'FP4 trails NF4 and 16-bit in the QLoRA comparisons', QLORA);
        break;
      case 'int8':
        add('int8 weights', 'near', 'LLM.int8() keeps 16-bit accuracy (outliers in fp16)', INT8);
        break;
      case 'fp8':
        add('fp8 weights', 'near', 'FP8 (E4M3) matches 16-bit results', FP8);
        break;
      case 'mxfp4':
      case 'nvfp4':
        // gpt-oss ships its MoE weights in MXFP4 (model card); NVFP4 within ~1% of FP8 on DeepSeek-R1 (NVIDIA blog).
        add(`${o.weights} weights`, 'near', 'block-scaled FP4 keeps 16-bit accuracy', FP4_BLOCK);
        break;
      case 'q4_0':
      case 'q4_k_m':
      case 'q5_k_m':
      case 'q6_k':
      case 'q8_0':
        add(`${o.weights} GGUF weights`, 'near', 'k-quants add little perplexity', GGUF_PPL);
        break;
      // llama-quantize's own list: Q2_K "+3.5199 ppl @ Llama-3-8B", Q3_K_M "+0.6569" (Q4_K_M's is lower still).
      case 'q2_k':
      case 'q3_k_m':
      case 'iq1_s':
      case 'iq2_xxs':
      case 'iq2_m':
      case 'iq3_xxs':
      case 'iq3_m':
        add(
          `${o.weights} GGUF weights`,
          'lossy',
          '1.5-3.5-bit GGUF mixes add perplexity',
          GGUF_PPL,
        );
        break;
      default:
        break;
    }
  }
}

// transformers v4.42.0 models/gemma2/modeling_gemma2.py warned "It is strongly recommended to train Gemma2 models with
// the `eager` attention implementation" (its SDPA path has no soft-cap); 5.14.1 dropped the warning, not the gap.
const GEMMA2_EAGER =
  'https://github.com/huggingface/transformers/blob/v4.42.0/src/transformers/models/gemma2/modeling_gemma2.py#L1046';
/** config.json model_type of the models whose attention logits are soft-capped (attn_logit_softcapping). */
const SOFTCAPPED_ATTENTION = new Set(['gemma2']);

/** Training a soft-capped model under an SDPA path that drops the cap (FrameworkProfile.sdpaDropsSoftcap). */
function attentionQuality(o: EstimateOptions, add: AddItem, modelType?: string): void {
  if (
    o.method !== 'inference' &&
    o.attention === 'sdpa' &&
    modelType !== undefined &&
    SOFTCAPPED_ATTENTION.has(modelType) &&
    FRAMEWORKS[o.framework].sdpaDropsSoftcap === true
  )
    add(
      'sdpa attention without soft-capping',
      'lossy',
      "SDPA drops the model's attention logit soft-cap, which it was trained with: train with flash or eager attention",
      GEMMA2_EAGER,
    );
}

/** What the optimizer and its state precision cost. */
function optimizerQuality(o: EstimateOptions, add: AddItem): void {
  if (o.method !== 'inference') {
    const q = OPTIMIZER_PROFILES[o.optimizer].quality;
    if (q) add(o.optimizer, q.tier, q.reason, q.source);
    if (o.optimizerStates === 'bf16' && o.optimizer !== 'none')
      add('bf16 optimizer states', 'near', 'states rounded to bf16', BF16);
  }
}

/**
 * The tier and reasons of one configuration of the model whose config.json model_type is `modelType` (some
 * techniques cost some models more). Pure; the planner caches it per configuration.
 */
export function qualityOf(o: EstimateOptions, modelType?: string): Quality {
  const items: QualityItem[] = [];
  const add: AddItem = (technique, tier, reason, source) =>
    items.push({ technique, tier, reason, source });
  methodQuality(o, add);
  weightQuality(o, add, modelType);
  optimizerQuality(o, add);
  attentionQuality(o, add, modelType);
  // https://docs.vllm.ai/en/latest/features/quantization/quantized_kvcache/ (fp8 KV: "only minimally degrades")
  if (o.kvCacheDtype === 'fp8')
    add('fp8 KV cache', 'near', 'an FP8 KV cache only minimally degrades accuracy', FP8_KV);
  // torchao's float8 training README: torchtitan Llama 3 pretraining at 8 to 2K GPUs keeps bf16's loss curve
  // ("virtually identical" for MXFP8; rowwise "comparable numerics"); the matmuls still round to 8 bits.
  if (o.compute === 'fp8' || o.compute === 'mxfp8')
    add(
      `${o.compute} training`,
      'near',
      "the linears' matmuls in 8 bits with dynamic scaling keep bf16's loss curves in torchao's runs",
      FP8_TRAINING,
    );
  items.sort((a, b) => RANK[b.tier] - RANK[a.tier]);
  return { tier: items[0]?.tier ?? 'exact', items };
}
