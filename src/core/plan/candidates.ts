/**
 * Named generators of valid values per search axis, each with its validity predicate (STYLE.md example 7,
 * after Calculon's get_all_tensor_parallelisms / get_valid_microbatch_sizes). Pure and deterministic:
 * values come out in preference order (the conventional choice first), which is also the tie-break order.
 */
import type { Arch } from '../model/arch.js';
import { SEARCHED_OPTIMIZERS } from '../engines/optimizers.js';
import {
  CHECKPOINTING,
  isGguf,
  type Attention,
  type Checkpointing,
  type Method,
  type Offload,
  type Optimizer,
  type WeightDtype,
} from '../../schema/estimate.js';

/** Weight storage per method: full fine-tunes train float weights; QLoRA needs a quantized base (flags.ts rules). */
export function weightDtypes(
  method: Method,
  allowed?: readonly WeightDtype[],
  native?: WeightDtype | null,
  fp4Cores = false,
  published: readonly WeightDtype[] = [],
): { weights: WeightDtype; doubleQuant: boolean }[] {
  const defaults: Record<Method, WeightDtype[]> = {
    full: ['bf16', 'fp32'],
    lora: ['bf16', 'int8'],
    qlora: ['nf4', 'fp4'],
    // Serving: AWQ/GPTQ int4 (Marlin) and the GGUF types practitioners run on llama.cpp besides the rest.
    inference: ['bf16', 'fp8', 'int8', 'nf4', 'int4', 'q4_k_m', 'q8_0'],
  };
  const valid: Record<Method, (w: WeightDtype) => boolean> = {
    full: (w) => w === 'fp32' || w === 'fp16' || w === 'bf16',
    lora: () => true,
    qlora: (w) => !(w === 'fp32' || w === 'fp16' || w === 'bf16'),
    inference: () => true,
  };
  // Serving a checkpoint that ships quantized (gpt-oss MXFP4, FP8 or AWQ/GPTQ repositories): its own format
  // is searched first, so it wins ties with a format that would need another checkpoint.
  // A checkpoint that ships in MXFP4 (gpt-oss: the MoE weights were released in MXFP4 only, model card) has no
  // 16-bit original to make an AWQ/GPTQ or NF4 copy from: those 4-bit formats are not offered beside it.
  // Nor a 4-bit GGUF: convert_hf_to_gguf.py writes gpt-oss's experts as they ship, GGML MXFP4 (GptOssModel.repack_mxfp4,
  // ggml-org/llama.cpp@a458664fc83b6513baea7adafcb0ef0626b006f8), and llama-quantize refuses to turn those into
  // Q4_K or Q4_0 ("requantizing from type mxfp4 is disabled" without --allow-requantize, src/llama-quant.cpp
  // @8784689fee07c6daabf3487d24e1535534ef6e6b): llama.cpp serves the MXFP4 GGUF itself (ggml-org/gpt-oss-120b-GGUF).
  // Nor fp8 or int8: the engines' online `--quantization fp8` over a checkpoint whose config names mxfp4 is refused
  // ("Quantization method specified in the model config (mxfp4) does not match ... (fp8)": fp8 is no compatible
  // or requantization method, ModelConfig._verify_quantization, sglang 0.5.23 python/sglang/srt/configs/model_config.py),
  // and an llm-compressor FP8 or W8A8 copy would be made from the same missing 16-bit original.
  // A checkpoint that ships AWQ/GPTQ int4 has no 16-bit weights either: fp8, int8 and nvfp4 are not offered beside
  // it (engines/serve-common.ts int4CheckpointRule).
  const requantized = (w: WeightDtype) =>
    (native === 'mxfp4' &&
      (w === 'int4' ||
        w === 'nf4' ||
        w === 'q4_k_m' ||
        w === 'q4_0' ||
        w === 'fp8' ||
        w === 'int8')) ||
    (native === 'int4' && (w === 'fp8' || w === 'int8' || w === 'nvfp4'));
  // Serving on Blackwell (FP4 tensor cores): NVFP4 beside the rest (searchedMinCapability keeps it there).
  if (fp4Cores) defaults.inference.push('nvfp4');
  // A GGUF type the model's publisher or a trusted quantizer releases (catalogs/checkpoints.json) beside the rest:
  // Google's QAT Q4_0 of Gemma 3 (google/gemma-3-12b-it-qat-q4_0-gguf) is the file its llama.cpp users run, and
  // neither it nor a published Q5_K_M / Q6_K is made first (plan/made-weights.ts).
  for (const w of published)
    if (isGguf(w) && !defaults.inference.includes(w)) defaults.inference.push(w);
  const base =
    allowed ??
    (method === 'inference' && native
      ? [native, ...defaults.inference.filter((w) => w !== native && !requantized(w))]
      : defaults[method]);
  const list = base.filter(valid[method]);
  const out: { weights: WeightDtype; doubleQuant: boolean }[] = [];
  for (const w of list) {
    // QLoRA paper: NF4 with double quantization is the recommended recipe; offer both.
    if (method === 'qlora' && (w === 'nf4' || w === 'fp4'))
      out.push({ weights: w, doubleQuant: true });
    out.push({ weights: w, doubleQuant: false });
  }
  return out;
}

// NVFP4 runs on the FP4 tensor cores of Blackwell (compute capability 10.0 and 12.0: "5th-generation Tensor
// Cores", https://developer.nvidia.com/blog/introducing-nvfp4-for-efficient-and-accurate-low-precision-inference/);
// older GPUs run it weight-only (vLLM's FP4 Marlin), no better than AWQ int4, so the search offers it there only.
const FP4_CORES_CC = 10.0;

/** Whether a GPU of compute capability `cc` has FP4 tensor cores (Blackwell). */
export const hasFp4Cores = (cc: string | null | undefined): boolean =>
  Number(cc ?? 0) >= FP4_CORES_CC;

/** The least compute capability the search offers a weight format on (0: any the engine runs it on). */
export const searchedMinCapability = (w: WeightDtype): number => (w === 'nvfp4' ? FP4_CORES_CC : 0);

/** The optimizers profiled as searched (engines/optimizers.ts), in preference order, or only 'none' (inference). */
export function optimizers(method: Method, allowed?: readonly Optimizer[]): Optimizer[] {
  if (method === 'inference') return ['none'];
  return (allowed ?? SEARCHED_OPTIMIZERS).filter((o) => o !== 'none');
}

/** Checkpointing modes to search (each engine's profile says which it runs: engines/<engine>/profile.ts). */
export function checkpointings(
  method: Method,
  allowed?: readonly Checkpointing[],
): Checkpointing[] {
  if (method === 'inference') return ['none'];
  return [...(allowed ?? CHECKPOINTING)];
}

/**
 * Eager attention is never better than SDPA in memory or speed, so it is searched only when asked for, or for a
 * model with attention sinks (Arch.attentionSinks): transformers has no SDPA for it (GptOssPreTrainedModel
 * _supports_sdpa = False at v5.14.1) and runs its flash attention on Hopper only (engines/hf/flash-kernels.ts),
 * so eager is what the Hugging Face engines train it with elsewhere.
 */
export function attentions(allowed?: readonly Attention[], sinks = false): Attention[] {
  return [...(allowed ?? (sinks ? ['flash', 'sdpa', 'eager'] : ['flash', 'sdpa']))];
}

/** Micro-batch sizes that divide the global batch per data-parallel rank (Calculon get_valid_microbatch_sizes). */
export function microBatches(globalBatch: number, allowed?: readonly number[]): number[] {
  const base = allowed ?? [1, 2, 4, 8, 16];
  return base.filter((b) => b <= globalBatch);
}

/**
 * Tensor-parallel degrees that divide the GPU count and the attention heads, inside a node, and divide the KV heads
 * or, with `replicateKv` (serving), are a multiple of them: vLLM's and SGLang's QKVParallelLinear give each rank one
 * KV head, `num_kv_head_replicas = tp_size / total_num_kv_heads`, where tp_size >= the KV heads (vllm/model_executor/
 * layers/linear.py, sglang/srt/layers/linear.py), as memory (kv-layout.ts attentionTokenBytes) and time store them.
 */
export function tensorParallelisms(
  gpus: number,
  arch: Arch,
  maxTp: number,
  allowed?: readonly number[],
  replicateKv = false,
): number[] {
  const g = arch.groups[0];
  const heads = g?.heads ?? 1;
  const kv = g?.kvHeads ?? 1;
  const list = allowed ?? [1, 2, 4, 8];
  const kvSplits = (t: number) => kv % t === 0 || (replicateKv && t % kv === 0);
  return list.filter((t) => t <= maxTp && gpus % t === 0 && heads % t === 0 && kvSplits(t));
}

/** Pipeline degrees that divide the remaining GPUs and leave at least one layer per stage. */
export function pipelineParallelisms(
  gpusOverTp: number,
  layers: number,
  allowed?: readonly number[],
): number[] {
  const list = allowed ?? [1, 2, 4, 8];
  return list.filter((p) => gpusOverTp % p === 0 && p <= layers);
}

export interface Sharding {
  zero: 0 | 1 | 2 | 3;
  offload: Offload;
}

/**
 * ZeRO stage and offload for a layout. Sharding needs data parallelism (dp > 1) except ZeRO-Offload/Infinity on
 * one rank and ZeRO-2 on one rank, the plain run of an engine without ZeRO-0 (EngineProfile.oneRankZero: the
 * planner offers it to that engine alone, engines.ts searchSkipsOneRank); parameter offload needs ZeRO-3. Which
 * engine runs which stage with TP/PP is the engine profiles' business (core/engines/engines.ts: torchtitan pairs
 * FSDP with TP/PP; the HF engines run neither). Over several ranks LoRA's few trainable parameters make
 * optimizer-state sharding (1/2) moot: only ZeRO-3 (sharding the frozen base, FSDP+QLoRA) is searched.
 */
export function shardings(
  method: Method,
  dp: number,
  tp: number,
  pp: number,
  allowedZero?: readonly number[],
  allowedOffload?: readonly Offload[],
): Sharding[] {
  const all: Sharding[] = [
    { zero: 0, offload: 'none' },
    { zero: 1, offload: 'none' },
    { zero: 2, offload: 'none' },
    { zero: 3, offload: 'none' },
    { zero: 2, offload: 'optimizer' },
    { zero: 3, offload: 'optimizer' },
    { zero: 3, offload: 'optimizer+params' },
  ];
  return all.filter((s) => {
    if (allowedZero && !allowedZero.includes(s.zero)) return false;
    if (allowedOffload && !allowedOffload.includes(s.offload)) return false;
    if (method === 'inference') return s.zero === 0;
    if (dp === 1 && s.offload === 'none') return s.zero === 0 || s.zero === 2;
    // Without TP/PP, ZeRO-2 shards more than ZeRO-1 for the same traffic (2Ψ, ZeRO §7): ZeRO-1 is dominated.
    if (tp === 1 && pp === 1 && s.zero === 1) return false;
    if ((method === 'lora' || method === 'qlora') && (s.zero === 1 || s.zero === 2)) return false;
    return true;
  });
}

/** GPU counts to consider: up to one node any count, beyond it whole nodes (clusters are built from nodes). */
export function gpuCounts(min: number, max: number, gpusPerNode: number): number[] {
  const out: number[] = [];
  for (let c = min; c <= max; c++) if (c <= gpusPerNode || c % gpusPerNode === 0) out.push(c);
  return out;
}

export { nativeWeights } from '../model/native-weights.js';
