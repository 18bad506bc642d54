/**
 * What an engine-config emitter reads: one configuration of the estimate contract on one GPU type, plus
 * the launch-only knobs (gradient accumulation, power limit). The planner maps a ranked plan onto it.
 */
import type { Arch } from '../model/arch.js';
import type { EstimateOptions, WeightDtype } from '../../schema/estimate.js';
import type { Gpu } from '../../schema/gpu.js';
import type { Engine } from '../../schema/engine.js';
import type { Offer } from '../../schema/offer.js';

export type { Sharding } from '../engines/profile.js';

/**
 * What launch itself reads of the configuration's estimate. The contract's result (core/estimate.ts
 * EstimateResult) is one; launch helpers do not import it, so the launch layer stays below the estimate.
 */
export interface LaunchEstimate {
  fits?: boolean;
  perGpu: { deviceBytes: number };
  gpu?: { capacityBytes: number };
  /** Parameter counts (the rented task sizes its disk from them). */
  params?: { total: number; trainable: number; checkpoint?: { total: number } };
  /** The time model's step (a spot plan's save interval is counted in steps of it). */
  time?: { stepSeconds: number };
}

export interface LaunchInput<E extends LaunchEstimate = LaunchEstimate> {
  arch: Arch;
  options: EstimateOptions;
  gpu: Gpu;
  /** Micro-batches accumulated per optimizer step. */
  gradAccum: number;
  /** Per-GPU power cap in watts (nvidia-smi -pl), or null for the board default. */
  powerLimitW: number | null;
  estimate: E;
  /** What from_pretrained / base_model should load: Hugging Face repo id or local path. */
  modelRef: string;
  /** GPUs per machine; plans over more GPUs span nodes (default: all GPUs on one machine). */
  gpusPerNode?: number;
  /** Training tokens the job plans (a scenario's dataset tokens x epochs); absent from flags alone. */
  trainTokens?: number;
  /** The catalog offer the GPUs are rented from (catalogs/offers/); absent for owned or bought GPUs. */
  offer?: Offer;
  /** Weight formats the scenario says the user holds a checkpoint in (`job.haveCheckpoints`): nothing is made. */
  haveCheckpoints?: readonly WeightDtype[];
}

/** What decides whether an engine can run a plan: the model and the configuration. */
export type LaunchPlan = Pick<LaunchInput, 'arch' | 'options'> & {
  /** Micro-batches per optimizer step, where known (behaviour rules on gradient accumulation read it). */
  accum?: number;
};

/** One file of the launch folder; `path` is relative to the folder. */
export interface LaunchFile {
  path: string;
  content: string;
}

/** One step before the run: a shell command run from the folder, and what it fetches. */
export interface PrepareStep {
  command: string;
  /** "the tokenizer and checkpoint files torchtune.yaml names": what the command leaves in the folder. */
  what: string;
}

/** Outcome of one emitter: the file it wrote, or why the plan cannot be expressed in that engine. */
export type EngineOutput =
  | {
      engine: string;
      ok: true;
      files: LaunchFile[];
      notes: string[];
      /** Ports a serving engine's servers listen on (one per replica). */
      ports?: number[];
      /** The command that starts the run on each machine, where the folder has no launch.sh or serve.sh. */
      command?: string;
      /** The requirements file `command` runs in (sky.yaml's setup installs it), where not requirements.txt. */
      setup?: string;
      /** What its requirements.txt installs, as the README's "How to run" says it (serving engines). */
      environment?: string;
      /** The run saves to the spot plan's mounted checkpoint folder and resumes from it (launch/spot-resume.ts). */
      resumes?: boolean;
      /** Steps before the run (downloads of what the files read), numbered in the README's "How to run". */
      prepare?: PrepareStep[];
    }
  | { engine: string; ok: false; reason: string };

/** Every emitter's outcome, in a fixed order. */
export interface LaunchBundle {
  /** The plan's engine (core/engines/engine.ts): whose files these are. */
  engine: Engine;
  outputs: EngineOutput[];
  /** Files of the outputs that succeeded, in order (README not included: the UI renders it). */
  files: LaunchFile[];
}
