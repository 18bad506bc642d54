/** The estimate command's body: parse flags → load model and GPU → estimate → print. */
import { buildEstimate } from '../core/estimate.js';
import type { FromMapping } from '../core/from/common.js';
// Direct module: the engines/ entry would load every launcher.
import { engineRefusal, unaskedFallbacks, withEngineDefaults } from '../core/engines/defaults.js';
import { engineOf } from '../core/engines/engine.js';
import {
  attentionNote,
  float8CheckSource,
  float8GpuRefusal,
  float8LoraNote,
  float8RunsNote,
  lossNote,
  loraTargetsNote,
  parallelNote,
} from '../core/engines/engines-runs.js';
import { assertEngineStructure, estimatedAs } from '../core/engines/context.js';
import { isEngine, type Engine } from '../schema/engine.js';
import type { Gpu } from '../schema/gpu.js';
import {
  flashRefusal,
  floorRefusal,
  formatRefusal,
  kernelRefusal,
} from '../core/engines/kernels.js';
import { gpuRefusal } from '../core/engines/gpu-refusal.js';
import { towerRun, visionTokens, type Arch } from '../core/model/index.js';
// Direct modules: the memory/ entry would load more than the estimate needs.
import { TOWER_MODE_NOTE, towerMode } from '../core/memory/vision.js';
import { FRAMEWORKS } from '../core/memory/frameworks.js';
import { visionFileBytes } from '../core/memory/vision-file.js';
import { GiB } from '../core/units.js';
import { loadedLayers } from '../core/memory/setup.js';
import { trainableSet } from '../core/model/trainable.js';
// Direct module: the engines/ entry would load every engine's launcher into every estimate.
import { LIGER_MODEL_TYPES, LIGER_PIN, ligerPatches } from '../core/kernels/liger.js';
// Direct module, not the plan/ entry: the entry would load the search and the MIP solvers into every estimate.
import { explainFit } from '../core/plan/explain.js';
import { availableLoraTargets } from '../core/model/index.js';
import { badValue } from '../io/errors.js';
import { findGpu } from '../io/load-catalog.js';
import { resolveModel } from '../io/load-model.js';
import { nativeWeights } from '../core/model/native-weights.js';
import { isFloat8Compute, type EstimateOptions } from '../schema/estimate.js';
import { float8Refusal } from '../core/kernels/float8.js';
import { FlagError, optionsFromFlags, type RawFlags } from '../schema/flags.js';
import { timeOptionsFromFlags, type QuantFormat } from '../schema/time.js';
import { renderEstimateText } from '../ui/estimate-text.js';
import { fixLine } from '../ui/explain-text.js';

/** Fixes shown under a report that does not fit; `vramplan explain` lists them all with trade-offs. */
const FIXES_IN_REPORT = 3;

/** What `--from` adds to the report: the file read and what it could not map. */
export interface FromReport {
  from: { file: string; format: string; deepspeed: string | null };
  warnings: string[];
  /** How the tool keeps a k-bit model's parameters (FromMapping.build): not part of the report. */
  build?: FromMapping['build'];
}

export function runEstimate(
  model: string | Arch,
  flags: RawFlags,
  json: boolean,
  fromReport?: FromReport,
): number {
  const options = withEngineDefaults(optionsFromFlags(flags), flags);
  const gpu = typeof flags.gpu === 'string' ? findGpu(flags.gpu) : undefined;
  const time = timeOptionsFromFlags(flags, options, gpu?.boardPowerW);
  const arch = typeof model === 'string' ? resolveModel(model) : model;
  const notes = [...(arch.assumptions ?? []), ...imagesInto(arch, options, flags)];
  // An option the engine's library does not run, taken by default rather than asked for: what it runs instead.
  notes.push(...unaskedFallbacks(arch, options, flags));
  notes.push(...estimateChecks(arch, options, flags, gpu));
  const shipped = nativeWeights(arch);
  // Serving engines load a checkpoint as it ships; the contract's --weights default stays bf16, so say so.
  if (
    options.method === 'inference' &&
    flags.weights === undefined &&
    shipped &&
    shipped !== options.weights
  )
    notes.push(
      `${arch.id} ships ${shipped} weights (config.json quantization_config), which serving engines load as they are; estimated with --weights ${options.weights} (the default): give --weights ${shipped} for the checkpoint as shipped`,
    );
  if (options.liger && !ligerPatches(arch.modelType)) {
    // use_liger_kernel logs "no Liger kernels supported" for other model types and trains unchanged.
    const why = `Liger ${LIGER_PIN} patches no '${arch.modelType}' model (model types it patches: ${LIGER_MODEL_TYPES.join(', ')})`;
    if (!fromReport) throw badValue('--liger', 'on', `off: ${why}`);
    fromReport.warnings.push(`Liger kernels: ${why}; estimated without them`);
    options.liger = false;
  }
  const result = buildEstimate(arch, options, gpu, time, fromReport?.build);
  if ((options.method === 'lora' || options.method === 'qlora') && result.params.trainable === 0) {
    // PEFT raises "Target modules ... not found in the base model" rather than training nothing.
    const allowed = `targets ${arch.modelType} has: ${availableLoraTargets(arch).join(', ')}, or all-linear`;
    throw badValue('--lora-targets', options.loraTargets.join(','), allowed);
  }
  if (fromReport) fromReport.warnings.push(...notes);
  if (json) {
    const extra = fromReport
      ? { from: fromReport.from, warnings: fromReport.warnings }
      : notes.length > 0
        ? { warnings: notes }
        : {};
    process.stdout.write(`${JSON.stringify({ ...result, ...extra }, null, 2)}\n`);
    return 0;
  }
  let text = renderEstimateText(result);
  if (!fromReport && notes.length > 0)
    text += `\n\nassumed:\n${notes.map((line) => `  - ${line}`).join('\n')}`;
  if (fromReport) {
    const w = fromReport.warnings.map((line) => `  - ${line}`).join('\n');
    text = `from ${fromReport.from.file} (${fromReport.from.format})\n${text}${w ? `\n\nnot mapped from ${fromReport.from.file}:\n${w}` : ''}`;
  }
  if (gpu && result.fits === false) {
    const fixes = explainFit(arch, options, gpu, time, fromReport?.build).fixes.slice(
      0,
      FIXES_IN_REPORT,
    );
    if (fixes.length > 0)
      text += `\n\ncheapest fixes ('vramplan explain' for all, with trade-offs):\n${fixes.map((f, i) => `  ${i + 1}. ${fixLine(f)}`).join('\n')}`;
  }
  process.stdout.write(`${text}\n`);
  return 0;
}

/**
 * `--gpu` refused as one line where the engine cannot run on it: a training engine whose pinned torch has no
 * ROCm kernels for the GPU (engines/torch-targets.ts), an engine with no Apple GPU path or whose quantization path
 * fails on the weights there (engines/apple.ts: its own docs or source say so). `estimate` and `launch` refuse alike.
 */
export function assertRunsOnGpu(engine: Engine, gpu: Gpu, o: EstimateOptions): void {
  const r = gpuRefusal(engine, gpu, o);
  if (!r) return;
  if (r.kind === 'optimizer')
    throw badValue(
      '--optimizer',
      o.optimizer,
      `an optimizer that steps on the ${gpu.name}: ${r.why}`,
    );
  if (r.kind === 'kernels')
    throw badValue(
      o.liger ? '--liger' : '--chunked-loss',
      true,
      `off on the ${gpu.name}: ${r.why}`,
    );
  if (r.kind === 'weights')
    throw badValue('--weights', o.weights, `weights the engine runs on the ${gpu.name}: ${r.why}`);
  const runsOn =
    r.kind === 'torch' ? "a GPU the engine's torch runs on" : 'a GPU the engine runs on';
  throw badValue('--gpu', gpu.id, `${runsOn}: ${r.why}`);
}

/**
 * What the engine runs, checked before estimating (flag errors as one line): the model's structure and
 * context on the engine, the engine's own refusals (runs.ts, then its rules), its kernels on the GPU. Returns
 * the notes: an `--attention` the engine maps to what it picks, a context past the trained one.
 */
export function estimateChecks(
  arch: Arch,
  options: EstimateOptions,
  flags: RawFlags,
  gpu: Gpu | undefined,
): string[] {
  const engine = engineOf(options);
  // A layout the engine places as another (llama.cpp's row split of a MoE model: its layer split).
  const as = estimatedAs(arch, options, engine);
  const notes = assertEngineStructure(arch, options, engine, true);
  if (as) notes.unshift(as);
  const refusal = engineRefusal(arch, options, flags);
  if (refusal)
    throw badValue(
      '--framework',
      flags.framework ?? 'hf (the default)',
      `a configuration the engine runs (${refusal})`,
    );
  if (gpu) assertRunsOnGpu(engine, gpu, options);
  // A serving engine whose kernels are not built for this GPU at all (SGLang below compute capability 8.0).
  const floor = gpu ? floorRefusal(engine, gpu.computeCapability) : null;
  if (floor) throw badValue('--gpu', gpu!.id, `a GPU the engine runs on: ${floor}`);
  // A serving engine without a kernel for the weights on this GPU (FP8 W8A8 on Ampere under SGLang, ...).
  const format = flags['quant-format'] as QuantFormat | undefined;
  // A kernel family the engine refuses for the weights on this GPU (SGLang's MXFP4 Marlin below SM90).
  const family = gpu ? formatRefusal(engine, options.weights, gpu.computeCapability, format) : null;
  if (family)
    throw badValue(
      '--quant-format',
      format,
      `nothing (the engine's default) or one of ${family.allowed.join(', ')} with --weights ${options.weights} under ${engine} on compute capability ${gpu!.computeCapability}: ${family.says}`,
    );
  const kernel = gpu ? kernelRefusal(engine, options.weights, gpu.computeCapability, format) : null;
  if (kernel)
    throw badValue('--weights', options.weights, `a format the engine runs here: ${kernel}`);
  // Flash attention the library swaps for a kernel built for some GPUs only (gpt-oss on the HF engines).
  const flash =
    gpu && options.attention === 'flash'
      ? flashRefusal(engine, arch.modelType, gpu.computeCapability)
      : null;
  // Estimated as asked (the allocation does not depend on which GPU the kernel is built for, and published runs
  // report these memory figures); the planner and `launch` keep it off these GPUs (plan/candidates.ts).
  if (flash)
    notes.unshift(`--attention flash: ${flash}; estimated as flash attention would allocate`);
  // FP8 training on a GPU without the matmul kernels (torch._scaled_mm, MX GEMMs): kernels/float8.ts; then the
  // engine's own hardware check of its recipe (its runs' float8Gpu).
  const f8 =
    gpu && isFloat8Compute(options.compute)
      ? (float8Refusal(
          options.compute,
          gpu.computeCapability,
          float8CheckSource(engine, options.compute),
        ) ?? float8GpuRefusal(engine, options.compute, gpu.computeCapability))
      : null;
  if (f8) throw badValue('--compute', options.compute, `a dtype this GPU trains in: ${f8}`);
  if (options.cpuMoeLayers !== undefined) notes.unshift(cpuMoeNote(arch, options.cpuMoeLayers));
  // A 4-bit KV cache: its bytes are counted and timed as read (memory/kv-layout.ts kvElementBytes); docs/engines.md.
  if (options.kvCacheDtype === 'q4_0')
    notes.unshift(
      '--kv-cache-dtype q4_0: the cache at 18 bytes per 32 elements (block_q4_0), its decode reads timed by their bytes; its dequantization and the 16-bit K/V copies flash attention makes of a quantized cache for steps of more than two queries a sequence are not counted',
    );
  if (flags['dp-attention'] === true && !options.dpAttention)
    notes.unshift(
      `--dp-attention with one data-parallel rank (--gpus ${options.gpus} / --tp ${options.tp}) is attention DP of width 1, which the engines run as plain tensor parallelism (sglang 0.5.23 srt/server_args.py: attention DP only above width 1; vLLM --data-parallel-size 1): estimated without it`,
    );
  if (!isEngine(flags.framework)) return notes;
  const picked = [
    attentionNote(flags.framework, flags.attention),
    lossNote(flags.framework, flags['chunked-loss'], options),
    parallelNote(flags.framework, options),
    float8LoraNote(flags.framework, options),
    float8RunsNote(flags.framework, options),
    loraTargetsNote(flags.framework, flags['lora-targets'], options),
  ];
  return [...picked.filter((n): n is string => n !== null), ...notes];
}

/** What `--n-cpu-moe N` moves (llama.cpp's CPU buffer override of blk.<i>.ffn_*_exps, i < N: common/arg.cpp). */
function cpuMoeNote(arch: Arch, n: number): string {
  const layers = arch.groups.reduce((a, g) => (g.name === 'vision' ? a : a + g.count), 0);
  if (!arch.groups.some((g) => g.experts > 1))
    return `--n-cpu-moe ${n}: ${arch.id} has no MoE expert tensors (blk.N.ffn_*_exps), so llama.cpp's override matches none and nothing moves`;
  return `--n-cpu-moe ${n}: the routed experts of the first ${Math.min(n, layers)} of ${layers} layers in host RAM; decode steps below 32 tokens multiply them on the CPU at host memory bandwidth, larger steps and each prefill ubatch copy the experts they use to the GPU over the host link (ggml op offload)`;
}

/** A positive integer flag of the image options (estimate only). */
function positiveInt(flags: RawFlags, flag: string): number | undefined {
  const v = flags[flag];
  if (v === undefined) return undefined;
  const n =
    typeof v === 'number' ? v : typeof v === 'string' && /^\s*\d+\s*$/.test(v) ? Number(v) : NaN;
  if (!Number.isSafeInteger(n) || n < 0 || n > MAX_IMAGE_INT)
    throw new FlagError(flag, v, `an integer from 0 to ${MAX_IMAGE_INT}`);
  return n;
}
const MAX_IMAGE_INT = 1_000_000_000;

/**
 * --images N (and --image-pixels P): the images' tokens join each sample's sequence, in training and in
 * inference (core/model/vision.ts); `launch`'s flag form applies them the same way. Returns the line the report
 * shows.
 */
export function imagesInto(arch: Arch, options: EstimateOptions, flags: RawFlags): string[] {
  const images = positiveInt(flags, 'images') ?? 0;
  const pixels = positiveInt(flags, 'image-pixels');
  if (pixels !== undefined && images === 0)
    throw new FlagError('image-pixels', pixels, 'only with --images N (N > 0)');
  if (images === 0) return textOnlyTower(arch, options);
  if (arch.vision && FRAMEWORKS[options.framework].dropsVisionTower === true)
    throw new FlagError(
      'images',
      images,
      `0: ${FRAMEWORKS[options.framework].name} loads only the language model of ${arch.id}, not its vision tower`,
    );
  const v = visionTokens(arch, images, pixels);
  if (!v)
    throw new FlagError(
      'images',
      images,
      arch.groups.some((g) => g.crossAttention === true)
        ? `0: ${arch.id}'s images enter through its cross-attention layers, not as tokens of the sequence; its vision tower's weights are estimated, its per-image activations are not modelled`
        : `0: ${arch.id} has no vision tower`,
    );
  options.seq += v.tokens;
  // The tower's own forward (activations, FLOPs) reads the images and their size (core/model/vision.ts).
  options.images = images;
  if (pixels !== undefined) options.imagePixels = pixels;
  const lines = [
    `--images ${images}: ${v.perImage} tokens per image of ${v.pixels} pixels, ${v.tokens} in all, added to the sequence (now ${options.seq} tokens)`,
  ];
  const run = towerRun(arch, images, pixels);
  const file = FRAMEWORKS[options.framework].visionFile;
  if (run && file)
    lines.push(
      `vision tower: a GGUF of its own (mmproj, ${(visionFileBytes(arch, file) / GiB).toFixed(2)} GiB, ${8 * file.matrixBytes}-bit matrices) on the first GPU, outside -ngl; ${run.patchesPerImage} patches per image through ${run.group.count} blocks, ${file.imagesAtOnce} image at a time`,
    );
  else if (run) {
    const mode = towerMode(
      run.group,
      options,
      trainableSet(options),
      arch.vision?.tower?.inputGradHook === true,
    );
    lines.push(
      `vision tower: ${run.patchesPerImage} patches per image through ${run.group.count} blocks before merging, ${TOWER_MODE_NOTE[mode]}`,
    );
  }
  return lines;
}

/**
 * A fine-tune of a multimodal checkpoint without --images: the wrapper class (Gemma3ForConditionalGeneration
 * and the other *ForConditionalGeneration classes) builds and loads its vision tower whatever the data, so the
 * tower's weights stay in `weights` though no image passes through it.
 */
function textOnlyTower(arch: Arch, options: EstimateOptions): string[] {
  const g = arch.groups.find((x) => x.name === 'vision');
  const fw = FRAMEWORKS[options.framework];
  if (g && arch.vision && fw.visionFile)
    return [
      `${fw.name} loads the language model's GGUF alone: the vision tower and projector are a GGUF of their own (mmproj), loaded and counted only with --images N; -ngl counts the ${loadedLayers(arch, fw)} text layers`,
    ];
  if (!g || options.method === 'inference') return [];
  if (fw.dropsVisionTower === true && arch.vision)
    return [
      `${fw.name} loads only the language model of this multimodal checkpoint: its vision tower and projector are neither loaded nor counted`,
    ];
  const blocks =
    g.count * g.linears.reduce((a, l) => a + l.inFeatures * l.outFeatures * l.copies, 0);
  return [
    `text-only fine-tune of a multimodal checkpoint: its ${g.count}-block vision tower (${(blocks / 1e6).toFixed(0)}M parameters in its blocks' linears, plus its embeddings and projector) is loaded and counted in weights although no image passes through it; give --images N to train on images`,
  ];
}
