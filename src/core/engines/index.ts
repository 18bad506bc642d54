/** Engines: what each engine can run (profiles) and which engine a configuration is. Entry point of src/core/engines: import from here outside the folder. */
export * from './engine.js';
export * from './engines.js';
