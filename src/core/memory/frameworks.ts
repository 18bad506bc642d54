/**
 * What each software stack really allocates: the memory profile of each engine folder, by the contract's
 * framework name (the fields and their meaning: framework-profile.ts).
 */
import type { Framework } from '../../schema/estimate.js';
import type { FrameworkProfile } from './framework-profile.js';
import { HF_MEMORY } from '../engines/hf/memory.js';
import { TORCHTUNE_MEMORY } from '../engines/torchtune/memory.js';
import { LITGPT_MEMORY } from '../engines/litgpt/memory.js';
import { UNSLOTH_MEMORY } from '../engines/unsloth/memory.js';
import { DEEPSPEED_MEMORY } from '../engines/hf/memory.js';
import { VLLM_MEMORY } from '../engines/vllm/memory.js';
import { TORCHTITAN_MEMORY } from '../engines/torchtitan/memory.js';
import { SGLANG_MEMORY } from '../engines/sglang/memory.js';
import { LLAMA_CPP_MEMORY } from '../engines/llama-cpp/memory.js';

export type { FrameworkProfile } from './framework-profile.js';

export const FRAMEWORKS: Record<Framework, FrameworkProfile> = {
  hf: HF_MEMORY,
  torchtune: TORCHTUNE_MEMORY,
  litgpt: LITGPT_MEMORY,
  unsloth: UNSLOTH_MEMORY,
  deepspeed: DEEPSPEED_MEMORY,
  vllm: VLLM_MEMORY,
  torchtitan: TORCHTITAN_MEMORY,
  sglang: SGLANG_MEMORY,
  'llama.cpp': LLAMA_CPP_MEMORY,
};
