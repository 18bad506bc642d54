/** Hardware: wall power and circuits, nvidia-smi parsing. Entry point of src/core/hardware: import from here outside the folder. */
export * from './nvidia-smi.js';
export * from './power.js';
