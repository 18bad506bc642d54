/**
 * An engine end to end, as one value its folder's index.ts exports and registry.ts lists: what vramplan writes
 * for it (profile), what the engine itself runs (runs), what it allocates (memory), and its launcher (the files
 * `launch` writes, and why it cannot write a plan), imported only when a command plans or launches.
 */
import type { EngineOutput, LaunchInput, LaunchPlan } from '../launch/types.js';
import type { FrameworkProfile } from '../memory/framework-profile.js';
import type {
  DeepSpeedMapping,
  FromFlags,
  FromMapping,
  ServeCommand,
  ServeReading,
  UpstreamKeys,
} from '../from/common.js';
import type { ServingMetrics, TrainLogReader } from '../check/readers.js';
import type { ArchitectureTable } from './architectures.js';
import type { EngineProfile } from './profile.js';
import type { EngineRuns } from './runs.js';
import type { Engine } from '../../schema/engine.js';
import type { QuantFormat } from '../../schema/time.js';
import type { EstimateOptions, Framework, Objective, WeightDtype } from '../../schema/estimate.js';

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

/** A `--from` reader of one config format the engine's tools write. */
export interface ConfigReader {
  format: string;
  /** What the format is, for messages ("axolotl YAML"). */
  name: string;
  /**
   * Where detection tries it among every reader (lower first): keys several tools share go to the more
   * specific reader first (from/index.ts detectFormat).
   */
  order: number;
  /** The parsed document is this format's (by the keys only its tool uses). */
  detect: (doc: Record<string, unknown>) => boolean;
  /**
   * `file`: the config's path (a TRL config's trainer may be named only by it); `keys`: the upstream tools' key
   * lists, to tell a known key vramplan does not use from an unknown one.
   */
  map: (doc: Record<string, unknown>, file: string | undefined, keys: UpstreamKeys) => FromMapping;
  /** The format's files are text other than YAML or JSON (absent: YAML, or JSON for `.json`). */
  source?: ConfigSource;
  /** The DeepSpeed config a file of this format names (absent: it names none). */
  deepspeed?: NamedDeepSpeed;
  /**
   * A shell script holding the tool's own command line (`trl dpo --model_name_or_path ...`): its arguments as this
   * format's document, the path-like name `map` reads the trainer from, the processes it starts; null when none.
   */
  command?: (text: string) => CommandConfig | null;
}

/** A config given as a command line's arguments (ConfigReader.command). */
export interface CommandConfig {
  doc: Record<string, unknown>;
  /** Passed to `map` as the file (a trainer named by the script or subcommand). */
  trainerPath: string;
  gpus?: number;
  notes: string[];
}

/** A config format of its own text (torchtitan's Python recipe): a file named `*<extension>` is parsed by `parse`. */
export interface ConfigSource {
  extension: string;
  parse: (text: string) => Record<string, unknown>;
}

/**
 * The DeepSpeed config a file names (its mapping's `deepspeedRef`, or `deepspeedInline` under the file's key
 * `inlineKey`): mapped by `map`, then merged into the file's mapping (from/index.ts withDeepSpeed).
 */
export interface NamedDeepSpeed {
  map: (doc: Record<string, unknown>) => DeepSpeedMapping;
  inlineKey: string;
}

/** The files of a folder `launch` wrote, as `--from <folder>` reads them (io/from/read.ts). */
export interface LaunchFolder {
  /** The flags `--from` reads from the folder's file `name` on its own, or null when there is none. */
  flags: (name: string) => FromFlags | null;
  /** The text of the folder's file `name`, or null when there is none. */
  text: (name: string) => string | null;
}

/** `--from <folder>` of a folder the engine's launcher wrote. */
export interface LaunchFolderReader {
  /** The engine's own config among the files it writes, in the order tried: the first present is read. */
  files: readonly string[];
  /**
   * The flags of the folder, from `flags` (those of the config found) and the other files the launcher writes
   * beside it (a process count, a subcommand). Absent: the config's flags alone.
   */
  read?: (flags: FromFlags, folder: LaunchFolder) => FromFlags;
}

/** `--from` of the engine's server command lines (serve.sh, a pasted command). */
export interface ServeReader {
  /** What the format is, for messages ("vLLM serve command line / --config YAML"). */
  name: string;
  /** The command's arguments start at this index of a line's words when word `i` starts the server; else null. */
  start: (words: readonly string[], i: number) => number | null;
  read: (c: ServeCommand, planFlags: Readonly<Record<string, string>>) => ServeReading;
  /** Every flag spelling the reader knows (for did-you-mean). */
  flagNames: readonly string[];
  /** The server takes a `--config` YAML of its flags (vLLM, SGLang). */
  configFile: boolean;
}

/** The GPUs a serving engine has kernels for (engines/kernels.ts): by weight format, on ROCm, for an fp8 KV cache. */
export interface EngineKernels {
  /**
   * Least compute capability per weight format, and what the engine runs there (cited by a refusal); `formats`: a
   * kernel family (`--quant-format`) that runs from a lower capability than the format's least.
   */
  needs: Partial<
    Record<
      WeightDtype,
      {
        cc: number;
        why: string;
        formats?: Partial<Record<QuantFormat, number>>;
        /**
         * Kernel families (`--quant-format`) the engine refuses for this format below a compute capability above the
         * format's least, each with its own refusal quoted with its file and line at the pinned release.
         */
        refusedBelow?: Partial<Record<QuantFormat, { cc: number; says: string }>>;
      }
    >
  >;
  /** Where `needs` comes from in the engine's source or docs. */
  source: string;
  /**
   * On CUDA GPUs: the least compute capability the engine runs anything on (its own start-up check or the
   * architectures its compiled kernels ship for), with what it says and where that is read; absent: none.
   */
  floor?: { cc: number; why: string; source: string };
  /** On AMD GPUs: the gfx targets each format runs on (absent: the CUDA table holds on ROCm too). */
  rocm?: Partial<
    Record<
      WeightDtype,
      {
        targets: readonly string[];
        why: string;
        /** false: `estimate` models it, the planner does not offer it there (its speed on AMD is not modelled apart). */
        searched?: false;
        /** The engine's own refusal on the other gfx targets, quoted with its file and line at the pinned release. */
        elsewhere?: string;
        /**
         * Kernel families (`--quant-format`) of this format the engine refuses on every gfx target, each with its own
         * refusal quoted with its file and line at the pinned release.
         */
        refusedFormats?: Partial<Record<QuantFormat, string>>;
      }
    >
  >;
  /** An fp8 KV cache: least compute capability, and the flag value with and without native FP8 (absent: none). */
  kvFp8?: { cc: number; native: string; below: string };
}

/**
 * Flash attention that the library swaps for a model-specific kernel (engines/kernels.ts flashRefusal): the model
 * types, the compute capabilities the kernel runs on (exactly), what runs there and where it is read.
 */
export interface FlashOnly {
  modelTypes: readonly string[];
  cc: readonly number[];
  why: string;
  source: string;
}

export interface EngineDef {
  id: Engine;
  /** What vramplan writes for the engine: the planner ranks and `launch` writes only what it accepts. */
  profile: EngineProfile;
  /** What the engine itself runs beyond the profile (`estimate --framework <engine>` accepts it). */
  runs: EngineRuns;
  /** Its memory profile (`options.framework` = memory.id); engines of one stack share one. */
  memory: FrameworkProfile;
  /**
   * Which configurations of its framework (and of `claimsFor`'s) the engine runs where several engines share one
   * memory profile (the Hugging Face stack): engineOf gives the first registered engine that claims the options.
   * Absent: every configuration of its framework.
   */
  claims?: (o: EstimateOptions) => boolean;
  claimsFor?: readonly Framework[];
  /** Family names (`--framework`, `search.framework`) that stand for this engine besides its own framework's. */
  families?: readonly Framework[];
  /** The model_types it runs at its pinned release, with the registry it was read from. */
  architectures?: ArchitectureTable;
  /** The GPUs it has kernels for, by weight format (absent: no gate). */
  kernels?: EngineKernels;
  /** Model types whose flash attention it runs through another kernel, on some GPUs only (absent: none). */
  flashOnly?: FlashOnly;
  /** `--from` readers of the config files the engine's tools write. */
  readers?: readonly ConfigReader[];
  /** `--from` reader of the engine's server command lines. */
  serve?: ServeReader;
  /** `--from` reader of the folders its launcher writes (absent: `--from` reads none). */
  launchFolder?: LaunchFolderReader;
  /** null: vramplan writes no files for this engine, so the planner never ranks it. */
  launcher: LauncherRef | null;
  /** Its name in the explorer's five-character engine column (absent: its id). */
  abbr?: string;
  /** `check`: the training log lines its tools print (engines of one stack may share one). */
  logs?: TrainLogReader;
  /** `check`: the Prometheus metric names its server exports. */
  metrics?: ServingMetrics;
}
