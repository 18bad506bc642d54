/** The engine's LoRA path beside each adapted dense linear: passes over the activations and kernels per micro-batch. */
import { loraDropoutOn } from '../memory/lora-dropout.js';
import { FRAMEWORKS } from '../memory/frameworks.js';
import { engineLora, type EngineLora } from '../memory/setup.js';
import { type LoraPathCost } from '../memory/lora-path-profile.js';
import { builtAdapterBytes } from '../memory/trainable-width.js';
import { isFloatDtype } from '../model/dtypes.js';
import type { EstimateOptions } from '../../schema/estimate.js';
import type { LinearRole } from '../model/arch.js';
import type { TimeOptions } from '../../schema/time.js';
import type { ModelFacts } from './model-facts.js';

/** The layout facts the path reads (train-work.ts WorkLayout). */
interface AdapterLayout {
  lora: boolean;
  tp: number;
  tokens: number;
  layersHere: number;
}

const MLP_ROLES: ReadonlySet<LinearRole> = new Set(['gate', 'up', 'down']);
const NO_LORA: EngineLora = { adapters: [], experts: [] };

/**
 * The engine's LoRA adapters on the language model (memory/setup.ts engineLora: the list the memory count sums),
 * none without LoRA; the vision tower's are timed with the tower. `expertLinears`: the routed experts run in a
 * per-expert loop of nn.Linear modules (the 'loop' dispatch), each adapted apart.
 */
export function textLora(m: ModelFacts, o: EstimateOptions, expertLinears = false): EngineLora {
  if (o.method !== 'lora' && o.method !== 'qlora') return NO_LORA;
  const all = engineLora(m.arch, o, FRAMEWORKS[o.framework], expertLinears);
  let text = TEXT_LORA.get(all);
  if (text === undefined) {
    text = {
      adapters: all.adapters.filter((a) => a.group.name !== 'vision'),
      experts: all.experts.filter((e) => e.group.name !== 'vision'),
    };
    TEXT_LORA.set(all, text);
  }
  return text;
}

/**
 * textLora's lists by engineLora's (read-only, memoized per architecture and trainable set): a training work asks
 * for them several times (its adapter weights, path and gathers), and filtered once they are the same lists.
 */
const TEXT_LORA = new WeakMap<EngineLora, EngineLora>();

const NO_ADAPTER_PATH = { fwdBytes: 0, bwdBytes: 0, fwdOps: 0, bwdOps: 0, fp32Flops: 0 };

/**
 * The engine's LoRA path beside each adapted dense linear of this rank's layers (its profile's loraPath): the
 * passes over the linear's input (d_in) and output (d_out) activations and the kernels, in forward and backward.
 * Column-parallel projections (q, k, v, gate, up) keep their whole input and a 1/tp share of their output,
 * row-parallel ones (o, down) the reverse. Routed experts' adapters are timed in expertWork.
 */
export function adapterPathWork(
  m: ModelFacts,
  o: EstimateOptions,
  w: AdapterLayout,
  t: TimeOptions,
) {
  const main = FRAMEWORKS[o.framework].loraPath;
  if (!w.lora || !main) return NO_ADAPTER_PATH;
  const tp = w.tp;
  const adapters = textLora(m, o).adapters;
  const adapted = new Set(adapters.filter((a) => !a.module).flatMap((a) => a.roles));
  // A path fused by group runs where the group's linears are each adapted (LoraPathCost.partialGroup); a fused
  // checkpoint module (Linear.module) is one linear to it: the unfused path.
  const whole = (g: LinearRole[]) => g.every((r) => adapted.has(r));
  const pathOf = (g: LinearRole[]) => (main.partialGroup && !whole(g) ? main.partialGroup : main);
  const qkv = pathOf(['q', 'k', 'v']);
  const mlpPath = pathOf(m.gated ? ['gate', 'up', 'down'] : ['up', 'down']);
  const single = main.partialGroup ?? main;
  const sum = { fwdBytes: 0, bwdBytes: 0, fwdOps: 0, bwdOps: 0, fp32Flops: 0 };
  const fp32Mm = fp32AdapterMatmuls(main, o, t);
  const add = (path: LoraPathCost, dIn: number, dOut: number, layers: number) => {
    const c = linearPathCost(path, o, t, dIn, dOut);
    const perLayer = w.tokens * (o.compute === 'fp32' ? 4 : 2) * layers;
    sum.fwdBytes += c.fwd * perLayer;
    sum.bwdBytes += c.bwd * perLayer;
    sum.fwdOps += c.fwdOps * layers;
    sum.bwdOps += c.bwdOps * layers;
    // lora_A and lora_B of this linear: 2 FLOPs per adapter weight per token forward (TrainWork.adapterFp32Flops).
    if (fp32Mm) sum.fp32Flops += 2 * w.tokens * o.loraRank * (dIn + dOut) * layers;
  };
  // Routed experts' adapters are timed in expertWork, and so are an MoE model's MLP adapters.
  const mlp = m.experts <= 1;
  const share = m.layers > 0 ? w.layersHere / m.layers : 0;
  for (const a of adapters) {
    if (a.copies > 1) continue;
    const layers = a.group.count * share;
    const [r] = a.roles;
    const mlpRole = a.roles.every((x) => MLP_ROLES.has(x));
    if (mlpRole && !mlp) continue;
    // Row-parallel projections (o, down) split their input over tp, the column-parallel others their output.
    const rowParallel = r === 'o' || r === 'down' || r === 'cross_o';
    const dIn = rowParallel ? a.inFeatures / tp : a.inFeatures;
    const dOut = rowParallel ? a.outFeatures : a.outFeatures / tp;
    const path = a.module
      ? single
      : r === 'q' || r === 'k' || r === 'v'
        ? qkv
        : mlpRole
          ? mlpPath
          : r === 'o'
            ? main
            : single;
    add(path, dIn, dOut, layers);
  }
  return sum;
}

/**
 * Whether the adapters' matmuls run in fp32: PEFT's branch on fp32 adapters (get_peft_model's
 * autocast_adapter_dtype=True) casts x to lora_A.weight.dtype (`_cast_input_dtype`, peft v0.20.0
 * src/peft/tuners/lora/layer.py Linear.forward; bnb.py Linear4bit.forward does the same when
 * `not torch.is_autocast_enabled()`), and with no autocast nothing casts it back, so lora_A and lora_B are fp32
 * matmuls: on CUDA-core FMA, since PyTorch leaves TF32 off for matmuls (torch.backends.cuda.matmul.allow_tf32
 * defaults to False, https://pytorch.org/docs/stable/notes/cuda.html#tensorfloat-32-tf32-on-ampere-and-later-devices).
 * Only a path with an fp32 branch (PEFT's) casts; engines that cast the adapters to the input's dtype do not.
 */
function fp32AdapterMatmuls(main: LoraPathCost, o: EstimateOptions, t: TimeOptions): boolean {
  if (main.fp32Branch === undefined || t.noAutocast !== true || o.compute === 'fp32') return false;
  return builtAdapterBytes(o, FRAMEWORKS[o.framework], t) === 4;
}

/** One adapted linear's passes (in elements of its input and output widths) and kernels on a LoRA path. */
function linearPathCost(
  path: LoraPathCost,
  o: EstimateOptions,
  t: TimeOptions,
  dIn: number,
  dOut: number,
) {
  const quantized = o.method === 'qlora' || !isFloatDtype(o.weights);
  const fw = FRAMEWORKS[o.framework];
  // fp32 adapters (the width memory counts, memory/trainable-width.ts builtAdapterBytes: fp32Adapters, but not
  // under castsParamsToComputeDtype or zero3AdaptersInWeightDtype, nor where the run's PEFT kept them in the weights'
  // dtype: adaptersInWeightDtype) take the cast. FSDP mixed precision gathers parameters in param_dtype, adapters
  // included, which would skip it: not modelled.
  const fp32 = builtAdapterBytes(o, fw, t) === 4;
  const cast = !quantized && o.compute !== 'fp32' && fp32;
  // LoRA dropout: --lora-dropout, else the engine's default or a run that set it (TimeOptions.loraDropout).
  const dropped = loraDropoutOn(o, fw, t.loraDropout);
  // Without autocast the fp32 adapters' branch computes in fp32 (LoraPathCost.fp32Branch).
  const branch = cast && t.noAutocast === true ? path.fp32Branch : undefined;
  const fill =
    t.deterministicFill === true ? fillCost(path, branch !== undefined, cast, dropped) : NO_FILL;
  const drop = dropped ? (branch?.dropoutIn ?? path.dropoutIn) : 0;
  const dropOps = drop > 0 ? 1 : 0;
  const fused = o.compile ? path.compiledSavesOut : 0;
  const castIn = cast ? path.fp32CastIn : 0;
  const castOps = cast ? path.fp32CastOps : 0;
  const fwdIn = (branch ? branch.fwdIn : path.fwdIn + castIn) + drop + fill.fwdIn;
  const fwdOut =
    (branch ? branch.fwdOut : path.fwdOut) +
    (quantized ? path.quantFwdOut : 0) -
    fused +
    fill.fwdOut;
  const bwdIn = (branch ? branch.bwdIn : path.bwdIn + castIn) + drop + fill.bwdIn;
  const bwdOut = (branch ? branch.bwdOut : path.bwdOut) + fill.bwdOut;
  return {
    fwd: fwdIn * dIn + fwdOut * dOut,
    bwd: bwdIn * dIn + bwdOut * dOut,
    fwdOps:
      (branch ? branch.fwdOps : path.fwdOps + castOps) +
      (quantized ? path.quantFwdOps : 0) +
      dropOps +
      fill.fwdOps -
      (o.compile ? path.compiledSavesOps : 0),
    bwdOps: (branch ? branch.bwdOps : path.bwdOps + castOps) + dropOps + fill.bwdOps,
  };
}

const NO_FILL = { fwdIn: 0, fwdOut: 0, fwdOps: 0, bwdIn: 0, bwdOut: 0, bwdOps: 0 };

/**
 * The deterministic NaN fill of the path's allocations (LoraPathCost.deterministicFill): the fp32 branch's or the
 * autocast path's casts, where the adapters are cast at all, and the dropout's outputs where the run sets one (its
 * output and mask: two fills forward, one backward).
 */
function fillCost(path: LoraPathCost, fp32Branch: boolean, cast: boolean, dropped: boolean) {
  const f = path.deterministicFill;
  if (!f) return NO_FILL;
  const c = fp32Branch ? f.fp32 : f.autocast;
  const casts = cast ? 1 : 0;
  const drops = dropped ? 1 : 0;
  const d = cast ? c.dropout : c.dropout16;
  return {
    fwdIn: casts * c.fwdIn + drops * d.fwdIn,
    fwdOut: casts * c.fwdOut,
    fwdOps: casts * c.fwdOps + drops * 2,
    bwdIn: casts * c.bwdIn + drops * d.bwdIn,
    bwdOut: casts * c.bwdOut,
    bwdOps: casts * c.bwdOps + drops,
  };
}
