/**
 * An engine end to end: its profile (what it runs, its defaults and behaviour rules) and its launcher (the
 * files `launch` writes, and why it cannot write a plan). Each engine folder exports one EngineDef from its
 * index.ts; registry.ts lists them.
 */
import type { EngineOutput, LaunchInput, LaunchPlan } from '../launch/types.js';
import type { EngineProfile } from './profile.js';
import type { Objective } from '../../schema/estimate.js';

export interface EngineLauncher {
  /** Every emitter's outcome for the plan, in order (the power-limit script is added by launch/index.ts). */
  emit: (x: LaunchInput) => EngineOutput[];
  /**
   * Why the emitters cannot write `x` as modelled (their own checks; the profile's `forbid` rules are
   * checked before this by launch/index.ts), or null. The planner asks per layout shape: keep it cheap.
   */
  blocker: (x: LaunchPlan) => string | null;
  /** Training objectives it writes beyond SFT's (absent: SFT and serving only). */
  objectives?: readonly Objective[];
}

export interface EngineDef {
  profile: EngineProfile;
  /** null: vramplan writes no files for this engine, so the planner never ranks it. */
  launcher: EngineLauncher | null;
}
