/** What LitGPT 0.5.13 runs beyond what vramplan writes for it (runs.ts): generate, chat and serve; any --attention. */
import type { EngineRuns } from '../runs.js';
import { LITGPT_PROFILE } from './profile.js';

const L =
  'https://github.com/Lightning-AI/litgpt/blob/26857050fe3ff627cd714fe92f5838f51a3d5efa/litgpt';

export const LITGPT_RUNS: EngineRuns = {
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
    weights: `${L}/utils.py`,
    parallel: `${L}/finetune/full.py`,
    checkpointing: `${L}/finetune/full.py`,
    optimizers: `${L}/utils.py`,
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
