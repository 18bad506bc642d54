/** What torchtitan runs beyond what vramplan writes for it (runs.ts): sequences past the HF config's positions. */
import type { EstimateOptions } from '../../../schema/estimate.js';
import type { EngineRuns, RunsSet } from '../runs.js';
import { TITAN_HF_BACKEND, TITAN_HF_BACKEND_SOURCE } from './architectures.js';

const T =
  'https://github.com/pytorch/torchtitan/blob/b5bcd76c66d0acb1a08b176d9639425bc55e0b2a/torchtitan';

// The 0.3.0 release (its PyPI wheel read) for what it runs beyond what vramplan writes.
const R = 'https://github.com/pytorch/torchtitan/blob/v0.3.0/torchtitan';

/**
 * The 0.3.0 wheel's optimizer container: OptimizersContainer._resolve_optimizer_factory builds "Adam", "AdamW" and
 * "DistMuon" and raises NotImplementedError(f"Optimizer {name} not added.") for any other name (lines 141-151). It
 * steps after backward only: OptimizersInBackwardContainer (optimizer.early_step_in_backward) left torchtitan in
 * pytorch/torchtitan#3269 (632f67f1, 2026-06-04), before 0.3.0; the wheel has no optimizer-in-backward.
 */
const OPTIMIZER =
  'https://pypi.org/project/torchtitan/0.3.0/ (wheel) torchtitan/components/optimizer/optimizer.py';

/**
 * A ZeRO stage other than 3: torchtitan wraps every model in FSDP2 whatever the degrees (apply_fsdp_to_decoder in
 * models/llama3/parallelize.py; a replicate degree with a shard degree of 1 is its DDP, config/configs.py), so
 * its replicated and reshard-never layouts hold fp32 shards beside bf16 unsharded copies: neither the DDP nor the
 * DeepSpeed layout the ZeRO-0/2 estimates model.
 */
function zeroRefusal(o: EstimateOptions, set: RunsSet | 'other'): string | null {
  if (set !== 'parallel' || o.zero === 3) return null;
  return `--zero: got ${o.zero}; expected 3: torchtitan wraps the model in FSDP2 at any degree (apply_fsdp_to_decoder, ${R}/models/llama3/parallelize.py); its DDP (data_parallel_replicate_degree with data_parallel_shard_degree 1) and fsdp_reshard_after_forward "never" (${R}/config/configs.py) keep FSDP2's fp32 shards beside bf16 unsharded copies, a layout the ZeRO-0/2 estimates (DDP, DeepSpeed) do not model: estimate --zero 3`;
}

/** torchtitan 0.3.0's FP8 converters check the GPU before they swap the linears (the 0.3.0 wheel). */
const TITAN_QUANT =
  'https://pypi.org/project/torchtitan/0.3.0/ (wheel) torchtitan/components/quantization';
const TITAN_FLOAT8_CHECK = {
  fp8: `${TITAN_QUANT}/float8.py:85-96 (has_cuda_capability(8, 9) or has_rocm_capability(9, 4), else "float8 is only supported on NVIDIA SM89 or later, or AMD gfx942 (MI300) or later")`,
  mxfp8: `${TITAN_QUANT}/mx.py:70-71 (has_cuda_capability(10, 0), else "MXFP8 is only supported on SM100 or later architectures")`,
};

export const TORCHTITAN_RUNS: EngineRuns = {
  refusal: zeroRefusal,
  float8Check: TITAN_FLOAT8_CHECK,
  // No module of the torchtitan 0.3.0 wheel imports liger_kernel; its fused kernels are its own (overrides/).
  noLiger: `torchtitan 0.3.0 has no Liger integration: its JobConfig (${R}/config/configs.py) has no Liger option and its fused kernels are its own (${R}/overrides/fused_swiglu.py)`,
  // A model_type torchtitan has no model of its own for, trained through its HF modeling backend (architectures.ts).
  estimatedAs: (arch) =>
    TITAN_HF_BACKEND.includes(arch.modelType)
      ? `torchtitan 0.3.0 trains model_type '${arch.modelType}' through experiments/transformers_modeling_backend (the transformers modules, attention on FlexAttention, MoE blocks swapped to torchtitan's grouped experts, under FSDP2; ${TITAN_HF_BACKEND_SOURCE}): estimated as torchtitan's own models run, which its README says reach a higher MFU than the HF modeling, so the time is a lower bound`
      : null,
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
    optimizers: `${OPTIMIZER}:141-151 (_resolve_optimizer_factory builds Adam, AdamW and DistMuon, and raises NotImplementedError for any other name)`,
    optimizerInBackward: `${OPTIMIZER}: OptimizersContainer steps after backward; OptimizersInBackwardContainer (early_step_in_backward) was removed in pytorch/torchtitan#3269, before 0.3.0`,
    other: `${T}/train.py`,
  },
  // LoRAConverter after Float8LinearConverter/MXFP8LinearConverter: _get_lora_cls(cfg._owner) subclasses the FP8
  // linear, whose frozen weight stays in training.dtype (bf16 under FSDP2 mixed precision) and is cast to 8 bits
  // per call with dynamic scales (no amax buffers); lora_a/lora_b are plain Linear (bf16). torchao's backward
  // computes grad_weight for the frozen base too (time/float8.ts).
  float8Lora: `LoRA over FP8 linears as torchtitan runs it (LoRAConverter after Float8LinearConverter: components/lora.py _get_lora_cls subclasses Float8Linear, as models/llama3/config_registry.py llama3_debugmodel_float8_emulate_lora does, ${R}): the frozen base stays fp32-sharded and bf16-gathered, cast to 8 bits per forward and backward with dynamic scales (no amax buffers), the adapters train in bf16; its matmuls run at the 8-bit rate, its weight gradient included (torchao 0.18.0 float8/float8_linear.py computes grad_weight whether or not the weight trains; autograd drops it). Approximate: memory is the bf16 LoRA estimate (the transient 8-bit copies and the dropped bf16 weight gradient of one linear are not added); the adapter matmuls stay at the 16-bit rate; estimate only (the torchtitan launcher writes full fine-tunes)`,
  // ModelArgs.update_from_config sets max_seq_len to training.seq_len (a warning past the original maximum) and
  // precomputes RoPE for it: torchtitan builds its own model, not the HF config's.
  extendsContext: `torchtitan sizes RoPE to training.seq_len itself (${T}/models/llama3/model/args.py update_from_config)`,
};
