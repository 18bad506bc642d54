/** What torchtitan runs beyond what vramplan writes for it (runs.ts): sequences past the HF config's positions. */
import type { EngineRuns } from '../runs.js';

const T =
  'https://github.com/pytorch/torchtitan/blob/b5bcd76c66d0acb1a08b176d9639425bc55e0b2a/torchtitan';

// The 0.3.0 release (its PyPI wheel read) for what it runs beyond what vramplan writes.
const R = 'https://github.com/pytorch/torchtitan/blob/v0.3.0/torchtitan';

export const TORCHTITAN_RUNS: EngineRuns = {
  // LoRA: model_registry(converters=[LoRAConverter.Config(rank, alpha, target_modules)]) freezes the base and
  // trains adapters (torchtitan 0.3.0 components/lora.py). Base weights in training.dtype: float32 (default) or
  // bfloat16, which "put all parameters, gradients, and optimizer states in bfloat16" (config/configs.py).
  widen: {
    methods: ['full', 'lora'],
    fullWeights: ['fp32', 'bf16'],
    baseWeights: ['fp32', 'bf16'],
    // GRPO: experiments/rl trains the policy with torchtitan (GRPOLoss: DAPO's clipped surrogate, no KL term, no
    // reference model) and generates with a vLLM LLMEngine on its own Monarch proc mesh (actors/generator.py):
    // the vllm-server layout; rules.ts keeps it there.
    objectives: ['sft', 'grpo'],
  },
  sources: {
    methods: `${R}/components/lora.py`,
    weights: `${R}/config/configs.py`,
    objectives: `${R}/experiments/rl/losses/grpo.py`,
    other: `${T}/train.py`,
  },
  // ModelArgs.update_from_config sets max_seq_len to training.seq_len (a warning past the original maximum) and
  // precomputes RoPE for it: torchtitan builds its own model, not the HF config's.
  extendsContext: `torchtitan sizes RoPE to training.seq_len itself (${T}/models/llama3/model/args.py update_from_config)`,
};
