/**
 * A decode step under piecewise CUDA graphs (TimeOptions.piecewiseGraphs): the captured pieces between attention ops
 * replay on the GPU while the host issues each layer's attention op from Python, one torch call after another (the
 * engine's piecewiseAttentionCalls, each at EAGER_OP_SECONDS of dispatch, plus the op's Python where the engine
 * measured it, kvPythonSeconds). The host runs ahead of the GPU as far as
 * the GPU's work lets it: the step takes the longer of the GPU's work and these calls (decode.ts). The GPU's work
 * grows too: at each split it idles between the last piece and the eager kernels and the next piece's graph launch
 * (the engine's gapSeconds per attention layer). The host also replays each captured piece with its own cudaGraphLaunch
 * between those calls, whose host time grows with the piece's kernel nodes (the engine's pieceLaunchNodeSeconds).
 * Pricing a view or slice as a whole dispatch is an assumption, listed
 * in calibration/assumed.json. A model with attention sinks runs the engine's sink-capable backend where the GPU
 * lacks the usual one (the engine's piecewiseAttentionCalls.sinks): FlashInfer's, or a Triton backend whose JIT
 * launches cost TRITON_LAUNCH_SECONDS each on the host besides its torch calls.
 */
import type { FrameworkProfile } from '../memory/framework-profile.js';
import type { TimeOptions } from '../../schema/time.js';
import type { ModelFacts } from './model-facts.js';
import type { Arch } from '../model/arch.js';
import { EAGER_OP_SECONDS } from './train-work.js';

// Host time of one launch of a compiled Triton kernel through its Python JIT entry (JITFunction.run: binding and
// specializing the arguments, the cache lookup, the launch): 18 µs after triton-lang/triton#3648 (2024-04, down from
// 49 µs; the benchmark of triton-lang/triton#3619, a kernel of a user's argument types).
export const TRITON_LAUNCH_SECONDS = 18e-6;

type Calls = NonNullable<FrameworkProfile['piecewiseAttentionCalls']>;

/**
 * The kernel a K/V-head layer's eager attention op runs on a decode step of `rows` sequences: the engine's usual
 * backend ('kv'), or for a model with sinks its FlashInfer backend, or its Triton unified attention, which splits
 * the keys into segments while its grid of (rows // BLOCK_Q + rows) x K/V heads stays within splitGrid ('split'),
 * else runs one program a query block and K/V head over the whole context ('single').
 */
function layerKernel(
  calls: Calls,
  sinks: boolean,
  cc: number,
  rows: number,
  heads: number,
  kvHeads: number,
): 'kv' | 'flashinfer' | 'split' | 'single' {
  const s = calls.sinks;
  const major = Math.floor(cc);
  if (!sinks || !s || s.kvCc.includes(major)) return 'kv';
  if (s.flashinfer.cc.includes(major)) return 'flashinfer';
  const blockQ = Math.max(1, Math.floor(s.blockQueries / Math.max(1, heads / kvHeads)));
  const blocks = Math.floor(rows / blockQ) + rows;
  return blocks * kvHeads <= s.splitGrid ? 'split' : 'single';
}

/** Host seconds of one K/V-head layer's eager attention op running `kernel` (layerKernel). */
function kvLayerSeconds(calls: Calls, kernel: ReturnType<typeof layerKernel>): number {
  const s = calls.sinks;
  if (kernel === 'kv' || !s) return calls.kv * EAGER_OP_SECONDS + (calls.kvPythonSeconds ?? 0);
  if (kernel === 'flashinfer') return s.flashinfer.torch * EAGER_OP_SECONDS;
  const k = kernel === 'split' ? s.split : s.single;
  return k.torch * EAGER_OP_SECONDS + k.triton * TRITON_LAUNCH_SECONDS;
}

/**
 * What the piecewise split costs a decode step of `rows` sequences on a GPU of compute capability `cc` (0: not
 * CUDA), the heads split over `tp` ranks: `host`, the seconds the host spends issuing the attention layers' eager
 * calls; `gpu`, the seconds the GPU idles at the splits (the engine's gapSeconds per attention layer). Both 0 unless
 * the step runs piecewise graphs.
 */
export function piecewiseAttentionSeconds(
  m: ModelFacts,
  fw: FrameworkProfile,
  t: TimeOptions,
  step: { cc: number; rows: number; tp: number; graphKernels?: number },
): { host: number; gpu: number } {
  const calls = fw.piecewiseAttentionCalls;
  if (!t.piecewiseGraphs || !calls) return { host: 0, gpu: 0 };
  let host = 0;
  let layers = 0;
  let mla = 0;
  for (const { g, kernel } of layerKernels(m, calls, step)) {
    host +=
      g.count * (kernel === null ? calls.mla * EAGER_OP_SECONDS : kvLayerSeconds(calls, kernel));
    layers += g.count;
    if (kernel === null) mla += g.count;
  }
  return {
    host: host + pieceLaunchSeconds(m, fw, calls, step, layers, mla),
    gpu: layers * calls.gapSeconds,
  };
}

/**
 * The host's cudaGraphLaunch time for the captured pieces of a piecewise step: each node of the step's graph kernels
 * (`graphKernels`, as decode-host.ts counts them) less those the eager attention op runs (the engine's `kv` kernels a
 * layer, and an MLA layer's own kernels beyond the chain, FrameworkProfile.decodeFeatureKernels mlaLayer), at the
 * engine's pieceLaunchNodeSeconds.
 */
function pieceLaunchSeconds(
  m: ModelFacts,
  fw: FrameworkProfile,
  calls: Calls,
  step: { cc: number; graphKernels?: number },
  layers: number,
  mla: number,
): number {
  const perNode = calls.pieceLaunchNodeSeconds ?? 0;
  if (perNode === 0 || step.graphKernels === undefined) return 0;
  const mlaOwn = fw.decodeFeatureKernels?.(m.modelType, step.cc)?.mlaLayer ?? 0;
  const eager = layers * calls.kv + mla * mlaOwn;
  return Math.max(0, step.graphKernels - eager) * perNode;
}

/** Each decoder attention group and the kernel its eager op runs (null: an MLA group). */
function layerKernels(
  m: ModelFacts,
  calls: Calls,
  step: { cc: number; rows: number; tp: number },
): { g: Arch['groups'][number]; kernel: ReturnType<typeof layerKernel> | null }[] {
  const sinks = m.arch.attentionSinks === true;
  return m.arch.groups
    .filter((g) => g.name === 'decoder' && !g.recurrent)
    .map((g) => ({
      g,
      kernel:
        g.mlaCacheWidth === null
          ? layerKernel(
              calls,
              sinks,
              step.cc,
              step.rows,
              Math.max(1, g.heads / step.tp),
              Math.max(1, g.kvHeads / step.tp),
            )
          : null,
    }));
}

/**
 * The attention layers of a piecewise-graph decode step of `rows` sequences whose Triton unified attention runs its
 * unsplit kernel (layerKernel's 'single'): one program a query block and K/V head walks its sequence's cache blocks
 * one block a tile (the engine's piecewiseAttentionCalls.sinks, where the walk is sourced). time/decode-attention.ts
 * prices the walk where the engine's ROCm decode walk is priced. 0 elsewhere.
 */
export function unsplitTritonLayers(
  m: ModelFacts,
  fw: FrameworkProfile,
  t: TimeOptions,
  step: { cc: number; rows: number; tp: number },
): number {
  const calls = fw.piecewiseAttentionCalls;
  if (!t.piecewiseGraphs || !calls) return 0;
  let layers = 0;
  for (const { g, kernel } of layerKernels(m, calls, step))
    if (kernel === 'single') layers += g.count;
  return layers;
}
