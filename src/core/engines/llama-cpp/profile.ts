/** The llama.cpp engine: what it runs, the defaults it applies, its rules (the planner's profile). */
import type { EngineProfile } from '../profile.js';
import { VLLM_PROFILE } from '../vllm/profile.js';
import { LLAMA_CPP_RULES } from './rules.js';

export const LLAMA_CPP_PROFILE: EngineProfile = {
  ...VLLM_PROFILE,
  id: 'llama.cpp',
  framework: 'llama.cpp',
  // One llama-server per GPU here (its layer split over several GPUs is not written by vramplan).
  tp: false,
  pp: false,
  // GGUF files only (convert_hf_to_gguf.py + llama-quantize); f16 GGUF is the 16-bit case.
  baseWeights: ['fp16', 'bf16', 'q4_k_m', 'q5_k_m', 'q6_k', 'q8_0'],
  attention: ['flash', 'sdpa'],
  rules: LLAMA_CPP_RULES,
  docs: ['https://github.com/ggml-org/llama.cpp/blob/master/tools/server/README.md'],
};
