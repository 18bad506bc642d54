/**
 * The engines vramplan knows, one line each (the folder's index.ts holds the rest). Importing this module
 * registers them (store.ts), in this order: the order of `--framework hf`'s engines and of the planner's
 * candidates. It is the only module that imports engine folders; the rest of the core reads store.ts.
 */
import type { EngineDef } from './def.js';
import { registerEngine } from './store.js';
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

/** The built-in engines. */
export const BUILT_IN_ENGINES: readonly EngineDef[] = [
  HF_TRAINER,
  HF_FSDP,
  HF_DEEPSPEED,
  TORCHTUNE,
  TORCHTITAN,
  LITGPT,
  UNSLOTH,
  VLLM,
  HF_GENERATE,
  SGLANG,
  LLAMA_CPP,
];

for (const d of BUILT_IN_ENGINES) registerEngine(d);

export {
  architecturesOf,
  architectureTables,
  engineDef,
  engineDefs,
  launcherOf,
  loadLaunchers,
  registerEngine,
} from './store.js';
