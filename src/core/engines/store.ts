/**
 * The engines registered so far (registry.ts registers the built-in ones when first imported), and the
 * tables the core reads them through: a profile per engine, what each engine runs, a memory profile per
 * framework and the engines a family name stands for. The memory, time, from and launch layers read these
 * tables and never import an engine folder.
 */
import type { ConfigReader, EngineDef, EngineLauncher, ServeReader } from './def.js';
import type { ArchitectureTable } from './architectures.js';
import type { EngineProfile } from './profile.js';
import type { EngineRuns } from './runs.js';
import type { FrameworkProfile } from '../memory/framework-profile.js';
import { registerEngineName, type Engine } from '../../schema/engine.js';
import { isGguf, type EstimateOptions, type Framework } from '../../schema/estimate.js';

const DEFS = new Map<Engine, EngineDef>();
const LAUNCHERS = new Map<Engine, EngineLauncher>();

/** Every registered engine's profile (what vramplan writes for it). */
export const ENGINE_PROFILES = {} as Record<Engine, EngineProfile>;
/** What each registered engine itself runs beyond its profile. */
export const ENGINE_RUNS = {} as Record<Engine, EngineRuns>;
/** The memory profile of each framework (`options.framework`). */
export const FRAMEWORKS = {} as Record<Framework, FrameworkProfile>;
/** Engines a family name stands for (`search.framework`, `--framework`), in registration order. */
export const ENGINE_FAMILY = {} as Record<Framework, Engine[]>;

let readers: ConfigReader[] = [];
const CLAIMANTS = new Map<Framework, EngineDef[]>();
const serves: (ServeReader & { engine: Engine })[] = [];

/** Adds an engine; registering one id twice, or two memory profiles under one framework, is an error. */
export function registerEngine(def: EngineDef): void {
  if (DEFS.has(def.id)) throw new Error(`engine ${def.id} is registered twice`);
  if (def.profile.id !== def.id)
    throw new Error(`engine ${def.id}: profile.id is ${def.profile.id}`);
  const fw = def.profile.framework;
  if (def.memory.id !== fw)
    throw new Error(`engine ${def.id}: memory profile ${def.memory.id}, framework ${fw}`);
  const held = FRAMEWORKS[fw] as FrameworkProfile | undefined;
  if (held && held !== def.memory)
    throw new Error(`framework ${fw}: two memory profiles (engine ${def.id})`);
  DEFS.set(def.id, def);
  registerEngineName(def.id, fw, {
    layerOffload: def.memory.layerOffload === true,
    q4Kv: def.memory.cacheLayout?.q4KvElementBytes !== undefined,
    ggufWeights:
      def.memory.quantFormat === 'gguf' || (def.runs.widen.baseWeights ?? []).some(isGguf),
    ggufDequantized: def.runs.ggufDequantized !== undefined,
    liger: def.profile.liger === true,
    tiledMlp: def.profile.tiledMlp === true,
    fsdpVersion: def.profile.fsdpVersion === true,
    float8Lora: def.runs.float8Lora !== undefined,
    trainingEp: def.profile.ep === true,
    ...(def.runs.noLiger !== undefined ? { noLiger: def.runs.noLiger } : {}),
  });
  for (const f of [fw, ...(def.claimsFor ?? [])]) {
    const list = CLAIMANTS.get(f) ?? [];
    CLAIMANTS.set(f, [...list, def]);
  }
  ENGINE_PROFILES[def.id] = def.profile;
  ENGINE_RUNS[def.id] = def.runs;
  FRAMEWORKS[fw] = def.memory;
  for (const f of [fw, ...(def.families ?? [])]) (ENGINE_FAMILY[f] ??= []).push(def.id);
  // Stable: readers of one order keep registration order.
  readers = [...readers, ...(def.readers ?? [])].sort((a, b) => a.order - b.order);
  if (def.serve) serves.push({ ...def.serve, engine: def.id });
}

/** Every registered `--from` config reader, in detection order. */
export const configReaders = (): readonly ConfigReader[] => readers;

/** The registered engines that read server command lines, with their readers. */
export const serveReaders = (): readonly (ServeReader & { engine: Engine })[] => serves;

/** The server command reader of `engine`. */
export function serveReaderOf(engine: Engine): ServeReader {
  const r = engineDef(engine).serve;
  if (!r) throw new Error(`engine ${engine} has no server command reader`);
  return r;
}

/** The registered engine `id` (an unknown id is a programming error: ids are validated at the edges). */
export function engineDef(id: Engine): EngineDef {
  const d = DEFS.get(id);
  if (!d) throw new Error(`engine ${id} is not registered`);
  return d;
}

/**
 * The engine that runs `o`: the first registered engine of its framework (or claiming it) that claims the
 * options. The planner builds a plan's options so that this gives back the plan's engine (engines.ts onEngine).
 */
export function engineOf(o: EstimateOptions): Engine {
  const list = CLAIMANTS.get(o.framework);
  // A loop, not find(): the planner asks this some 100,000 times a search, and a closure per call is garbage.
  if (list)
    for (let i = 0; i < list.length; i++) {
      const d = list[i]!;
      if (!d.claims || d.claims(o)) return d.id;
    }
  throw new Error(`no registered engine runs framework ${o.framework}`);
}

/** Every registered engine, in registration order. */
export const engineDefs = (): readonly EngineDef[] => [...DEFS.values()];

/** Imports every registered launcher not yet loaded (planning and launching need them; estimating does not). */
export async function loadLaunchers(): Promise<void> {
  await Promise.all(
    [...DEFS.values()].map(async (d) => {
      if (d.launcher && !LAUNCHERS.has(d.id)) LAUNCHERS.set(d.id, await d.launcher.load());
    }),
  );
}

/** The loaded launcher of `id`: null when the engine has none; an error when loadLaunchers has not run. */
export function launcherOf(id: Engine): EngineLauncher | null {
  if (!engineDef(id).launcher) return null;
  const l = LAUNCHERS.get(id);
  if (!l) throw new Error(`the ${id} launcher is not loaded (await loadLaunchers() first)`);
  return l;
}

/** The model_types table that holds for `engine` (its def's `architectures`), or undefined for one without. */
export const architecturesOf = (engine: Engine): ArchitectureTable | undefined =>
  engineDef(engine).architectures;

/** Every registered engine's model_types table, once each (the Hugging Face engines share one). */
export const architectureTables = (): readonly ArchitectureTable[] => [
  ...new Set(engineDefs().flatMap((d) => (d.architectures ? [d.architectures] : []))),
];
