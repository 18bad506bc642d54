/**
 * What each software stack really allocates: the memory profile each engine folder registers (engines/store.ts),
 * by the contract's framework name (the fields and their meaning: framework-profile.ts).
 */
export type { FrameworkProfile } from './framework-profile.js';
export { FRAMEWORKS } from '../engines/store.js';
