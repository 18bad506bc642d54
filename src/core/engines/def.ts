/**
 * An engine end to end, as one value its folder's index.ts exports and registry.ts lists: what vramplan writes
 * for it (profile), what the engine itself runs (runs), what it allocates (memory), and its launcher (the files
 * `launch` writes, and why it cannot write a plan), imported only when a command plans or launches.
 */
import type { EngineOutput, LaunchInput, LaunchPlan } from '../launch/types.js';
import type { FrameworkProfile } from '../memory/framework-profile.js';
import type { EngineProfile } from './profile.js';
import type { EngineRuns } from './runs.js';
import type { Engine } from '../../schema/engine.js';
import type { Framework, Objective } from '../../schema/estimate.js';

/** The launcher's code: loaded on demand (store.ts loadLaunchers), since an estimate never needs it. */
export interface EngineLauncher {
  /** Every emitter's outcome for the plan, in order (the power-limit script is added by launch/index.ts). */
  emit: (x: LaunchInput) => EngineOutput[];
  /**
   * Why the emitters cannot write `x` as modelled (their own checks; the profile's `forbid` rules are
   * checked before this by launch/index.ts), or null. The planner asks per layout shape: keep it cheap.
   */
  blocker: (x: LaunchPlan) => string | null;
}

/** What the registry knows of a launcher without loading it. */
export interface LauncherRef {
  /** Training objectives it writes beyond SFT's (absent: SFT and serving only). */
  objectives?: readonly Objective[];
  /** The launcher's module, imported on first use. */
  load: () => Promise<EngineLauncher>;
}

export interface EngineDef {
  id: Engine;
  /** What vramplan writes for the engine: the planner ranks and `launch` writes only what it accepts. */
  profile: EngineProfile;
  /** What the engine itself runs beyond the profile (`estimate --framework <engine>` accepts it). */
  runs: EngineRuns;
  /** Its memory profile (`options.framework` = memory.id); engines of one stack share one. */
  memory: FrameworkProfile;
  /** Family names (`--framework`, `search.framework`) that stand for this engine besides its own framework's. */
  families?: readonly Framework[];
  /** null: vramplan writes no files for this engine, so the planner never ranks it. */
  launcher: LauncherRef | null;
}
