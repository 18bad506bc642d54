/** Which model_types this engine runs at its pinned release (engines/architectures.ts reads it through the def). */
import {
  architectureRule,
  refused,
  HF_CAUSAL,
  REMOTE_CODE,
  VLM_WRAPPERS,
  type ArchitectureTable,
} from '../architectures.js';

// gpt_neo, deepseek_v32: gguf-py's MODEL_ARCH (gguf 0.19.0 gguf/constants.py) names no GPT-Neo architecture and
// no DeepSeek-V3.2 one (its deepseek2 tensors carry no indexer; glm-dsa's do); it names APERTUS, ARCEE, JAIS2,
// NEMOTRON, MPT, GEMMA3N, GEMMA4 and GLM_DSA. What llama-server cannot generate with, and why (the table's `refuses`):
const LLAMA_CPP_REFUSES = {
  ...refused(
    'convert_hf_to_gguf.py converts it, but llama-server does not generate with an encoder-decoder or an embedding-only model',
    't5',
    'mt5',
    'bert',
  ),
  ...refused(
    'convert_hf_to_gguf.py registers no converter for it',
    'opt',
    'gptj',
    'mllama',
    'llava_next',
    'gpt_neo',
    'deepseek_v32',
  ),
  // gguf 0.19.0 gguf/constants.py MODEL_ARCH names MAMBA and MAMBA2 (Falcon-Mamba converts as MAMBA) and
  // MINIMAXM2, but no MiniMax-Text-01 / M1 architecture: no lightning-attention tensors.
  ...refused(
    'gguf-py names no MiniMax-Text-01 / MiniMax-M1 architecture (gguf 0.19.0 gguf/constants.py MODEL_ARCH has MINIMAXM2 only), so convert_hf_to_gguf.py registers no converter for it',
    'minimax',
    'minimax_text_01',
    'minimax_m1',
  ),
  ...refused(
    'gguf-py names no LongCat-Flash architecture (gguf 0.19.0 gguf/constants.py MODEL_ARCH), so convert_hf_to_gguf.py registers no converter for it',
    'longcat_flash',
  ),
  ...refused(
    'gguf-py names no Step3 text architecture (gguf 0.19.0 gguf/constants.py MODEL_ARCH has STEP35, Step-3.5, only; STEP3VL is a vision projector type), so convert_hf_to_gguf.py registers no converter for it',
    'step3_text',
    'step3_vl',
  ),
  ...refused(
    'gguf-py names no Qwen3-Omni thinker architecture (gguf 0.19.0 gguf/constants.py MODEL_ARCH), so convert_hf_to_gguf.py registers no converter for it',
    'qwen3_omni_moe',
  ),
};
/** llama.cpp: the architectures convert_hf_to_gguf.py registers (a GGUF llama-server can generate from). */
export const LLAMA_CPP_ARCHITECTURES: ArchitectureTable = {
  engines: ['llama.cpp'],
  name: 'llama.cpp (server-cuda, 25d5b0c5)',
  library: 'llama.cpp',
  versions: '>=b6000',
  source:
    'https://github.com/ggml-org/llama.cpp/blob/a458664fc83b6513baea7adafcb0ef0626b006f8/convert_hf_to_gguf.py',
  // REMOTE_CODE: convert_hf_to_gguf.py registers converters by architecture class (DeepseekV3ForCausalLM;
  // BailingMoeForCausalLM / BailingMoeV2ForCausalLM as gguf 0.19.0 MODEL_ARCH BAILINGMOE / BAILINGMOE2).
  runs: [...HF_CAUSAL, ...VLM_WRAPPERS, ...REMOTE_CODE].filter((t) => !(t in LLAMA_CPP_REFUSES)),
  refuses: LLAMA_CPP_REFUSES,
};

/** The table as a `forbid` rule, made once (the planner asks per layout shape). */
export const LLAMA_CPP_ARCH_RULE = architectureRule(LLAMA_CPP_ARCHITECTURES);
