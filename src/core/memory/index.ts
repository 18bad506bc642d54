/** Memory: per-GPU peak bytes by mechanism (weights, states, activations, logits, KV cache), framework profiles, host RAM, uncertainty. Entry point of src/core/memory: import from here outside the folder. */
export * from './activations.js';
export * from './calibration.js';
export * from './frameworks.js';
export * from './host-ram.js';
export * from './kv-layout.js';
export * from './max-context.js';
export * from './memory.js';
export * from './optimizer-states.js';
export * from './paged.js';
export * from './surface.js';
export * from './uncertainty.js';
