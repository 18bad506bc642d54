/**
 * Which concrete engine runs a configuration: the launcher `launch` writes and whose allocations the memory
 * and time models follow. It is read back from the estimate options, which encode it: the planner builds a
 * plan's options with `onEngine` (engines.ts), so `engineOf(plan.options) === plan.choices.engine`.
 *
 * Each engine's def says which options it claims (engines/<engine>/index.ts `claims`): on the Hugging Face stack,
 * framework 'deepspeed' → hf-deepspeed (Trainer + DeepSpeed ZeRO), inference → hf-generate; framework 'hf':
 * inference → hf-generate, ZeRO 2/3 → hf-fsdp (Accelerate FSDP), ZeRO 0 → hf-trainer (one process or DDP).
 * Every other framework is its own engine.
 */
export { engineOf } from './store.js';
