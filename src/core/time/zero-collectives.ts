/**
 * ZeRO-3's all-gather collectives in one pass over this rank's layers (an engine's zeroHooks.host3: DeepSpeed's).
 * `fetch_sub_module` prefetches along the recorded trace up to `min(stage3_max_live_parameters - live,
 * stage3_prefetch_bucket_size)` elements a call, at least one parameter, in one collective
 * (partitioned_param_coordinator.py, DeepSpeed v0.14.4): the parameters above the persistence threshold, in the
 * order the modules run, grouped greedily until a group reaches the bucket. A weight larger than the bucket is a
 * collective of its own; small LoRA parameters ride with the next weight. A group of more than one parameter goes
 * through `_all_gather_dtype` and `AllGatherCoalescedHandle` (one flat buffer sliced once per rank, and in `wait` each
 * parameter's partitions sliced and recorded on the compute stream once per rank: partition_parameters.py, DeepSpeed
 * v0.14.4 and v0.19.8 alike); a lone parameter gathers into its own buffer (`AllGatherHandle`), with no per-rank work.
 */
import type { EstimateOptions } from '../../schema/estimate.js';
import type { ModelFacts } from './model-facts.js';
import type { LayerGroup, Linear } from '../model/arch.js';
import { linearModules, type LinearModule } from '../model/trainable.js';
import { FRAMEWORKS } from '../memory/frameworks.js';
import { loraModel } from '../memory/setup.js';
import { textLora } from './adapter-path.js';

/** The prefetch bucket and persistence threshold in elements (the run's config or the engine's defaults). */
export interface GatherBuckets {
  prefetch: number;
  persistence: number;
}

/** Coalesced collectives (more than one parameter) and the parameters they gather, per pass. */
export interface Coalesced {
  groups: number;
  params: number;
}

/** Collectives per pass: outside a per-expert loop, and inside it (the experts' own parameters). */
export interface GatherCollectives {
  outside: number;
  loop: number;
  /** Of those, the coalesced ones, outside the loop and in it. */
  coalesced: { outside: Coalesced; loop: Coalesced };
}

/** A group sequence's counts: all groups, and the coalesced groups and their parameters. */
interface Counts {
  groups: number;
  multi: number;
  multiParams: number;
}

/** Greedy groups of a parameter sequence: a group closes once its elements reach the bucket. */
class Grouper {
  readonly c: Counts = { groups: 0, multi: 0, multiParams: 0 };
  private acc = 0;
  private n = 0;
  constructor(private readonly b: GatherBuckets) {}
  add(numel: number): void {
    if (numel <= this.b.persistence) return;
    this.acc += numel;
    this.n++;
    if (this.acc >= this.b.prefetch) this.shut();
  }
  private shut(): void {
    this.c.groups++;
    if (this.n > 1) {
      this.c.multi++;
      this.c.multiParams += this.n;
    }
    this.acc = 0;
    this.n = 0;
  }
  /** The parameters of one linear (or fused module): its weight, then PEFT's lora_A and lora_B where adapted. */
  linear(l: Pick<Linear, 'inFeatures' | 'outFeatures'>, rank: number): void {
    this.add(l.inFeatures * l.outFeatures);
    if (rank > 0) {
      this.add(rank * l.inFeatures);
      this.add(l.outFeatures * rank);
    }
  }
  /** The counts with a trailing partial group closed: it is a collective too. */
  closed(): Counts {
    const c = { ...this.c };
    if (this.n > 0) c.groups++;
    if (this.n > 1) {
      c.multi++;
      c.multiParams += this.n;
    }
    return c;
  }
}

const COUNT_KEYS = ['groups', 'multi', 'multiParams'] as const;

/** Groups over `layers` repeats of a layer's parameters, the partial group carried from one layer to the next. */
function repeated(b: GatherBuckets, layers: number, layer: (g: Grouper) => void): Counts {
  const out: Counts = { groups: 0, multi: 0, multiParams: 0 };
  if (layers <= 0) return out;
  const g = new Grouper(b);
  layer(g);
  // Part of one layer on this rank (a pipeline stage's share): that share of one layer's groups.
  if (layers <= 1) {
    const c = g.closed();
    for (const k of COUNT_KEYS) out[k] = layers * c[k];
    return out;
  }
  const first = { ...g.c };
  layer(g);
  // The second layer's groups are every later layer's (the carry repeats); the trailing partial group once.
  const end = g.closed();
  for (const k of COUNT_KEYS)
    out[k] = first[k] + (layers - 1) * (g.c[k] - first[k]) + (end[k] - g.c[k]);
  return out;
}

const coalesced = (c: Counts): Coalesced => ({ groups: c.multi, params: c.multiParams });

/**
 * The `layers` layers of `g`: the dense linears, then the experts (one by one in a loop, as their module otherwise).
 * A fused checkpoint module (Linear.module) is one weight and, adapted, one lora_A / lora_B pair.
 */
function layerGroups(
  g: LayerGroup,
  layers: number,
  b: GatherBuckets,
  rankOf: (l: LinearModule) => number,
  run: { loop: boolean; hit: number },
): GatherCollectives {
  const modules = linearModules(g);
  const dense = modules.filter((l) => l.copies <= 1);
  const experts = modules.filter((l) => l.copies > 1);
  const looped = run.loop && experts.length > 0;
  const outside = repeated(b, layers, (gr) => {
    for (const l of dense) gr.linear(l, rankOf(l));
    // Grouped (or leaf) experts: every expert's weights and adapters gathered with the layer's others.
    if (!looped)
      for (const l of experts)
        gr.linear({ ...l, outFeatures: l.outFeatures * l.copies }, rankOf(l));
  });
  const hit = Math.round(run.hit);
  const loop = looped
    ? repeated(b, layers, (gr) => {
        for (let e = 0; e < hit; e++) for (const l of experts) gr.linear(l, rankOf(l));
      })
    : { groups: 0, multi: 0, multiParams: 0 };
  return {
    outside: outside.groups,
    loop: loop.groups,
    coalesced: { outside: coalesced(outside), loop: coalesced(loop) },
  };
}

/**
 * All-gathers of one pass over `layersHere` layers; `loop` with `hit` experts a layer in a per-expert loop
 * (`expertLinears`: the experts are nn.Linear modules, looped whether or not DeepSpeed hooks each). The
 * linears as the engine's LoRA sees them (memory/setup.ts loraModel), adapted where its adapter list says (textLora).
 */
export function gatherCollectives(
  m: ModelFacts,
  o: EstimateOptions,
  layersHere: number,
  b: GatherBuckets,
  run: { loop: boolean; hit: number; expertLinears?: boolean },
): GatherCollectives {
  const lora = textLora(m, o, run.expertLinears ?? run.loop);
  const adapted = new Set<Linear>(lora.adapters.flatMap((a) => a.linears));
  const rankOf = (l: LinearModule) => (l.linears.some((x) => adapted.has(x)) ? o.loraRank : 0);
  const scale = m.layers > 0 ? layersHere / m.layers : 0;
  const out = noGathers();
  for (const g of loraModel(m.arch, FRAMEWORKS[o.framework]).groups) {
    if (g.name === 'vision') continue;
    const per = layerGroups(g, g.count * scale, b, rankOf, run);
    out.outside += per.outside;
    out.loop += per.loop;
    for (const k of ['outside', 'loop'] as const) {
      out.coalesced[k].groups += per.coalesced[k].groups;
      out.coalesced[k].params += per.coalesced[k].params;
    }
  }
  return out;
}

/** No collectives (one rank, or no ZeRO-3). */
export function noGathers(): GatherCollectives {
  return {
    outside: 0,
    loop: 0,
    coalesced: { outside: { groups: 0, params: 0 }, loop: { groups: 0, params: 0 } },
  };
}

/** The all-gather collectives of one pass, outside a per-expert loop and in it (0 where none is counted). */
export function gatherCalls(g: GatherCollectives | undefined): number {
  return g === undefined ? 0 : g.outside + g.loop;
}

/**
 * The share of a pass's gathered elements that ZeRO-3's backward gathers again under full recompute. After a
 * module's recompute, `release_sub_module` keeps its parameters when the recorded trace uses them again within
 * `stage3_max_reuse_distance` elements (`__params_to_release` walks `__submodule_order[step_id:]`, adding each
 * module's parameter elements, partitioned_param_coordinator.py at DeepSpeed v0.14.4). Between a linear's recompute
 * and its backward the trace runs the recompute and then the backward of every later linear of its checkpointed
 * layer: twice their elements. The linears' weights only (adapters are about 1% of them at rank 64); parameters
 * outside the layers (embeddings, output head) are used again only across the whole model and are gathered again.
 * `expertLoop`: the routed experts run in a per-expert loop whose linears ZeRO-3 hooks one by one (transformers 4.x
 * `for expert_idx in range(self.num_experts)`), so the trace holds each expert's linears in turn and the window keeps
 * only the experts near the end of the loop; grouped (or a leaf block) they are one module a projection.
 */
export function backwardRegatherShare(
  m: ModelFacts,
  o: EstimateOptions,
  reuse: number,
  expertLoop = false,
): number {
  if (m.total <= 0) return 1;
  let kept = 0;
  for (const g of loraModel(m.arch, FRAMEWORKS[o.framework]).groups) {
    if (g.name === 'vision') continue;
    const weights = traceWeights(linearModules(g), expertLoop);
    let after = 0;
    for (let k = weights.length - 1; k >= 0; k--) {
      if (2 * after < reuse) kept += g.count * weights[k]!.size;
      after += weights[k]!.size;
    }
  }
  return Math.min(1, Math.max(0, 1 - kept / m.total));
}

/** One weight of a layer's trace: its elements, and whether it is a looped expert's. */
interface TraceWeight {
  size: number;
  loop: boolean;
}

/**
 * A layer's linear weights in the order its trace runs them: a module with several copies (the routed experts) is one
 * entry of all its copies, or under `expertLoop` each expert's own linears in turn from the first expert module's
 * place (transformers 4.x's loop calls expert 0's gate, up and down, then expert 1's).
 */
function traceWeights(modules: readonly LinearModule[], expertLoop: boolean): TraceWeight[] {
  const experts = modules.filter((l) => l.copies > 1);
  const looped = expertLoop && experts.length > 0;
  const out: TraceWeight[] = [];
  for (const l of modules) {
    if (!looped || l.copies <= 1)
      out.push({ size: l.inFeatures * l.outFeatures * l.copies, loop: false });
    else if (l === experts[0])
      for (let e = 0; e < l.copies; e++)
        for (const x of experts) out.push({ size: x.inFeatures * x.outFeatures, loop: true });
  }
  return out;
}

/** The share of a pass's collectives that the backward issues again: outside a per-expert loop, and in it. */
export interface RegatherShares {
  outside: number;
  loop: number;
}

/**
 * Under full recompute, the share of the recompute's collectives ZeRO-3's backward issues again: the weights
 * `release_sub_module` let go after the recompute because the trace's next use lies beyond `reuse` elements (the
 * window backwardRegatherShare reads), counted by weight, not by element (outside the loop a weight larger than the
 * prefetch bucket is a collective of its own; a per-expert loop's experts are alike). Parameters outside the layers
 * are left out, as there.
 */
export function backwardRegatherShares(
  m: ModelFacts,
  o: EstimateOptions,
  reuse: number,
  expertLoop: boolean,
): RegatherShares {
  const n = { outside: 0, loop: 0 };
  const again = { outside: 0, loop: 0 };
  for (const g of loraModel(m.arch, FRAMEWORKS[o.framework]).groups) {
    if (g.name === 'vision') continue;
    const weights = traceWeights(linearModules(g), expertLoop);
    let after = 0;
    for (let k = weights.length - 1; k >= 0; k--) {
      const kind = weights[k]!.loop ? 'loop' : 'outside';
      n[kind] += g.count;
      if (2 * after >= reuse) again[kind] += g.count;
      after += weights[k]!.size;
    }
  }
  return {
    outside: n.outside > 0 ? again.outside / n.outside : 0,
    loop: n.loop > 0 ? again.loop / n.loop : 0,
  };
}
