/** The model side's configurations: base configs (method, weights, optimizer...), variants and engines searched. */
import { modelRepo, type Arch } from '../model/arch.js';
import { publishedFormats } from '../launch/checkpoints.js';
import { ligerPatches } from '../kernels/liger.js';
import { enginesNamed, ENGINE_PROFILES } from '../engines/engines.js';
import { FRAMEWORKS } from '../memory/frameworks.js';
import { ENGINE_RUNS } from '../engines/engines-runs.js';
import { maxContext } from '../model/structure.js';
import { mlpTileTokens } from '../memory/activations.js';
import { launchable } from '../launch/index.js';
import { launchedLoraOptions } from '../launch/modules.js';
import { defaultHostRamBytes } from '../memory/host-ram.js';
import { loadedLayers } from '../memory/setup.js';
import { routedExperts } from '../memory/expert-parallel.js';
import { engineNames, type Engine } from '../../schema/engine.js';
import { type MemorySurface } from '../memory/surface.js';
import { maxSearchedGpus, objectiveConfigs, withObjectiveConfig } from './objective.js';
import { replicaShares } from './replicas.js';
import { searchesDpAttention, tpExpertDegrees } from './expert-parallel.js';
import { SPECULATIVE_MAX_BATCH, searchedSpeculation, withSpeculation } from './speculative.js';
import {
  type Float8Compute,
  type KvCacheDtype,
  type SpeculativeMethod,
} from '../../schema/estimate.js';
import {
  attentions,
  checkpointings,
  microBatches,
  nativeWeights,
  optimizers,
  pipelineParallelisms,
  weightDtypes,
} from './candidates.js';
import { cpuMoeCounts, gpuLayerCounts, type LayerFitSpace } from './layer-fit.js';
import type { AlikeEstimates } from '../memory/surface.js';
import { GiB } from '../units.js';
import { growableCopy } from './grow-copy.js';
import { searchesFp8Kv } from '../engines/kernels.js';
import {
  defaultOptions,
  isGguf,
  type EstimateOptions,
  type Method,
  type WeightDtype,
} from '../../schema/estimate.js';
import type { Gpu } from '../../schema/gpu.js';
import type { RankBy, Scenario } from '../../schema/scenario.js';

// ---------------------------------------------------------------------------------------------
// Model side

export interface BaseConfig {
  options: EstimateOptions; // gpus/tp/pp/zero/offload filled per row
  idPart: string;
}

/**
 * The base's id as it runs on `gpu`: without bf16 a bf16 configuration computes in fp16 and loads its 16-bit
 * weights as fp16 (results.ts planOptions), so the weights part (`method/bf16/...`) names fp16.
 */
export function idPartOn(b: BaseConfig, gpu: Gpu): string {
  if (gpu.supportsBf16 || b.options.compute !== 'bf16' || b.options.weights !== 'bf16')
    return b.idPart;
  const parts = b.idPart.split('/');
  parts[1] = 'fp16';
  return parts.join('/');
}

export const RANK_KEYS: Record<RankBy, [number, number, number]> = {
  // indices into [cost, hours, watts]
  cost: [0, 1, 2],
  time: [1, 0, 2],
  slowdown: [1, 0, 2],
  power: [2, 0, 1],
};

export const DEFAULT_GPU_WATTS = 150; // assumed draw for GPUs without a published board power (Apple SoCs)

/** Watts one GPU draws uncapped: its board power, or DEFAULT_GPU_WATTS where none is published. */
export const boardWatts = (g: Gpu): number => g.boardPowerW ?? DEFAULT_GPU_WATTS;

/** Host RAM the scenario states (`hardware.hostRamGiB`) in bytes, or null to use the default per node. */
export const givenHostRamBytes = (s: Scenario): number | null =>
  s.hardware.hostRamGiB !== undefined ? s.hardware.hostRamGiB * GiB : null;

/** Host RAM a node offers: the stated amount, else the default for its GPUs' memory (host-ram.ts). */
export const hostRamLimit = (given: number | null, gpuBytes: number, gpusOnNode: number): number =>
  given ?? defaultHostRamBytes(gpuBytes * gpusOnNode);

/** Whether the search has an engine that splits layers between GPU and host (llama.cpp's -ngl). */
const layerOffloader = (s: Scenario): Engine | undefined =>
  searchedEngines(s).find((e) => FRAMEWORKS[ENGINE_PROFILES[e].framework].layerOffload === true);
export const searchesLayerOffload = (s: Scenario): boolean => layerOffloader(s) !== undefined;

/**
 * What the exact `-ngl` / `--n-cpu-moe` search reads (layer-fit.ts) for a serving job with a layer-offload engine
 * searched, on GPU options of `capacities` bytes each (memory less the margin): the layers of the model as that
 * engine loads it (a tower in a file of its own is no layer of it) and its pipeline degrees over `counts` (one
 * llama-server over all of a count's GPUs, as rows.ts layoutsOf lays them out); null otherwise. `kept`: memory
 * surfaces' estimates by options, shared with the rows and other searches (ModelSides.surfaces).
 */
export function layerFitSpace(
  s: Scenario,
  arch: Arch,
  counts: readonly number[],
  capacities: readonly number[],
  kept?: Map<string, AlikeEstimates>,
): LayerFitSpace | null {
  const engine = layerOffloader(s);
  if (s.job.kind !== 'inference' || engine === undefined || capacities.length === 0) return null;
  const layers = loadedLayers(arch, FRAMEWORKS[ENGINE_PROFILES[engine].framework]);
  const depth = arch.groups.reduce((a, g) => a + g.count, 0);
  const pipelines = [1];
  for (const c of counts)
    if (c > 1 && pipelineParallelisms(c, depth, s.search.pp).includes(c)) pipelines.push(c);
  const distinct = [...new Set(capacities)].sort((a, b) => a - b);
  return { engine, layers, pipelines, capacities: distinct, evaluations: 0, kept };
}

/** KV cache dtypes a serving job searches: fp8 beside the model dtype where an engine searched has one (searchesFp8Kv). */
function kvCacheDtypesOf(s: Scenario): KvCacheDtype[] {
  if (s.job.kind !== 'inference') return ['auto'];
  return searchedEngines(s).some(searchesFp8Kv) ? ['auto', 'fp8'] : ['auto'];
}

/**
 * `fp4Cores`: the scenario's hardware includes a Blackwell GPU (NVFP4 searched: candidates.ts; MXFP8 training);
 * `fp8Cores`: a GPU with FP8 tensor cores (FP8 training searched); `fit`: the exact layer-offload search's space
 * (layerFitSpace), null where none is searched.
 */
export function baseConfigs(
  s: Scenario,
  arch: Arch,
  fp4Cores = false,
  fp8Cores = false,
  fit: LayerFitSpace | null = null,
): BaseConfig[] {
  const out = baseConfigsAt(
    s,
    nativeWeights(arch),
    fp4Cores,
    arch.attentionSinks === true,
    publishedFormats(modelRepo(arch)),
  );
  // llama.cpp's -ngl and --n-cpu-moe: per configuration, the most layers on the GPU (the fewest layers' experts on
  // the host, every layer on the GPU) that fit each GPU memory searched (layer-fit.ts), after every plain one. GGUF
  // weights only: other dtypes would only add rows no engine runs. An fp8 KV cache rides along: llama.cpp writes it
  // as q8_0 (engines/llama-cpp/kernels.ts).
  if (fit) {
    const moe = routedExperts(arch) > 1;
    for (const b of [...out]) {
      if (!isGguf(b.options.weights) && b.options.weights !== 'fp16') continue;
      for (const gpuLayers of gpuLayerCounts(arch, b.options, fit))
        out.push({ options: { ...b.options, gpuLayers }, idPart: `${b.idPart}/ngl${gpuLayers}` });
      if (moe)
        for (const cpuMoeLayers of cpuMoeCounts(arch, b.options, fit))
          out.push({
            options: { ...b.options, cpuMoeLayers },
            idPart: `${b.idPart}/ncmoe${cpuMoeLayers}`,
          });
    }
  }
  // One LoRA target list for the plan and its files (every linear layer where module names are unknown).
  for (const b of out) b.options = launchedLoraOptions(arch, b.options);
  const spec = searchedSpeculation(s, arch);
  const withSpec = spec.length > 0 ? withSpeculative(out, spec) : out;
  const withDpa = searchesDpAttention(s, arch) ? withDpAttention(withSpec) : withSpec;
  const withTpEp = withTpExpertParallel(withDpa, tpExpertDegrees(s, arch, searchedEngines(s)));
  const f8 = float8Searched(s, fp8Cores, fp4Cores);
  return f8.length > 0 ? withFloat8(withTpEp, f8) : withTpEp;
}

/**
 * The FP8 training formats a fine-tune searches: those its `search.compute` asks for (opt-in: torchao's quality
 * evidence is from pretraining) that a searched engine writes (its profile's `float8`) on a GPU the scenario has
 * (FP8 tensor cores; MXFP8 on Blackwell, compute capability 10.0+).
 */
export function float8Searched(
  s: Scenario,
  fp8Cores: boolean,
  blackwell: boolean,
): Float8Compute[] {
  const asked = s.search.compute ?? [];
  if (s.job.kind !== 'fine-tune' || !s.job.methods.includes('full') || !fp8Cores) return [];
  const formats = new Set(searchedEngines(s).flatMap((e) => ENGINE_PROFILES[e].float8 ?? []));
  return [...formats].filter((c) => asked.includes(c) && (c === 'fp8' || blackwell));
}

/** Full fine-tunes also with FP8 training (kernels/float8.ts), next to their bf16 configuration. */
function withFloat8(bases: BaseConfig[], formats: readonly Float8Compute[]): BaseConfig[] {
  return withGroupVariants(bases, (run) => {
    const o = run[0]!.options;
    if (o.method !== 'full' || o.compute !== 'bf16') return [];
    return formats.flatMap((compute) =>
      run.map((b) => ({
        // With torch.compile, as torchtitan's float8 docs require for its speed-up ("--compile.enable: Required -
        // fuses float8 scaling/casting kernels"; axolotl: "Without compilation, FP8 may actually be slower").
        options: { ...b.options, compute, compile: true },
        idPart: variantId(b, `${compute}-train`),
      })),
    );
  });
}

/**
 * Each group of configurations (its micro-batches: ids that differ in `/mbN` only) followed by the variants
 * `variantsOf` makes of the group's configurations, so micro-batches of one group stay consecutive.
 */
function withGroupVariants(
  bases: readonly BaseConfig[],
  variantsOf: (run: readonly BaseConfig[]) => BaseConfig[],
): BaseConfig[] {
  const out: BaseConfig[] = [];
  const groupOf = (b: BaseConfig) => b.idPart.replace(/\/mb\d+$/, '');
  let i = 0;
  while (i < bases.length) {
    const group = groupOf(bases[i]!);
    let j = i;
    while (j < bases.length && groupOf(bases[j]!) === group) j++;
    const run = bases.slice(i, j);
    out.push(...run, ...variantsOf(run));
    i = j;
  }
  return out;
}

/** A variant's id: the base's with `part` before its micro-batch. */
const variantId = (b: BaseConfig, part: string): string =>
  b.idPart.replace(/\/mb(\d+)$/, `/${part}/mb$1`);

/**
 * Serving at small concurrency: each configuration also with each speculative method the model has
 * (plan/speculative.ts), after its plain one.
 */
function withSpeculative(bases: BaseConfig[], methods: readonly SpeculativeMethod[]): BaseConfig[] {
  return withGroupVariants(bases, (run) =>
    run[0]!.options.gpuLayers !== undefined || run[0]!.options.cpuMoeLayers !== undefined
      ? []
      : methods.flatMap((method) =>
          run
            .filter((b) => b.options.batch <= SPECULATIVE_MAX_BATCH)
            .map((b) => ({
              options: withSpeculation(b.options, method),
              idPart: variantId(b, `spec-${method}`),
            })),
        ),
  );
}

/**
 * MoE serving: every configuration (a speculative one too) also with DP attention and expert parallelism
 * (plan/expert-parallel.ts), next to its plain one.
 */
function withDpAttention(bases: BaseConfig[]): BaseConfig[] {
  return withGroupVariants(bases, (run) => {
    const o = run[0]!.options;
    // Speculative and multi-LoRA runs too: SGLang's EAGLE / NEXTN worker and vLLM's proposers run beside DP
    // attention, and both engines' LoRA (SGLang through its triton backend).
    if (o.gpuLayers !== undefined || o.cpuMoeLayers !== undefined) return [];
    return run.map((b) => ({
      options: { ...b.options, dpAttention: true },
      idPart: variantId(b, 'dpa-ep'),
    }));
  });
}

/**
 * MoE serving on an engine that offers it (plan/expert-parallel.ts tpExpertDegrees): every plain configuration (a
 * speculative one too) also with its MoE layers expert parallel over its TP group, one per degree (`ep` = the TP
 * degree its layouts must have: rows.ts expertLayout), next to its plain one.
 */
function withTpExpertParallel(bases: BaseConfig[], degrees: readonly number[]): BaseConfig[] {
  if (degrees.length === 0) return bases;
  return withGroupVariants(bases, (run) => {
    const o = run[0]!.options;
    if (o.dpAttention || o.gpuLayers !== undefined || o.cpuMoeLayers !== undefined) return [];
    return degrees.flatMap((ep) =>
      run.map((b) => ({ options: { ...b.options, ep }, idPart: variantId(b, `tp-ep${ep}`) })),
    );
  });
}

function baseConfigsAt(
  s: Scenario,
  native: WeightDtype | null,
  fp4Cores: boolean,
  sinks: boolean,
  published: readonly WeightDtype[],
): BaseConfig[] {
  const job = s.job;
  const search = s.search;
  const out: BaseConfig[] = [];
  const methods: Method[] = job.kind === 'inference' ? ['inference'] : job.methods;
  const objectives = objectiveConfigs(s); // read only (withObjectiveConfig), the same for every configuration
  for (const method of methods) {
    const d = defaultOptions(method);
    for (const w of weightDtypes(method, search.weights, native, fp4Cores, published))
      for (const optimizer of optimizers(method, search.optimizers))
        for (const checkpointing of checkpointings(method, search.checkpointing))
          for (const attention of attentions(search.attention, sinks))
            for (const objective of objectives)
              for (const kv of kvCacheDtypesOf(s)) {
                // Micro-batches differ in `batch` only: the first one's options (objective applied once)
                // copied with each batch, the same keys in the same order; their ids share all but `mbN`.
                let first: EstimateOptions | null = null;
                const head = [
                  method,
                  w.weights + (w.doubleQuant ? '-dq' : ''),
                  method === 'inference' ? '' : optimizer,
                  method === 'inference' ? '' : `ckpt-${checkpointing}`,
                  attention,
                  objective.idPart,
                  kv === 'fp8' ? 'kv-fp8' : '',
                ]
                  .filter((x) => x !== '')
                  .join('/');
                for (const batch of job.kind === 'inference'
                  ? replicaShares(job.concurrency, maxSearchedGpus(s))
                  : microBatches(job.globalBatch, search.microBatches)) {
                  const o: EstimateOptions = first
                    ? { ...first, batch }
                    : configOptions(s, d, w, optimizer, checkpointing, attention, kv, batch);
                  if (first) {
                    if (o.loraTargets) o.loraTargets = [...o.loraTargets];
                  } else {
                    withObjectiveConfig(o, objective);
                    first = { ...o };
                  }
                  out.push({ options: o, idPart: `${head}/mb${batch}` });
                }
              }
  }
  return out;
}

/** One configuration's options before its objective (baseConfigsAt). */
function configOptions(
  s: Scenario,
  d: EstimateOptions,
  w: { weights: EstimateOptions['weights']; doubleQuant: boolean },
  optimizer: EstimateOptions['optimizer'],
  checkpointing: EstimateOptions['checkpointing'],
  attention: EstimateOptions['attention'],
  kv: KvCacheDtype,
  batch: number,
): EstimateOptions {
  const job = s.job;
  // Keys of `d` written in place (the order of a spread with these overrides); the objective's are added
  // next (growableCopy).
  const o = growableCopy(d);
  o.weights = w.weights;
  o.doubleQuant = w.doubleQuant;
  o.optimizer = optimizer;
  o.checkpointing = checkpointing;
  o.attention = attention;
  o.batch = batch;
  o.seq = job.kind === 'inference' ? job.context : job.seq;
  if (job.kind === 'fine-tune') {
    o.loraRank = job.loraRank;
    // None named: an empty list, each engine's recipe targets (engines.ts engineFieldsInto).
    const targets = job.loraTargets ?? [];
    if (targets === 'all-linear') {
      o.loraAllLinear = true;
      o.loraTargets = ['q', 'k', 'v', 'o', 'gate', 'up', 'down'];
    } else o.loraTargets = [...targets];
  }
  if (job.kind === 'inference' && job.promptTokens !== undefined)
    o.promptTokens = Math.min(job.promptTokens, job.context - 1);
  if (kv === 'fp8') o.kvCacheDtype = kv;
  if (job.kind === 'inference' && job.prefixCaching) o.prefixCacheFraction = job.prefixCaching;
  // Multi-LoRA serving: the adapters' slots at their rank (memory/multi-lora.ts).
  if (job.kind === 'inference' && job.lora) {
    o.maxLoras = job.lora.adapters;
    o.loraRank = job.lora.rank;
  }
  return o;
}

/** Structure-of-arrays of model-side rows: one configuration on one layout and GPU count. */
export interface Rows {
  n: number;
  base: Int32Array;
  count: Int32Array;
  tp: Int32Array;
  pp: Int32Array;
  dp: Int32Array;
  zero: Int8Array;
  offload: Int8Array;
  /** Index into the run's engine variants (VARIANTS). */
  variant: Int8Array;
  mem: Int32Array;
  accum: Int32Array;
}

/** An engine a row runs on, with optimizer-in-backward and Liger's kernels on or off. */
export interface Variant {
  engine: Engine;
  optimizerInBackward: boolean;
  liger: boolean;
  /**
   * Without Liger on an engine that searches a Liger twin. For LoRA/QLoRA the twin never uses more memory (the frozen
   * output layer gets no weight gradient: kernels/liger.ts) but can be slower, its output layer run in chunks of rows
   * (kernels/liger.ts ligerChunkGemmSlowdown): the search times both rows and keeps the faster candidate, or both
   * within the tie band (plan/liger-twins.ts, loop.ts slowerThanTwin).
   */
  ligerTwin: boolean;
  /** Unsloth's tiled MLP on (engines whose profile loads it: memory/activations.ts mlpTileBytes). */
  tiledMlp?: boolean;
}

export const OFFLOADS = ['none', 'optimizer', 'optimizer+params'] as const;

export interface MemTable {
  /** estimateMemory calls made to fill the table. */
  evaluations?: number;
  device: Float64Array;
  host: Float64Array;
  weights: Float64Array;
  kv: Float64Array;
  /** GRPO vllm-colocate rows: vLLM's share and the least it holds (memory/surface.ts onCapacity). */
  share: Float64Array;
  floor: Float64Array;
  /** Serving rows: what the engine's pool budget must hold to start (memory/inference.ts poolStartBudget; 0: none). */
  start: Float64Array;
  /** Rows written on first read (MemorySurface.defer; device NaN until then): their surfaces. */
  deferred: (MemorySurface | undefined)[];
}

/** A table of `size` zeroed rows and no deferred surfaces. */
export function newMem(size: number): MemTable {
  const empty = new Float64Array(0);
  const none = {
    device: empty,
    host: empty,
    weights: empty,
    kv: empty,
    share: empty,
    floor: empty,
    start: empty,
  };
  return growMem({ ...none, deferred: [] }, size);
}

export function growMem(m: MemTable, size: number): MemTable {
  const g = (a: Float64Array) => {
    const b = new Float64Array(size);
    b.set(a);
    return b;
  };
  return {
    evaluations: m.evaluations,
    device: g(m.device),
    host: g(m.host),
    weights: g(m.weights),
    kv: g(m.kv),
    share: g(m.share),
    floor: g(m.floor),
    start: g(m.start),
    deferred: m.deferred,
  };
}

/**
 * The engines a scenario searches: its `search.engines`, else the engines its `search.framework` names,
 * else every engine vramplan launches that runs the job's kind; never one without a launcher.
 */
export function searchedEngines(s: Scenario): Engine[] {
  const named =
    s.search.engines ?? (s.search.framework ? enginesNamed(s.search.framework) : engineNames());
  const methods: readonly Method[] = s.job.kind === 'inference' ? ['inference'] : s.job.methods;
  return named.filter(
    (e) => launchable(e) && ENGINE_PROFILES[e].methods.some((m) => methods.includes(m)),
  );
}

/**
 * The engine variants a scenario searches (searchedEngines; torchtune also with optimizer-in-backward); Liger
 * on and off for fine-tunes on the engines that load it, when it patches the model type (kernels/liger.ts).
 */
export function variantsOf(s: Scenario, arch?: Arch, appleGpus = false): Variant[] {
  // Past the config's positions only the engines that scale RoPE themselves run (context.ts).
  const seq = s.job.kind === 'fine-tune' ? s.job.seq : s.job.context;
  const past = arch !== undefined && seq > maxContext(arch);
  const engines = searchedEngines(s).filter((e) => !past || !!ENGINE_RUNS[e].extendsContext);
  const liger = s.job.kind === 'fine-tune' && arch !== undefined && ligerPatches(arch.modelType);
  const tiles =
    s.job.kind === 'fine-tune' && arch !== undefined && mlpTileTokens(arch.hidden, 1, seq) < seq;
  const out: Variant[] = [];
  for (const engine of engines) {
    const twin = liger && ENGINE_PROFILES[engine].liger === true;
    // On Apple GPUs the Liger twin cannot run (engines/apple.ts appleKernelsRefusal): the row without it stays.
    out.push({ engine, optimizerInBackward: false, liger: false, ligerTwin: twin && !appleGpus });
    if (ENGINE_PROFILES[engine].optimizerInBackward)
      out.push({ engine, optimizerInBackward: true, liger: false, ligerTwin: false });
    if (twin) out.push({ engine, optimizerInBackward: false, liger: true, ligerTwin: false });
    // Tiled MLP where the engine loads it, once a tile (hidden-size tokens) is shorter than the sequence:
    // shorter sequences run as one tile, the same memory plus the input gradient, and slower.
    if (tiles && ENGINE_PROFILES[engine].tiledMlp === true)
      out.push({
        engine,
        optimizerInBackward: false,
        liger: false,
        ligerTwin: false,
        tiledMlp: true,
      });
  }
  return out;
}
