/**
 * What the hf-generate engine runs beyond what vramplan writes for it (runs.ts): GenerationMixin.generate, no
 * training entry point. transformers 5.14.1 also loads a model over several GPUs (from_pretrained tp_plan="auto"
 * under torchrun: tensor parallel; device_map="auto": consecutive layers per GPU, a pipeline without overlap) and
 * gpt-oss's MXFP4 checkpoints (quantizers/quantizer_mxfp4.py) and NVFP4 through FP-Quant on Blackwell GPUs
 * (quantizers/quantizer_fp_quant.py); vramplan writes none of them.
 */
import type { EstimateOptions } from '../../../schema/estimate.js';
import type { EngineRuns, RunsSet } from '../runs.js';
import { HF_GENERATE_PROFILE } from './profile.js';

const H =
  'https://github.com/huggingface/transformers/blob/001002320fa01a489bb9b93976a7e4cd1a46291c/src/transformers';

/** How transformers spreads one model over `--tp` or `--pp` GPUs, with its source. */
function hfGenerateParallel(o: EstimateOptions): string | null {
  if (o.tp > 1)
    return `--tp ${o.tp} on hf-generate is from_pretrained(tp_plan="auto") under torchrun --nproc-per-node ${o.tp}: the model's base_model_tp_plan shards its linears (${H}/integrations/tensor_parallel.py initialize_tensor_parallelism); vramplan writes no launch files for it`;
  if (o.pp > 1)
    return `--pp ${o.pp} on hf-generate is from_pretrained(device_map="auto"): Accelerate places consecutive layers on each GPU and runs them one after another (${H}/modeling_utils.py from_pretrained device_map); vramplan writes no launch files for it`;
  return null;
}

/** Multi-LoRA serving on transformers: one adapter set for the whole batch, with its source. */
function hfGenerateRefusal(o: EstimateOptions, set: RunsSet | 'other'): string | null {
  if (set !== 'other' || o.maxLoras === undefined || o.maxLoras === 1) return null;
  return `--max-loras: got ${o.maxLoras}; expected 1 on hf-generate: transformers generate runs the adapters set_adapter makes active on every sequence of the batch, one set for all (PeftAdapterMixin.set_adapter, ${H}/integrations/peft.py); per-request adapters are PEFT's mixed-batch inference (PeftModel.generate adapter_names), outside transformers: estimate one adapter (--max-loras 1, unmerged) or none (merged into the weights), or serve several with vllm, sglang or llama.cpp`;
}

export const HF_GENERATE_RUNS: EngineRuns = {
  // MXFP4 runs through the gpt-oss Triton kernels (kernels-community/gpt-oss-triton-kernels) on compute
  // capability 7.5 and above with triton and kernels installed; otherwise the quantizer dequantizes to bf16
  // (quantizer_mxfp4.py validate_environment), which --weights bf16 estimates. NVFP4 runs through FP-Quant
  // (FPQuantConfig(forward_dtype="nvfp4"), quantizer_fp_quant.py): real quantization with QuTLASS's GEMMs on
  // Blackwell GPUs, the checkpoint's bf16 linears quantized as they load (FP-Quant keeps lm_head 16-bit).
  widen: {
    tp: true,
    pp: true,
    baseWeights: [...HF_GENERATE_PROFILE.baseWeights, 'mxfp4', 'nvfp4'],
  },
  refusal: hfGenerateRefusal,
  sources: {
    methods: `${H}/generation/utils.py`,
    weights: `${H}/quantizers/auto.py`,
    attention: `${H}/modeling_utils.py`,
    parallel: `${H}/integrations/tensor_parallel.py`,
    other: `${H}/generation/utils.py`,
  },
  parallelNote: hfGenerateParallel,
  limits: {
    tp: `transformers' tp_plan shards q_proj, k_proj and v_proj colwise into equal slices, which each attention layer reshapes into whole heads (${H}/integrations/tensor_parallel.py)`,
    // Past it MaxLengthCriteria only warns for rotary models, while learned position tables index out of range:
    // vramplan keeps the config's length, as generate's own default does.
    seq: `transformers' generate caps its default max_length at max_position_embeddings (${H}/generation/utils.py _prepare_generated_length)`,
  },
};
