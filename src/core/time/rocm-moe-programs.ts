/**
 * How many CUs an MXFP4 MoE's weight-only kernel keeps busy on an AMD target without FP4 matrix cores
 * (KernelFamily.rocmMoeIssue, time/decode.ts). triton_kernels' `matmul_ogs` launches one program per routed expert and
 * column tile of its weight (a block of the expert's rows by `tileColumns` output columns, the whole K in its loop),
 * and a program's FP4 unpacking runs on its own CU: where a step routes to few experts, fewer programs than the card
 * has CUs run, each at one CU's rate, and the rest of the CUs idle. ROCm/triton#970's decode GEMM of gpt-oss-20b's
 * experts (top-4, M 1) is 4 experts x 24 column tiles = 96 programs on 96 of an MI300X's 304 CUs, the rate
 * KernelFamily.rocmMoeIssue takes a CU.
 *
 * The expert's two GEMMs (vLLM's `triton_kernel_fused_experts`: gate_up with the SwiGLU fused, then down; vllm 0.10.1
 * vllm/model_executor/layers/fused_moe/gpt_oss_triton_kernels_moe.py) are counted apart: gate_up N = the expert's
 * gate and up rows (K = hidden), down N = hidden (K = the expert's width), N and K of the expert's width split over
 * the TP ranks. More programs than CUs are taken as spread evenly (no wave rounding).
 */
import type { ModelFacts } from './model-facts.js';

/**
 * The rows one program of the kernel takes, by the tokens the step routes to an expert on average (triton_kernels'
 * `tokens_per_expt`: the step's tokens x top-k over the experts): the next power of two of it between `min` and
 * `max`, or `large` where it is `largeFromRows` or more and the GEMM has at least `largeMinColumns` output columns.
 */
export interface RocmMoeBlockRows {
  min: number;
  max: number;
  large: number;
  largeFromRows: number;
  largeMinColumns: number;
}

const nextPowerOfTwo = (x: number): number => Math.pow(2, Math.ceil(Math.log2(Math.max(1, x))));

/**
 * Row blocks a routed expert's tokens fill in one GEMM of `columns` output columns: `rowsPerRouted` tokens a routed
 * expert at `rowsPerExpert` tokens an expert (the block size's input). Each block is a program of its own, which
 * unpacks the expert's FP4 tile again (matmul_ogs' grid is row blocks x column tiles).
 */
export function rocmMoeRowBlocks(
  b: RocmMoeBlockRows,
  rowsPerExpert: number,
  rowsPerRouted: number,
  columns: number,
): number {
  const block =
    rowsPerExpert >= b.largeFromRows && columns >= b.largeMinColumns
      ? b.large
      : Math.max(b.min, Math.min(nextPowerOfTwo(rowsPerExpert), b.max));
  // A mean a float's hair over a whole block (E(1 - (1 - k/E)^B) rounds just below E) fills that block, not one more.
  return Math.max(1, Math.ceil(rowsPerRouted / block - 1e-9));
}

/** One expert's two GEMMs on this GPU: gate_up (N = its gate and up rows, K = hidden) and down (N = hidden). */
function expertGemms(m: ModelFacts, tp: number): { elements: number; columns: number }[] {
  const down = m.hidden * m.expertFfn; // one expert's down projection
  const gateUp = m.expertWeightsPerLayer - down; // its gate and up rows, K = hidden
  return [
    { elements: gateUp, columns: gateUp / m.hidden / tp },
    { elements: down, columns: m.hidden },
  ];
}

/**
 * The factor (1 or more) by which a step's routed-expert unpacking work takes longer than at every CU of the card:
 * each GEMM's bytes over the CUs its programs occupy, `distinct` routed experts a layer of `blocks(columns)` row
 * blocks each (one where absent). 1 where the CU count is not known.
 */
export function rocmMoeIdleFactor(
  m: ModelFacts,
  tp: number,
  cus: number | undefined,
  tileColumns: number,
  distinct: number,
  blocks: (columns: number) => number = () => 1,
): number {
  if (distinct <= 0 || m.expertFfn <= 0) return 1;
  let scaled = 0;
  for (const g of expertGemms(m, tp)) {
    const n = blocks(g.columns);
    const programs = distinct * n * Math.ceil(g.columns / tileColumns);
    scaled += g.elements * n * (cus === undefined ? 1 : Math.max(1, cus / programs));
  }
  return scaled / m.expertWeightsPerLayer;
}

/**
 * The routed-expert weight elements a step's MXFP4 MoE unpacks on the CUs, idle CUs counted: `expertRead` stored
 * elements of `distinct` routed experts a layer at `tokens` tokens, each expert's once a row block of each GEMM.
 */
export function rocmMoeUnpackedElements(
  m: ModelFacts,
  tp: number,
  cus: number | undefined,
  k: { blockRows: RocmMoeBlockRows; tileColumns: number },
  step: { tokens: number; distinct: number; expertRead: number },
): number {
  const routed = step.tokens * m.topK;
  const perExpert = routed / m.experts;
  const perRouted = step.distinct > 0 ? routed / step.distinct : 0;
  const blocks = (columns: number) => rocmMoeRowBlocks(k.blockRows, perExpert, perRouted, columns);
  return step.expertRead * rocmMoeIdleFactor(m, tp, cus, k.tileColumns, step.distinct, blocks);
}
