/**
 * Engines: one folder per engine (profile, memory profile, launcher, --from reader, behaviour rules) and
 * the registry that lists them. Entry point of src/core/engines: import from here outside the folder.
 */
export * from './engine.js';
export * from './engines.js';
export * from './defaults.js';
export * from './registry.js';
export * from './rules.js';
export type { EngineDef, EngineLauncher } from './def.js';
export type { EngineDefault, EngineProfile } from './profile.js';
