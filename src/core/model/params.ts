/** Exact parameter counts from a normalized `Arch` (unique parameters; tied weights once; buffers excluded). */
import type { Arch, LayerGroup, Linear, ParamCounts } from './arch.js';

/** Weight elements of one linear kind, all copies. */
export const linearWeights = (l: Linear): number => l.inFeatures * l.outFeatures * l.copies;

/** Bias elements of one linear kind, all copies. */
export const linearBiases = (l: Linear): number => (l.bias ? l.outFeatures * l.copies : 0);

/** Weights + biases of one linear kind, all copies. */
export const linearParams = (l: Linear): number => linearWeights(l) + linearBiases(l);

/** Parameters of one linear kind that a token does not touch (MoE experts beyond topK). */
const inactiveParams = (l: Linear): number =>
  (linearParams(l) / l.copies) * (l.copies - l.activeCopies);

const sum = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0);

/** Parameters of one layer of a group. */
export const layerParams = (g: LayerGroup): number =>
  sum(g.linears.map(linearParams)) + g.otherParamsPerLayer;

/** Parameters of all layers of a group. */
export const groupParams = (g: LayerGroup): number => g.count * layerParams(g);

export function paramCounts(arch: Arch): ParamCounts {
  const perGroup = (f: (l: Linear) => number) =>
    sum(arch.groups.map((g) => g.count * sum(g.linears.map(f))));
  const linear = perGroup(linearWeights);
  const linearBias = perGroup(linearBiases);
  const other = arch.otherParams + sum(arch.groups.map((g) => g.count * g.otherParamsPerLayer));
  const total = arch.embedParams + arch.lmHeadParams + linear + linearBias + other;
  const mtp = arch.mtpParams ?? 0;
  return {
    total,
    active: total - perGroup(inactiveParams),
    embed: arch.embedParams,
    lmHead: arch.lmHeadParams,
    linear,
    linearBias,
    other,
    largestLayer: Math.max(0, ...arch.groups.map(layerParams)),
    mtp,
    checkpoint: total + mtp,
  };
}
