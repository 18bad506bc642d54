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
 * The factor (1 or more) by which a step's routed-expert unpacking work takes longer than at every CU of the card:
 * each GEMM's bytes over the CUs its programs occupy, `distinct` routed experts a layer. 1 where the CU count is not
 * known.
 */
export function rocmMoeIdleFactor(
  m: ModelFacts,
  tp: number,
  cus: number | undefined,
  tileColumns: number,
  distinct: number,
): number {
  if (cus === undefined || distinct <= 0 || m.expertFfn <= 0) return 1;
  const down = m.hidden * m.expertFfn; // one expert's down projection
  const gateUp = m.expertWeightsPerLayer - down; // its gate and up rows, K = hidden
  const gemms = [
    { elements: gateUp, columns: gateUp / m.hidden / tp },
    { elements: down, columns: m.hidden },
  ];
  let scaled = 0;
  for (const g of gemms) {
    const programs = distinct * Math.ceil(g.columns / tileColumns);
    scaled += g.elements * Math.max(1, cus / programs);
  }
  return scaled / m.expertWeightsPerLayer;
}
