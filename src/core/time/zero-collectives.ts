/**
 * ZeRO-3's all-gather collectives in one pass over this rank's layers (an engine's zeroHooks.host3: DeepSpeed's).
 * `fetch_sub_module` prefetches along the recorded trace up to `min(stage3_max_live_parameters - live,
 * stage3_prefetch_bucket_size)` elements a call, at least one parameter, in one collective
 * (partitioned_param_coordinator.py, DeepSpeed v0.14.4): the parameters above the persistence threshold, in the
 * order the modules run, grouped greedily until a group reaches the bucket. A weight larger than the bucket is a
 * collective of its own; small LoRA parameters ride with the next weight.
 */
import type { EstimateOptions, LoraTarget } from '../../schema/estimate.js';
import type { ModelFacts } from './model-facts.js';
import type { LayerGroup, Linear } from '../model/arch.js';

/** The prefetch bucket and persistence threshold in elements (the run's config or the engine's defaults). */
export interface GatherBuckets {
  prefetch: number;
  persistence: number;
}

/** Collectives per pass: outside a per-expert loop, and inside it (the experts' own parameters). */
export interface GatherCollectives {
  outside: number;
  loop: number;
}

/** Greedy groups of a parameter sequence: a group closes once its elements reach the bucket. */
class Grouper {
  groups = 0;
  private acc = 0;
  constructor(private readonly b: GatherBuckets) {}
  add(numel: number): void {
    if (numel <= this.b.persistence) return;
    this.acc += numel;
    if (this.acc >= this.b.prefetch) {
      this.groups++;
      this.acc = 0;
    }
  }
  /** The parameters of one linear: its weight, then PEFT's lora_A and lora_B where adapted. */
  linear(l: Linear, rank: number): void {
    this.add(l.inFeatures * l.outFeatures);
    if (rank > 0) {
      this.add(rank * l.inFeatures);
      this.add(l.outFeatures * rank);
    }
  }
  /** A trailing partial group is a collective too. */
  close(): number {
    return this.groups + (this.acc > 0 ? 1 : 0);
  }
}

/** Groups over `layers` repeats of a layer's parameters, the partial group carried from one layer to the next. */
function repeated(b: GatherBuckets, layers: number, layer: (g: Grouper) => void): number {
  if (layers <= 0) return 0;
  const g = new Grouper(b);
  layer(g);
  // Part of one layer on this rank (a pipeline stage's share): that share of one layer's groups.
  if (layers <= 1) return layers * g.close();
  const first = g.groups;
  layer(g);
  // The second layer's groups are every later layer's (the carry repeats).
  return first + (layers - 1) * (g.groups - first) + (g.close() > g.groups ? 1 : 0);
}

/** The `layers` layers of `g`: the dense linears, then the experts (one by one in a loop, as their module otherwise). */
function layerGroups(
  g: LayerGroup,
  layers: number,
  b: GatherBuckets,
  rankOf: (l: Linear) => number,
  run: { loop: boolean; hit: number },
): GatherCollectives {
  const dense = g.linears.filter((l) => l.copies <= 1);
  const experts = g.linears.filter((l) => l.copies > 1);
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
    : 0;
  return { outside, loop };
}

/** All-gathers of one pass over `layersHere` layers; `loop` with `hit` experts a layer in a per-expert loop. */
export function gatherCollectives(
  m: ModelFacts,
  o: EstimateOptions,
  layersHere: number,
  b: GatherBuckets,
  run: { loop: boolean; hit: number },
): GatherCollectives {
  const lora = o.method === 'lora' || o.method === 'qlora';
  const targets = new Set<LoraTarget>(o.loraTargets);
  const rankOf = (l: Linear) => (lora && targets.has(l.role as LoraTarget) ? o.loraRank : 0);
  const scale = m.layers > 0 ? layersHere / m.layers : 0;
  const out: GatherCollectives = { outside: 0, loop: 0 };
  for (const g of m.arch.groups) {
    if (g.name === 'vision') continue;
    const per = layerGroups(g, g.count * scale, b, rankOf, run);
    out.outside += per.outside;
    out.loop += per.loop;
  }
  return out;
}
