/** The litgpt engine: what it runs, the defaults it applies, its rules (the planner's profile). */
import { loraRecipeDefault, type EngineProfile, type LoraRecipe } from '../profile.js';
import { LIGHTNING, LITGPT, LITGPT_RULES, LITGPT_TORCH, quantized } from './rules.js';

/**
 * LitGPT's LoRA: finetune/lora.py setup() lora_query and lora_value True, lora_key, lora_projection, lora_mlp and
 * lora_head False, and its Llama / Mistral recipes alike (Lightning-AI/litgpt v0.5.13
 * config_hub/finetune/llama-3.1-8b/lora.yaml, qlora.yaml).
 */
const LITGPT_LORA: LoraRecipe = {
  allLinear: false,
  targets: ['q', 'v'],
  source: 'litgpt v0.5.13 finetune/lora.py, config_hub/finetune/llama-3.1-8b/lora.yaml',
};

export const LITGPT_PROFILE: EngineProfile = {
  id: 'litgpt',
  framework: 'litgpt',
  torch: LITGPT_TORCH,
  methods: ['full', 'lora', 'qlora'],
  objectives: ['sft'],
  maxDp: Infinity,
  fp16: true,
  tpShardsNormsAndLoss: false,
  tp: false,
  pp: false,
  cp: false,
  zero: [0, 3], // Fabric FSDPStrategy
  offload: {},
  fullWeights: ['bf16', 'fp16', 'fp32'], // --precision bf16-true / 16-true (GPUs without bf16) / bf16-mixed
  // --quantize bnb.int8-training (precision 16-true only) / bnb.nf4 / bnb.fp4 (finetune/lora.py L53 at v0.5.13).
  baseWeights: ['bf16', 'fp16', 'fp32', 'int8', 'nf4', 'fp4'],
  shardedQuantized: [], // quantization is single-device only
  // --quantize bnb.* runs through Lightning's BitsandbytesPrecision (finetune/lora.py L141-L149), which Fabric's
  // connector accepts on CUDAAccelerator only; bitsandbytes 0.49.2 itself has MPS-capable default ops.
  appleWeights: {
    fails: {
      weights: ['nf4', 'fp4', 'int8'],
      why: `--quantize bnb.* runs through Lightning's BitsandbytesPrecision (${LITGPT}/litgpt/finetune/lora.py), and lightning 2.6.5's Fabric raises "Bitsandbytes is only supported on CUDA GPUs." for it on any other accelerator (_check_and_init_precision, ${LIGHTNING}/src/lightning/fabric/connector.py); its layers also re-quantize each loaded weight on "cuda" only (src/lightning/fabric/plugins/precision/bitsandbytes.py quantize: device = device or torch.device("cuda"))`,
    },
  },
  optimizers: ['adamw', 'adamw-8bit', 'paged-adamw', 'paged-adamw-8bit', 'sgd', 'sgd-momentum'],
  offloadOptimizers: [],
  bnbOptimizersSharded: false,
  optimizerInBackward: false,
  masterWeights: false,
  stochasticRounding: [],
  // whole-block activation checkpointing only.
  checkpointing: ['none', 'full'],
  // CausalSelfAttention always calls F.scaled_dot_product_attention (flash kernels where PyTorch picks them); no
  // switch (litgpt/model.py L593 at v0.5.13, commit 26857050fe3ff627cd714fe92f5838f51a3d5efa).
  // Fabric initialises on the meta device and loads the checkpoint sharded per rank.
  hostLoading: { onePerNode: 'always', streamed: false },
  attention: ['sdpa'],
  loraTargets: LITGPT_LORA,
  defaults: [
    loraRecipeDefault(LITGPT_LORA),
    // On several GPUs LitGPT shards everything and checkpoints every Block, with no switch (rules
    // litgpt-multi-gpu-full-shard, litgpt-multi-gpu-checkpointing: finetune/full.py L107-L116, lora.py L522-L529).
    {
      flag: 'zero',
      why: 'on more than one GPU it always shards parameters, gradients and optimizer states (ZeRO-3)',
      apply: (o) => {
        if (o.gpus > 1) o.zero = 3;
      },
    },
    {
      flag: 'checkpointing',
      why: 'on more than one GPU it checkpoints every transformer Block',
      apply: (o) => {
        if (o.gpus > 1) o.checkpointing = 'full';
      },
    },
    {
      flag: 'attention',
      why: 'CausalSelfAttention calls F.scaled_dot_product_attention',
      apply: (o) => {
        o.attention = 'sdpa';
      },
    },
    {
      flag: 'checkpointing',
      // Rules litgpt-one-gpu-no-checkpointing / litgpt-multi-gpu-checkpointing.
      why: 'no switch: one GPU never checkpoints, several GPUs checkpoint every block',
      apply: (o) => {
        if (o.method !== 'inference') o.checkpointing = o.gpus > 1 ? 'full' : 'none';
      },
    },
    {
      flag: 'optimizer',
      // Rule litgpt-quantize-paged-adamw (litgpt/utils.py L619-L633 at 26857050).
      why: 'with --quantize LitGPT steps bitsandbytes PagedAdamW in place of the AdamW its configs name',
      apply: (o) => {
        if (o.method !== 'inference' && quantized(o)) o.optimizer = 'paged-adamw';
      },
    },
  ],
  rules: LITGPT_RULES,
  docs: [
    'https://github.com/Lightning-AI/litgpt/blob/main/tutorials/finetune.md',
    'https://github.com/Lightning-AI/litgpt/blob/main/tutorials/quantize.md',
  ],
};
