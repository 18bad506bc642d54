/**
 * An int4 Marlin MoE that launches one GEMM kernel per expert (FrameworkProfile.perExpertMarlinMoe): vLLM 0.7's
 * `marlin_gemm_moe` (csrc/moe/marlin_moe_ops.cu `marlin_mm_moe`: `compute_expert_offsets`, then `for (int expert_idx =
 * 0; expert_idx < num_experts; ++expert_idx)` launching `MarlinMoE<<<sms, ...>>>` once per expert; the kernel returns
 * at once where `expert_offsets` gives its expert no rows). `fused_marlin_moe` calls it twice a layer, for the gate-up
 * and the down GEMM (vllm==0.7.2 wheel, model_executor/layers/fused_moe/fused_marlin_moe.py). A decode step's graph
 * replays every one of those kernels: an expert the step routes tokens to costs a graph kernel's gap as any kernel of
 * the chain, one it does not costs an empty kernel's. The fused chain's own one GEMM kernel a call is already counted.
 */
import { FRAMEWORKS } from '../memory/frameworks.js';
import type { EstimateOptions } from '../../schema/estimate.js';
import type { QuantFormat, TimeOptions } from '../../schema/time.js';
import { releaseAtLeast } from '../compare-releases.js';
import { distinctExperts } from './expert-balance.js';
import type { ModelFacts } from './model-facts.js';

// fused_marlin_moe's two marlin_gemm_moe calls a layer: w13 (gate-up) and w2 (down), vllm==0.7.2 fused_marlin_moe.py
// (https://github.com/vllm-project/vllm/blob/v0.7.2/vllm/model_executor/layers/fused_moe/fused_marlin_moe.py)
const EXPERT_GEMMS_PER_LAYER = 2;

// An empty kernel inside a CUDA graph on an H100: 1.3 µs (Hazy Research, "Look Ma, No Bubbles!", 2025-05-27,
// https://hazyresearch.stanford.edu/blog/2025-05-27-no-bubbles; 2.1 µs launched outside a graph).
export const EMPTY_GRAPH_KERNEL_SECONDS = 1.3e-6;

// The int4 kernels whose MoE runs Marlin's: Marlin itself and a GPTQ checkpoint, whose experts the engine gives its
// Marlin MoE method whatever the linears run (sglang==0.4.6.post1 layers/quantization/__init__.py
// gptq_get_quant_method: a FusedMoE layer gets GPTQMarlinMoEMethod under GPTQConfig and GPTQMarlinConfig alike).
const MARLIN_MOE_FORMATS: readonly QuantFormat[] = ['marlin', 'gptq'];

/**
 * Whether the run's release launches its int4 Marlin MoE one kernel per expert (FrameworkProfile.perExpertMarlinMoe):
 * on an NVIDIA GPU from compute capability 8.0 (Marlin's minimum; no Marlin on AMD, `gfx` set).
 */
export function runsPerExpertMarlinMoe(
  m: Pick<ModelFacts, 'moeLayers'>,
  o: EstimateOptions,
  t: TimeOptions,
  q: QuantFormat | null,
  r: { cc?: number; gfx?: string },
): boolean {
  const p = FRAMEWORKS[o.framework].perExpertMarlinMoe;
  return (
    p !== undefined &&
    q !== null &&
    MARLIN_MOE_FORMATS.includes(q) &&
    r.gfx === undefined &&
    (r.cc ?? 0) >= 8 &&
    o.weights === 'int4' &&
    m.moeLayers > 0 &&
    t.engineVersion !== undefined &&
    !releaseAtLeast(t.engineVersion, p.before)
  );
}

/**
 * Seconds a decode step of `o.batch` sequences adds for those per-expert launches beyond the fused chain's one GEMM
 * kernel a call: each call's own extra kernels and its routed experts but one at `gap` (the step's graph kernel gap),
 * its idle experts at an empty kernel's (a launched one's `gap` where the step replays no graph).
 */
export function perExpertMoeSeconds(
  m: Pick<ModelFacts, 'moeLayers' | 'experts' | 'topK'>,
  o: EstimateOptions,
  t: TimeOptions,
  q: QuantFormat | null,
  r: { cc?: number; gfx?: string; gap: number },
): number {
  if (!runsPerExpertMarlinMoe(m, o, t, q, r)) return 0;
  const gap = r.gap;
  const p = FRAMEWORKS[o.framework].perExpertMarlinMoe;
  const ep = Math.max(1, o.ep ?? 1);
  const held = m.experts / ep;
  const routed = Math.min(held, distinctExperts(m, o.batch) / ep);
  const empty = t.ungraphedDecode === true ? gap : EMPTY_GRAPH_KERNEL_SECONDS;
  const perCall =
    ((p?.kernelsPerCall ?? 0) + Math.max(0, routed - 1)) * gap + (held - routed) * empty;
  return m.moeLayers * EXPERT_GEMMS_PER_LAYER * perCall;
}
