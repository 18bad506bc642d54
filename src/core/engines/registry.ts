/**
 * The engines vramplan knows, one line each (the folder's index.ts holds the rest). The planner searches
 * the engines here that have a launcher and run the job's kind; `launch` writes the plan's engine's files.
 * engines.ts keeps a launcher-free table of the same profiles for the estimate's cold path; a test checks
 * that the two agree.
 */
import type { Engine } from '../../schema/engine.js';
import type { EngineDef } from './def.js';
import { HF_TRAINER } from './hf-trainer/index.js';
import { HF_FSDP } from './hf-fsdp/index.js';
import { HF_DEEPSPEED } from './hf-deepspeed/index.js';
import { TORCHTUNE } from './torchtune/index.js';
import { TORCHTITAN } from './torchtitan/index.js';
import { LITGPT } from './litgpt/index.js';
import { UNSLOTH } from './unsloth/index.js';
import { VLLM } from './vllm/index.js';
import { HF_GENERATE } from './hf-generate/index.js';
import { SGLANG } from './sglang/index.js';
import { LLAMA_CPP } from './llama-cpp/index.js';

export const ENGINE_REGISTRY: Readonly<Record<Engine, EngineDef>> = {
  'hf-trainer': HF_TRAINER,
  'hf-fsdp': HF_FSDP,
  'hf-deepspeed': HF_DEEPSPEED,
  torchtune: TORCHTUNE,
  torchtitan: TORCHTITAN,
  litgpt: LITGPT,
  unsloth: UNSLOTH,
  vllm: VLLM,
  'hf-generate': HF_GENERATE,
  sglang: SGLANG,
  'llama.cpp': LLAMA_CPP,
};
