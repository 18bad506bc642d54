/**
 * Liger twins: a LoRA/QLoRA row without Liger's kernels and the row of the same configuration and layout with them
 * (configs.ts variantsOf). The Liger row never needs more memory (the frozen output layer gets no weight gradient:
 * kernels/liger.ts), but its output layer runs in chunks of rows (kernels/liger.ts ligerChunkGemmSlowdown), which
 * can outweigh its fused kernels; so the search times both and keeps the faster, or both within the tie band
 * (loop.ts slowerTwin).
 */
import type { Rows, Variant } from './configs.js';

/**
 * Per engine variant, the index of its Liger twin among `variants`: the variant without Liger that searches one
 * (Variant.ligerTwin) and the engine's Liger variant point at each other; -1 for every other variant.
 */
export function ligerTwinVariants(variants: readonly Variant[]): Int8Array {
  const out = new Int8Array(variants.length).fill(-1);
  variants.forEach((v, vi) => {
    if (!v.ligerTwin) return;
    const twin = variants.findIndex(
      (w) => w.engine === v.engine && w.liger && !w.optimizerInBackward && w.tiledMlp !== true,
    );
    if (twin < 0) return;
    out[vi] = twin;
    out[twin] = vi;
  });
  return out;
}

/** Whether rows `a` and `b` are one layout of one configuration (buildRows adds its variants' rows in a run). */
const sameLayout = (rows: Rows, a: number, b: number): boolean =>
  rows.base[a] === rows.base[b] &&
  rows.count[a] === rows.count[b] &&
  rows.tp[a] === rows.tp[b] &&
  rows.pp[a] === rows.pp[b] &&
  rows.dp[a] === rows.dp[b] &&
  rows.zero[a] === rows.zero[b] &&
  rows.offload[a] === rows.offload[b] &&
  rows.accum[a] === rows.accum[b];

/**
 * The row of `r`'s Liger twin (`twins`: ligerTwinVariants), or -1 where its variant has none or its layout's run
 * left the twin out (the engine, launcher or quality check refused it): rows.ts buildRows adds the variants that
 * run one layout of one configuration as consecutive rows, so the twin is among its neighbours of that layout.
 */
export function twinRowOf(rows: Rows, twins: Int8Array, r: number): number {
  const want = twins[rows.variant[r]!]!;
  if (want < 0) return -1;
  for (let q = r - 1; q >= 0 && sameLayout(rows, q, r); q--) if (rows.variant[q] === want) return q;
  for (let q = r + 1; q < rows.n && sameLayout(rows, q, r); q++)
    if (rows.variant[q] === want) return q;
  return -1;
}
