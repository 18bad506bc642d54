/** The planner: candidate axes, the search, quality tiers, circuit and fleet MIPs, and "why won't it fit?". Entry point of src/core/plan: import from here outside the folder. */
export * from './candidates.js';
export * from './explain.js';
export * from './plan.js';
export * from './plan-circuits.js';
export * from './plan-fleet.js';
export * from './quality.js';
export * from './slo.js';
