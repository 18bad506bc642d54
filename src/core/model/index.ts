/** The model: Hugging Face config.json → normalized architecture, parameter counts, trainable parts, structural limits. Entry point of src/core/model: import from here outside the folder. */
export * from './arch.js';
export * from './architectures.js';
export * from './dtypes.js';
export * from './hf-config.js';
export * from './params.js';
export * from './structure.js';
export * from './trainable.js';
export * from './vision.js';
