/** What LitGPT 0.5.13 runs beyond what vramplan writes for it (runs.ts): generate, chat and serve; any --attention. */
import type { EstimateOptions } from '../../../schema/estimate.js';
import { refusesShardedQuantized } from '../profile.js';
import type { EngineRuns, RunsSet } from '../runs.js';
import { LITGPT_PROFILE } from './profile.js';

const L =
  'https://github.com/Lightning-AI/litgpt/blob/26857050fe3ff627cd714fe92f5838f51a3d5efa/litgpt';

/** A quantized base over more than one GPU: finetune/lora.py raises before it builds the strategy. */
function shardedQuantized(o: EstimateOptions, set: RunsSet | 'other'): string | null {
  const dp = o.gpus / (o.tp * o.pp * o.cp);
  if (set !== 'other' || !refusesShardedQuantized(LITGPT_PROFILE, o, dp)) return null;
  return `--weights: got ${o.weights} over ${o.gpus} GPUs; LitGPT 0.5.13 quantizes on one device only: finetune/lora.py raises NotImplementedError("Quantization is currently not supported for multi-GPU training. Please set devices=1 and num_nodes=1 when using the --quantize flag.") when devices * num_nodes > 1 (${L}/finetune/lora.py#L152-L157): estimate --gpus 1, or --weights bf16`;
}

const LIGHTNING_WHEEL = 'https://pypi.org/project/lightning/2.6.5/ (wheel) lightning/fabric';

/**
 * FP8 training: LitGPT has no FP8 switch of its own, and the one Fabric offers through --precision fails in its
 * recipes. Fabric maps --precision transformer-engine to TransformerEnginePrecision (connector.py:477-480), which
 * swaps each nn.Linear for te.Linear as the model is set up (plugins/precision/transformer_engine.py:95-105) and
 * runs TE's DelayedScaling (tensorwise) recipe; te.Linear defines set_extra_state (transformer_engine 2.20.2
 * pytorch/module/base.py:1419), so torch's strict load_state_dict reports its `_extra_state` keys missing from
 * lit_model.pth, and finetune_full loads with strict=True after the swap (full.py L158, L170; utils.py L383-L398).
 * FSDPPrecision takes no transformer-engine precision (plugins/precision/fsdp.py:34, :54-59). finetune_lora loads
 * with strict=False, but sets up the model after mark_only_lora_as_trainable (lora.py L212, L217): the swapped
 * te.Linear weights are new parameters that train, a full fine-tune of the linears beside the adapters.
 */
const LITGPT_FLOAT8 = `LitGPT 0.5.13 trains in no FP8 recipe: --precision transformer-engine is Fabric's TransformerEnginePrecision (${LIGHTNING_WHEEL}/connector.py:477-480: te.Linear layers, TE's DelayedScaling, no MXFP8 recipe), and finetune_full's strict checkpoint load after the swap raises on te.Linear's missing _extra_state keys (${L}/finetune/full.py#L158-L170, ${L}/utils.py#L383-L398; transformer_engine 2.20.2 pytorch/module/base.py:1419 set_extra_state); over several GPUs FSDPPrecision raises ValueError for it (${LIGHTNING_WHEEL}/plugins/precision/fsdp.py:54-59); finetune_lora swaps the linears after freezing them (${L}/finetune/lora.py#L212-L217), so the base weights train`;

export const LITGPT_RUNS: EngineRuns = {
  // No module of the litgpt 0.5.13 wheel imports liger_kernel.
  noLiger: `LitGPT 0.5.13 has no Liger integration: litgpt finetune's setup arguments (${L}/finetune/full.py, ${L}/finetune/lora.py) have no Liger option and its model is its own GPT module (${L}/model.py), which Liger's transformers patches do not reach`,
  refusal: shardedQuantized,
  // `litgpt generate` (generate/base.py), `litgpt chat` (chat/base.py), `litgpt serve` (deploy/serve.py): one
  // model with a KV cache, in --precision and --quantize bnb.nf4 / bnb.nf4-dq / bnb.fp4 / bnb.int8.
  widen: {
    methods: [...LITGPT_PROFILE.methods, 'inference'],
    // --optimizer takes a class path (utils.py instantiate_torch_optimizer: "module.Class", else torch.optim):
    // torch.optim.Adafactor (factored second moments, torch >= 2.5) and bitsandbytes.optim.Lion; vramplan maps
    // neither in its launcher. Adam-mini's class takes named parameters, which LitGPT never passes.
    optimizers: [...LITGPT_PROFILE.optimizers, 'none', 'adafactor', 'lion'],
  },
  sources: {
    methods: `${L}/generate/base.py`,
    // The CLI's commands (PARSER_DATA): finetune_lora, finetune_full, finetune_adapter(_v2) and pretrain, all
    // next-token cross-entropy; no preference or RL objective.
    objectives: `${L}/__main__.py#L33-L56`,
    weights: `${L}/utils.py`,
    parallel: `${L}/finetune/full.py`,
    checkpointing: `${L}/finetune/full.py`,
    optimizers: `${L}/utils.py`,
    float8: LITGPT_FLOAT8,
    other: `${L}/model.py`,
  },
  // finetune_full calls model(input_ids) for the whole lm_head and the plain loss; nothing chunks it there.
  // finetune_lora calls model(input_ids, lm_head_chunk_size=128) and chunked_cross_entropy, with no switch.
  loss: {
    chunked: (o) => o.method !== 'full',
    why: `LitGPT has no chunked-loss switch: finetune_lora applies lm_head in 128-token chunks and the loss chunk by chunk (${L}/finetune/lora.py#L355), finetune_full projects the whole lm_head at once (${L}/finetune/full.py)`,
  },
  attention: {
    map: { flash: 'sdpa', eager: 'sdpa' },
    why: `LitGPT has no attention switch: CausalSelfAttention calls F.scaled_dot_product_attention, which runs FlashAttention through its flash backend where the GPU and dtype allow (${L}/model.py)`,
  },
};
