/** LitGPT's behaviour rules at v0.5.13 and the mappings they read (profile data: the planner and `launch` check them). */
import type { EstimateOptions, Optimizer } from '../../../schema/estimate.js';
import { isAdapter } from '../../launch/common.js';
import type { Rule } from '../rules.js';
import { LITGPT_ARCH_RULE } from './architectures.js';

export const LITGPT_VERSION = '0.5.13';
export const COMMIT = '26857050fe3ff627cd714fe92f5838f51a3d5efa';
export const LITGPT = `https://github.com/Lightning-AI/litgpt/blob/${COMMIT}`;
// lightning 2.6.5 (tag commit be98784a1a03581b7051a355ae1084fd352d7cea, 2026-05-27).
export const LIGHTNING =
  'https://github.com/Lightning-AI/pytorch-lightning/blob/be98784a1a03581b7051a355ae1084fd352d7cea';

/**
 * Versions the files are written for. litgpt 0.5.13 declares torch>=2.7, lightning>=2.6.1 and, in [extra]
 * (Alpaca's requests, sentencepiece tokenizers), bitsandbytes>=0.45.2,<0.50 on Linux (pyproject.toml at
 * 26857050); its GPU CI runs torch==2.8.0 (.lightning/workflows/tests.yaml TORCH_VERSION at 26857050);
 * lightning 2.6.5 is the newest release before litgpt 0.5.13 and tests torch <2.10
 * (requirements/fabric/base.txt at be98784); bitsandbytes 0.49.2 (tag f0e6ca3, 2026-02-16) is the newest
 * below litgpt's <0.50 bound.
 */
/** The torch LitGPT's launch folder pins (its GPU CI's TORCH_VERSION, above). */
export const LITGPT_TORCH = '2.8.0';
export const LITGPT_PINS = [
  `litgpt[extra]==${LITGPT_VERSION}`,
  `torch==${LITGPT_TORCH}`,
  'lightning==2.6.5',
  'bitsandbytes==0.49.2',
] as const;

export const QUANTIZE: Partial<Record<EstimateOptions['weights'], string>> = {
  // finetune/lora.py L53: quantize Literal["bnb.nf4", "bnb.nf4-dq", "bnb.fp4", "bnb.fp4-dq", "bnb.int8-training"].
  nf4: 'bnb.nf4',
  fp4: 'bnb.fp4',
  int8: 'bnb.int8-training',
};
export const quantized = (o: EstimateOptions): boolean => QUANTIZE[o.weights] !== undefined;

/** The `quantize:` value of the plan (double quantization = the -dq modes), or null for float weights. */
export function litgptQuantize(o: EstimateOptions): string | null {
  const q = QUANTIZE[o.weights];
  if (!q) return null;
  return o.doubleQuant && o.weights !== 'int8' ? `${q}-dq` : q;
}

/**
 * Fabric precision for the plan (lora.py L89 docstring: "bf16-true", "bf16-mixed", "32-true"; Fabric also takes
 * "16-true"/"16-mixed"): float weights in the compute dtype = "-true"; fp32 weights under 16-bit compute =
 * "-mixed" (autocast over fp32 parameters). Quantized runs take the compute dtype's "-true" (lora.py L148).
 */
export function litgptPrecision(o: EstimateOptions): string | null {
  const c = o.compute === 'bf16' ? 'bf16' : o.compute === 'fp16' ? '16' : '32';
  if (quantized(o) || o.weights === o.compute) return `${c}-true`;
  if (o.weights === 'fp32' && c !== '32') return `${c}-mixed`;
  return null;
}

/**
 * Optimizer class paths; instantiate_torch_optimizer imports `class_path` and passes `init_args`
 * (utils.py L636-668 at 26857050). With --quantize the class is replaced (rule litgpt-quantize-paged-adamw).
 */
export const OPTIM: Partial<Record<Optimizer, { class_path: string; momentum?: number }>> = {
  adamw: { class_path: 'torch.optim.AdamW' },
  'adamw-8bit': { class_path: 'bitsandbytes.optim.AdamW8bit' },
  'paged-adamw': { class_path: 'bitsandbytes.optim.PagedAdamW' },
  'paged-adamw-8bit': { class_path: 'bitsandbytes.optim.PagedAdamW8bit' },
  sgd: { class_path: 'torch.optim.SGD', momentum: 0 },
  'sgd-momentum': { class_path: 'torch.optim.SGD', momentum: 0.9 },
};

export const MLP = ['gate', 'up', 'down'] as const;
export const hasMlp = (o: EstimateOptions) => MLP.filter((t) => o.loraTargets.includes(t)).length;
export const src = (path: string, lines: string) => `${LITGPT}/${path}#${lines}`;
export const V = `==${LITGPT_VERSION}`;

/** LitGPT's behaviour at v0.5.13, read in its source (each `source` a line range at commit 26857050). */
export const LITGPT_RULES: readonly Rule[] = [
  LITGPT_ARCH_RULE,
  {
    id: 'litgpt-quantize-one-device',
    says: 'LitGPT quantizes (--quantize) on one GPU only: finetune_lora raises NotImplementedError when devices x num_nodes > 1',
    library: 'litgpt',
    versions: V,
    source: src('litgpt/finetune/lora.py', 'L152-L157'),
    effect: 'forbid',
    applies: (x) => quantized(x.options) && x.options.gpus > 1,
  },
  {
    id: 'litgpt-int8-needs-fp16',
    says: "bnb.int8-training runs only with precision 16-true: Lightning's BitsandbytesPrecision raises ValueError for an int8 mode whose dtype is not float16",
    library: 'lightning',
    versions: '==2.6.5',
    source: `${LIGHTNING}/src/lightning/fabric/plugins/precision/bitsandbytes.py#L87-L88`,
    effect: 'forbid',
    applies: (x) => x.options.weights === 'int8' && x.options.compute !== 'fp16',
  },
  {
    id: 'litgpt-quantize-paged-adamw',
    says: 'With --quantize LitGPT steps bitsandbytes PagedAdamW (32-bit states) whatever optimizer the config names, and raises ValueError for a non-AdamW one: plan paged-adamw',
    library: 'litgpt',
    versions: V,
    source: src('litgpt/utils.py', 'L619-L633'),
    effect: 'forbid',
    // Training only: generate/chat/serve build no optimizer.
    applies: (x) =>
      x.options.method !== 'inference' &&
      quantized(x.options) &&
      x.options.optimizer !== 'paged-adamw',
  },
  {
    id: 'litgpt-multi-gpu-full-shard',
    says: 'On more than one GPU LitGPT always shards parameters, gradients and optimizer states (finetune_full: FSDPStrategy FULL_SHARD; finetune_lora: FSDP2 fully_shard), with no switch: plan ZeRO-3',
    library: 'litgpt',
    versions: V,
    source: src('litgpt/finetune/full.py', 'L107-L116'),
    effect: 'forbid',
    applies: (x) => x.options.gpus > 1 && x.options.zero !== 3,
  },
  {
    id: 'litgpt-multi-gpu-checkpointing',
    says: 'On more than one GPU LitGPT checkpoints every transformer Block (FSDPStrategy activation_checkpointing_policy={Block}; lora.py parallelize_fn activation_checkpointing=True), with no switch: plan full checkpointing',
    library: 'litgpt',
    versions: V,
    source: src('litgpt/finetune/lora.py', 'L522-L529'),
    effect: 'forbid',
    applies: (x) => x.options.gpus > 1 && x.options.checkpointing !== 'full',
  },
  {
    id: 'litgpt-one-gpu-no-checkpointing',
    says: "On one GPU LitGPT runs strategy='auto' with no activation checkpointing and no switch for it: plan checkpointing none",
    library: 'litgpt',
    versions: V,
    source: src('litgpt/finetune/full.py', 'L115-L116'),
    effect: 'forbid',
    applies: (x) => x.options.gpus === 1 && x.options.checkpointing !== 'none',
  },
  {
    id: 'litgpt-lora-mlp-together',
    says: 'LitGPT lora_mlp adapts every MLP projection (fc_1, fc_2, proj; MoE router and experts) together: plan gate, up and down all or none',
    library: 'litgpt',
    versions: V,
    source: src('litgpt/lora.py', 'L575-L620'),
    effect: 'forbid',
    applies: (x) => isAdapter(x.options) && hasMlp(x.options) % 3 !== 0,
  },
  {
    id: 'litgpt-no-embedding-lora',
    says: 'LitGPT LoRA puts no adapter on the token embedding (transformer.wte is a plain nn.Embedding)',
    library: 'litgpt',
    versions: V,
    source: src('litgpt/lora.py', 'L498'),
    effect: 'forbid',
    applies: (x) => isAdapter(x.options) && x.options.loraTargets.includes('embed'),
  },
  {
    id: 'litgpt-full-unchunked-head',
    says: 'finetune_full projects the whole lm_head at once (logits = model(input_ids)) and has no chunked-loss switch',
    library: 'litgpt',
    versions: V,
    source: src('litgpt/finetune/full.py', 'L282-L284'),
    effect: 'forbid',
    applies: (x) => x.options.method === 'full' && x.options.chunkedLoss,
  },
  {
    id: 'litgpt-quantize-true-precision',
    says: "LitGPT rejects --quantize with a mixed precision (ValueError) and defaults to bf16-mixed where bf16 runs: the launcher writes the compute dtype's -true precision",
    library: 'litgpt',
    versions: V,
    source: src('litgpt/finetune/lora.py', 'L140-L150'),
    effect: 'change',
    applies: (x) => quantized(x.options),
  },
  {
    id: 'litgpt-no-grad-clipping',
    says: "LitGPT fine-tuning rejects train.max_norm (validate_args raises ValueError): the launcher leaves gradient clipping off, not the planner's max-norm 1.0",
    library: 'litgpt',
    versions: V,
    source: src('litgpt/finetune/lora.py', 'L563-L566'),
    effect: 'change',
    applies: (x) => x.options.method !== 'inference',
  },
];
