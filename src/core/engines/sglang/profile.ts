/** The sglang engine: what it runs, the defaults it applies, its rules (the planner's profile). */
import type { EngineProfile } from '../profile.js';
import { VLLM_PROFILE } from '../vllm/profile.js';
import { SGLANG_RULES } from './rules.js';

export const SGLANG_PROFILE: EngineProfile = {
  ...VLLM_PROFILE,
  // SGLang's Apple Metal guide: a source build with the MLX extras, not the PyPI wheel.
  notOnApple:
    'it runs on Apple silicon only as a source build with its MLX backend (pyproject_other.toml, uv pip install -e "python[all_mps]"), not the PyPI sglang wheel serve.sh installs, whose kernels (sglang-kernel) are CUDA builds (https://docs.sglang.io/docs/hardware-platforms/apple_metal; https://github.com/sgl-project/sglang/issues/19137: "SGLang has no support for Apple Silicon" before that roadmap)',
  // Streams safetensors from an mmap as vLLM does; each TP process reads the tensors it needs.
  hostLoading: { onePerNode: 'never', streamed: true },
  id: 'sglang',
  framework: 'sglang',
  // fp8/int8 W8A8, AWQ/GPTQ int4 (Marlin), MXFP4 (gpt-oss), NVFP4 (ModelOpt) checkpoints.
  baseWeights: ['bf16', 'fp16', 'fp8', 'int8', 'int4', 'mxfp4', 'nvfp4'],
  attention: ['flash', 'sdpa'],
  rules: SGLANG_RULES,
  // --tp N --ep-size N runs (ServerArgs.ep_size), but the planner offers TP + EP on vLLM only: SGLang's layout
  // (the Triton MoE's expert-id remap, extend-kernels.ts) was not read against its release here.
  tpExpertParallel: undefined,
  // On ROCm its prefill attention kernels (rocmPrefillAttention) were not read, where vLLM's are
  // (engines/sglang/memory.ts): its time there is short by what they cost.
  timeUnread: ['rocm'],
  docs: [
    'https://docs.sglang.ai/advanced_features/server_arguments.html',
    'https://docs.sglang.ai/advanced_features/quantization.html',
  ],
};
