/**
 * Serving plans whose weights no published checkpoint holds: the copy the user makes before serving (the quantize
 * step launch writes, launch/checkpoints.ts), its one-off GPU-hours, and whether the scenario says it exists.
 */
import type { WeightDtype } from '../../schema/estimate.js';
import type { Scenario } from '../../schema/scenario.js';
import { checkpointFor, GGUF_TYPE } from '../launch/checkpoints.js';
import { modelRepo, type Arch } from '../model/arch.js';
import { nativeWeights } from '../model/native-weights.js';
import { checkpointBytes } from '../memory/host-ram.js';

/** A plan's weights to make: the copy's name, the tool that makes it and the GPU-hours it takes. */
export interface MadeWeights {
  /** What MODEL points at once it is made (launch/checkpoints.ts). */
  ref: string;
  /** The tool that makes it: llm-compressor oneshot (GPU calibration) or llama.cpp's llama-quantize (CPU). */
  quantizer: 'llm-compressor' | 'llama-quantize';
  /**
   * GPU-hours of the quantize step (A100-hours from the quantizer's guide, scaled by parameters); 0 on the CPU, whose
   * wall time is not counted either (no published rate of llama-quantize on a CPU; docs/assumptions.md).
   */
  gpuHours: number;
}

// llm-compressor's runtime guide: Meta-Llama-3-8B-Instruct (8.03B parameters) on one A100, minutes per algorithm
// (docs/guides/runtime.md @be12cc6d, https://docs.vllm.ai/projects/llm-compressor/en/latest/guides/runtime/).
const GUIDE_PARAMS = 8.03e9;
const GUIDE_MINUTES = {
  /** AWQ (weights only): the W4A16 AWQModifier recipe launch writes for int4. */
  awq: 30,
  /** GPTQ (weights only): llm-compressor's W8A8 int8 recipe is SmoothQuant then GPTQ (examples/quantization_w8a8_int8). */
  gptq: 30,
  /** RTN weights and activations: NVFP4 calibrates its activations' global scales. */
  rtnActivations: 20,
  /** RTN weights only: FP8_DYNAMIC (per-token activation scales at run time, nothing to calibrate). */
  rtnWeights: 1,
} as const;

/** Guide minutes of the llm-compressor scheme launch writes for each weight format it makes. */
const SCHEME_MINUTES: Partial<Record<WeightDtype, number>> = {
  int4: GUIDE_MINUTES.awq,
  int8: GUIDE_MINUTES.gptq,
  nvfp4: GUIDE_MINUTES.rtnActivations,
  fp8: GUIDE_MINUTES.rtnWeights,
};

/**
 * One-off GPU-hours to quantize `params` parameters into `weights` with llm-compressor: the guide's A100 minutes
 * for an 8B model, scaled by total parameters. Sequential onloading calibrates one layer at a time
 * (docs/guides/memory.md) and oneshot routes every token through every expert of an MoE layer
 * (`moe_calibrate_all_experts`, default True, docs/guides/entrypoints/oneshot.md), so the work grows with total
 * parameters. llm-compressor's DeepSeek-R1 (671B) GPTQ example states about 48 hours on one A100
 * (examples/quantizing_moe/deepseek_r1_example.py @539b03e4); this rule gives 42. The hours are charged as hours of
 * the plan's own GPUs, with no speed-up claimed for a faster GPU.
 */
export function quantizeGpuHours(weights: WeightDtype, params: number): number {
  const minutes = SCHEME_MINUTES[weights] ?? GUIDE_MINUTES.awq;
  return ((minutes / 60) * params) / GUIDE_PARAMS;
}

/**
 * The weights a serving plan in `weights` must make first, or null: a published checkpoint, the model's own
 * format, a format the engine makes as it loads (fp8 from 16-bit, bitsandbytes) or one the scenario says it has
 * (`job.haveCheckpoints`) makes nothing. GGUF types are made by llama.cpp's convert and llama-quantize on the CPU
 * (tools/quantize/README.md), at no GPU-hours; their CPU wall time is not counted (the plan's note says so).
 */
export function madeWeightsOf(
  arch: Arch,
  s: Scenario,
  weights: WeightDtype,
  params: number,
): MadeWeights | null {
  if (s.job.kind !== 'inference') return null;
  if (s.job.haveCheckpoints?.includes(weights) === true) return null;
  const ck = checkpointFor(modelRepo(arch), arch.id, weights, nativeWeights(arch));
  if (ck.published || ck.steps.length === 0) return null;
  if (GGUF_TYPE[weights] !== undefined)
    return { ref: ck.ref, quantizer: 'llama-quantize', gpuHours: 0 };
  return { ref: ck.ref, quantizer: 'llm-compressor', gpuHours: quantizeGpuHours(weights, params) };
}

/**
 * Host RAM the quantize step holds: llm-compressor's oneshot takes the model as transformers loads it, whole on the
 * CPU in its 16-bit dtype, and onloads one decoder layer at a time to the GPU (sequential onloading): its memory guide
 * puts the CPU requirement at the whole model, 2 bytes a parameter (Meta-Llama-3-8B ~16 GB, DeepSeek-R1 684B
 * ~1368 GB; docs/guides/memory.md, docs/guides/sequential_onloading.md @2ed86ac7). llama.cpp's converter writes
 * lazily from memory-mapped safetensors (convert_hf_to_gguf.py: `--no-lazy` "use more RAM by computing all outputs
 * before writing") and llama-quantize memory-maps its input (src/llama-quant.cpp `use_mmap = true` on Linux): the
 * page cache, no held copy, so 0.
 */
export function quantizerHostBytes(
  m: MadeWeights,
  arch: { dtype: string },
  params: number,
): number {
  return m.quantizer === 'llm-compressor' ? checkpointBytes(arch, params) : 0;
}
