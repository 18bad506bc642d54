/**
 * A GEMM kernel that walks its rows in passes of fixed-height blocks (KernelFamily.mBlocks): Marlin splits the M rows
 * into blocks of 16 (mma.sync m16n8k16's rows), runs a kernel of 1-4 blocks (16-64 rows) where at most 4 remain and
 * the 4-block kernel once per 64 rows above that ("par" 64-row problems per launch; IST-DASLab/marlin
 * marlin/marlin_cuda_kernel.cu at e017bb46ddc9ab26be18790e5ff8404fee906d54, marlin_cuda's `tot_m_blocks` loop; the
 * same loop in vLLM's csrc/quantization/gptq_marlin). Each pass streams the whole weight matrix and multiplies its
 * padded rows: it takes the longer of the weight stream and its padded rows' FLOPs at the kernel's large-M rate.
 * IST-DASLab/marlin bench.py on an A100 (vllm-project/vllm#2497, resorcap's comment of 2024-01-24) shows both regimes:
 * 1.15 TB/s and 0.14 ms from batch 1 to 16 (the stream), 0.18 ms at 32, 0.29 ms at 64 (139.7 TFLOP/s, the large-M
 * rate), 0.57 ms at 128: two 64-row passes.
 */
import type { EstimateOptions } from '../../schema/estimate.js';
import type { ModelFacts } from './model-facts.js';
import { shapeFactor } from './shape.js';
import { embedOnly } from './train-work.js';

export interface MBlocks {
  /** Rows of one block (a kernel pads the rows to whole blocks). */
  rows: number;
  /** Blocks of the largest kernel: above rows x perPass the kernel repeats that one. */
  perPass: number;
}

/**
 * Seconds of a GEMM of `m` rows through a kernel that tiles its rows (`b`): the full passes of rows x perPass rows
 * and the last pass of the rest padded to whole blocks, each the longer of `stream` (one read of the weights) and
 * its padded rows at `rowSeconds` a row (the FLOPs of one row at the kernel's large-M rate).
 */
export function mBlockSeconds(m: number, b: MBlocks, stream: number, rowSeconds: number): number {
  if (m <= 0) return 0;
  const passRows = b.rows * b.perPass;
  const full = Math.floor(m / passRows);
  const rest = Math.ceil((m - full * passRows) / b.rows) * b.rows;
  const pass = (rows: number): number => Math.max(stream, rows * rowSeconds);
  return full * pass(passRows) + (rest > 0 ? pass(rest) : 0);
}

/**
 * Seconds of a dense model's linears over `rows` rows on a GPU where the step's kernel tiles its rows at a sourced
 * large-M rate (`tr.mBlocks`, decode.ts Traffic): its passes, each the weights' one read (`read`: decode.ts
 * prefillWeightSeconds) or its padded rows' FLOPs at `tr.prefillRate` for a matrix as wide as the model; null
 * elsewhere (an MoE's passes are per expert).
 */
export function linearPasses(
  m: ModelFacts,
  o: EstimateOptions,
  tr: { mBlocks: MBlocks | null; prefillRate: number },
  read: number,
): ((rows: number) => number) | null {
  const b = tr.mBlocks;
  if (b === null || m.experts > 1) return null;
  const row =
    (2 * (m.active - embedOnly(m)) + m.recurrentFlopsPerToken) /
    o.tp /
    (tr.prefillRate * shapeFactor(Infinity, m.hidden / o.tp));
  return (rows) => mBlockSeconds(rows, b, read, row);
}
