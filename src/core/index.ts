/**
 * vramplan's pure core, by layer (no I/O anywhere below):
 * - model/    config.json → architecture, parameter counts, trainable parts, structural limits
 * - memory/   per-GPU peak memory by mechanism, framework profiles, host RAM, uncertainty
 * - time/     step time by phase, throughput, technique slowdowns, job cost
 * - engines/  what each engine runs; which engine a configuration is
 * - hardware/ wall power and circuits, nvidia-smi parsing
 * - plan/     the search, quality tiers, circuit and fleet MIPs, "why won't it fit?"
 * - launch/   engine configs for a plan; from/ engine configs back to estimate flags
 * - check/    a launched run's measurements against its plan, and as calibration rows
 * - estimate.ts  the estimate contract's result (memory + fit + time)
 */
export * from './estimate.js';
export * from './model/index.js';
export * from './memory/index.js';
export * from './time/index.js';
export * from './engines/index.js';
export * from './hardware/index.js';
export * from './plan/index.js';
