/** The llama.cpp engine: what it runs, the defaults it applies, its rules (the planner's profile). */
import type { EngineProfile } from '../profile.js';
import { VLLM_PROFILE } from '../vllm/profile.js';
import { LLAMA_CPP_RULES } from './rules.js';
import { LOW_BIT_GGUF } from '../../model/gguf-mix.js';

export const LLAMA_CPP_PROFILE: EngineProfile = {
  ...VLLM_PROFILE,
  // llama-server mmaps the GGUF (--mmap, default on): page cache, not a held copy.
  hostLoading: { onePerNode: 'never', streamed: true },
  id: 'llama.cpp',
  framework: 'llama.cpp',
  // Runs on Apple GPUs: a macOS build enables Metal by default (launch.ts llamaServerSource; docs/build.md).
  notOnApple: undefined,
  // --split-mode layer (the default) spreads consecutive layers and their KV over the visible GPUs: a pipeline
  // without overlap for one sequence (common/arg.cpp at 145b6280); row split (tensor-parallel-like) not searched.
  tp: false,
  pp: true,
  tpExpertParallel: undefined, // no expert parallelism (its memory profile's expertParallel is false)
  // GGUF files only (convert_hf_to_gguf.py + llama-quantize); f16 GGUF is the 16-bit case. MXFP4: the GGUF of a
  // checkpoint that ships MXFP4 experts (gpt-oss; convert_hf_to_gguf.py GptOssModel.repack_mxfp4 writes them as
  // GGML_TYPE_MXFP4), searched only there (plan/candidates.ts offers MXFP4 where the checkpoint ships it).
  // The low-bit mixes (Q2_K ... IQ3_M, core/model/gguf-mix.ts) load in the same llama-server line; the planner offers
  // them only where a scenario names them (plan/candidates.ts searches q4_k_m and q8_0, and a GGUF type a published
  // checkpoint holds). Q4_0 (block_q4_0, ggml/src/ggml-common.h) loads the same way: Google's QAT Gemma 3 GGUFs ship in it.
  baseWeights: [
    'fp16',
    'bf16',
    'q4_0',
    'q4_k_m',
    'q5_k_m',
    'q6_k',
    'q8_0',
    'mxfp4',
    ...LOW_BIT_GGUF,
  ],
  attention: ['flash', 'sdpa'],
  defaults: [
    {
      flag: 'pp',
      why: 'llama-server splits consecutive layers and their KV over every GPU it sees (--split-mode layer, the default)',
      // common/arg.cpp at 145b6280: split_mode defaults to LLAMA_SPLIT_MODE_LAYER over the visible devices.
      apply: (o) => {
        if (o.gpus > 1 && o.tp === 1 && o.pp === 1) o.pp = o.gpus;
      },
    },
  ],
  rules: LLAMA_CPP_RULES,
  docs: ['https://github.com/ggml-org/llama.cpp/blob/master/tools/server/README.md'],
};
