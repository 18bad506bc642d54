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

/** The transformers release the launch folders pin, read in its PyPI wheel for line numbers. */
const TF_WHEEL = 'https://pypi.org/project/transformers/5.14.1/ (wheel) transformers';

/** The model_types transformers 5.14.1 reads a GGUF file of (GGUF_SUPPORTED_ARCHITECTURES, see below). */
const GGUF_MODEL_TYPES =
  'llama mistral qwen2 qwen2_moe qwen3 qwen3_moe gpt_oss lfm2 falcon phi3 bloom t5 stablelm gpt2 starcoder2 mamba nemotron gemma2 gemma3 gemma3_text gemma4 umt5 minimax_m2'.split(
    ' ',
  );

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
  // from_pretrained(repo, gguf_file=...): dtype "auto" finds no dtype in a config read from GGUF metadata and takes
  // float32 for a .gguf checkpoint (modeling_utils.py:862-863); load_gguf_checkpoint then dequantizes every tensor
  // on the host (gguf.dequantize to a numpy array) and casts it to that dtype (modeling_gguf_pytorch_utils.py:790-811,
  // called at modeling_utils.py:4374-4384), so the GPU holds the float model and generate runs plain float kernels.
  ggufDequantized: {
    dtype: 'fp32',
    // GGUF_SUPPORTED_ARCHITECTURES: the GGUF_CONFIG_MAPPING keys (integrations/ggml.py), as the HF model_types
    // they build; qwen2moe, qwen3moe, gpt-oss and minimax-m2 are renamed to these (modeling_gguf_pytorch_utils.py:629-636).
    modelTypes: GGUF_MODEL_TYPES,
    refuses: `transformers reads GGUF files of the architectures in GGUF_SUPPORTED_ARCHITECTURES only and raises ValueError("GGUF model with architecture {architecture} is not supported yet.") for the rest (${TF_WHEEL}/modeling_gguf_pytorch_utils.py:649-650, integrations/ggml.py GGUF_CONFIG_MAPPING): serve the safetensors checkpoint (--weights bf16) or the GGUF file with llama.cpp`,
    why: `transformers loads a GGUF file (from_pretrained gguf_file=...) by dequantizing every tensor on the host and building the model in float32, the dtype "auto" takes for a .gguf checkpoint (${TF_WHEEL}/modeling_utils.py:862-863, 4374-4384; modeling_gguf_pytorch_utils.py:790-811); from_pretrained(dtype=torch.bfloat16) halves the weights: estimate --weights bf16`,
  },
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
