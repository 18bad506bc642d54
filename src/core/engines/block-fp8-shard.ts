/**
 * Block-scaled FP8 checkpoints (quantization_config.weight_block_size, [block_n, block_k]) split over
 * tensor-parallel ranks: each engine refuses a rank's share of an MLP's intermediate width that its weight blocks do
 * not tile, but the engines differ in which split they check and what they do instead. One check, read through each
 * engine's `BlockFp8Sharding` (engines/sglang/rules.ts, engines/vllm/rules.ts).
 */
import type { RuleInput } from './rules.js';
import type { EstimateOptions } from '../../schema/estimate.js';

export interface BlockFp8Sharding {
  /** Ranks one routed expert's intermediate width is split over (1: each rank holds whole experts). */
  moeWays: (o: EstimateOptions) => number;
  /** Ranks a dense MLP's intermediate width is split over. */
  denseWays: (o: EstimateOptions) => number;
  /**
   * Which weight-block sides a dense MLP's share must be a multiple of: 'nk' both (gate/up column-parallel by
   * block_n, down row-parallel by block_k); 'k' the down projection's block_k only (the merged gate/up exempt).
   */
  denseSides: 'nk' | 'k';
  /**
   * Where an expert's share does not tile: the finest square block the engine refines the checkpoint's scales to
   * (gcd of both block sides, the share and the hidden width), loading it where that is at least this; null: refused.
   */
  moeRefineMin: number | null;
}

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

/** Whether an expert's share of `ways` ranks loads: it tiles, or the engine refines the blocks to a finer grid. */
function expertShareLoads(
  share: number,
  ways: number,
  hidden: number,
  block: readonly [number, number],
  s: BlockFp8Sharding,
): boolean {
  if (share % block[0] === 0 && (ways === 1 || share % block[1] === 0)) return true;
  if (s.moeRefineMin === null) return false;
  return [block[0], block[1], share, hidden].reduce(gcd) >= s.moeRefineMin;
}

/**
 * The MLP intermediate width one rank holds where a block-scaled FP8 checkpoint's weight blocks do not tile it and
 * the engine (`s`) refuses it; null where every share loads, or the checkpoint is not block-scaled FP8.
 */
export function blockFp8RefusedShard(x: RuleInput, s: BlockFp8Sharding): number | null {
  const block = x.arch.quant?.method === 'fp8' ? x.arch.quant.block : undefined;
  if (!block || x.options.weights !== 'fp8') return null;
  for (const g of x.arch.groups) {
    if (g.name !== 'decoder') continue;
    const moe = g.experts > 1;
    const ways = moe ? s.moeWays(x.options) : s.denseWays(x.options);
    if (ways <= 1) continue;
    const share = g.ffn / ways;
    const refused = moe
      ? !expertShareLoads(share, ways, g.hidden, block, s)
      : share % block[1] !== 0 || (s.denseSides === 'nk' && share % block[0] !== 0);
    if (refused) return share;
  }
  return null;
}
