/** The torchtitan engine: what it runs, the defaults it applies, its rules (the planner's profile). */
import { ATTENTION } from '../../../schema/estimate.js';
import type { EngineProfile, LoraRecipe } from '../profile.js';
import { TORCHTITAN_RULES } from './rules.js';

// LoRAConverter.Config target_modules None: "every Linear.Config is converted", the output head included
// (torchtitan 0.3.0 components/lora.py; models/common/decoder.py lm_head: Linear.Config).
const TORCHTITAN_LORA: LoraRecipe = {
  allLinear: false,
  targets: ['q', 'k', 'v', 'o', 'gate', 'up', 'down', 'lm_head'],
  source: 'torchtitan 0.3.0 components/lora.py',
};

/** The torch torchtitan 0.3.0's launch folder pins (launch.ts TORCHTITAN_PINS). */
export const TORCHTITAN_TORCH = '2.15.0';

export const TORCHTITAN_PROFILE: EngineProfile = {
  id: 'torchtitan',
  framework: 'torchtitan',
  torch: TORCHTITAN_TORCH,
  methods: ['full'],
  objectives: ['sft'],
  maxDp: Infinity,
  // training.mixed_precision_param takes "bfloat16" or "float32" only (rule torchtitan-no-fp16, config/configs.py
  // L94): a GPU without bf16 gets no fp16 fallback on torchtitan (plan/loop.ts hardwareGate).
  fp16: false,
  // torchtitan's TP plan: SequenceParallel on the norms, loss_parallel on unless disabled
  // (https://github.com/pytorch/torchtitan: JobConfig parallelism.disable_loss_parallel = false).
  tpShardsNormsAndLoss: true,
  // Every 0.3.0 recipe builds loss=ChunkedLossWrapper.Config (num_chunks 8) around CrossEntropyLoss; only the
  // debug recipe llama3_debugmodel_ce_loss runs the plain loss (models/llama3/config_registry.py).
  chunkedLossByDefault:
    'torchtitan 0.3.0 recipes wrap the loss in ChunkedLossWrapper (components/loss.py; models/*/config_registry.py)',
  tp: true,
  pp: true,
  cp: true,
  // parallelism.expert_parallel_degree: routed experts sharded whole over an ep mesh borrowed from dp_shard x cp x tp
  // (torchtitan config/configs.py ParallelismConfig, distributed/parallel_dims.py at b5bcd76c).
  ep: true,
  // FSDP2 over the data-parallel shard dimension; mixed precision (bf16 compute over fp32 shards) only under FSDP.
  zero: [3],
  offload: { 'optimizer+params': [3] }, // training.enable_cpu_offload
  fullWeights: ['fp32'],
  baseWeights: [],
  shardedQuantized: [],
  optimizers: ['adamw'],
  offloadOptimizers: ['adamw'],
  bnbOptimizersSharded: false,
  optimizerInBackward: false,
  masterWeights: false,
  stochasticRounding: [],
  // model_registry(converters=[Float8LinearConverter / MXFP8LinearConverter]) (launch.ts float8Converter).
  float8: ['fp8', 'mxfp8'],
  // activation_checkpoint mode none/selective/full.
  checkpointing: ['none', 'selective', 'full'],
  // Meta-device init, then a sharded (DCP) load per rank.
  hostLoading: { onePerNode: 'always', streamed: false },
  attention: ATTENTION,
  loraTargets: TORCHTITAN_LORA,
  defaults: [
    {
      flag: 'rollout',
      why: 'GRPO (experiments/rl) generates with vLLM on GPUs of its own (actors/generator.py)',
      apply: (o) => {
        if (o.objective !== 'grpo' || o.rollout === 'vllm-server') return;
        o.rollout = 'vllm-server';
        o.rolloutGpus = 1;
      },
    },
    {
      flag: 'weights',
      why: 'fp32 sharded parameters under FSDP2 mixed precision (training.dtype float32, mixed_precision_param bfloat16)',
      apply: (o) => {
        if (o.method === 'full' || o.method === 'lora') o.weights = 'fp32';
      },
    },
    {
      flag: 'lora-targets',
      why: 'LoRAConverter converts every Linear, lm_head included',
      apply: (o) => {
        if (o.method === 'lora') {
          o.loraTargets = [...TORCHTITAN_LORA.targets];
          o.loraAllLinear = false;
        }
      },
    },
    {
      flag: 'lora-rank',
      why: 'LoRAConverter.Config rank defaults to 8 (torchtitan 0.3.0 components/lora.py)',
      apply: (o) => {
        if (o.method === 'lora') o.loraRank = 8;
      },
    },
    {
      flag: 'attention',
      // Rule torchtitan-no-sdpa-attention: the launcher writes attn_backend "flex" (memory-efficient, like flash).
      why: 'flex attention: no score matrix is kept',
      apply: (o) => {
        o.attention = 'flash';
      },
    },
  ],
  rules: TORCHTITAN_RULES,
  docs: [
    'https://github.com/pytorch/torchtitan/blob/main/docs/fsdp.md',
    'https://github.com/pytorch/torchtitan/blob/main/README.md',
  ],
};
