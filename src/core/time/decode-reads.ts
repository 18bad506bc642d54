/** What a decode step's weights cost to read beside the kernel table (time/decode.ts decodeTraffic): the lm_head's
 * element width, the MXFP4 models' dense linears, dequantized copies held in L2, and the bytes a tile kernel unpacks. */
import { FRAMEWORKS } from '../memory/frameworks.js';
import { cacheTpOf, decodeCacheBytes, kvElementBytes } from '../memory/kv-layout.js';
import { FLOAT_BYTES, ggufTensorBytes } from '../model/dtypes.js';
import { floatCompute, isGguf, type EstimateOptions } from '../../schema/estimate.js';
import type { QuantFormat } from '../../schema/time.js';
import type { GpuRates } from './hardware.js';
import { weightBytes, type ModelFacts } from './model-facts.js';
import { stepMatVecs } from './decode-tp.js';

/** Bytes per lm_head element a step reads: 16-bit in bitsandbytes/GPTQ/AWQ checkpoints (llm_int8_skip_modules default;
 * AutoGPTQ) and NVFP4 GGUF files; torchao's with the rest; a GGUF type's output-head type at its width
 * (ggufTensorBytes); an MXFP4 MoE checkpoint's with its other dense linears. */
export function headElementBytes(
  m: ModelFacts,
  o: EstimateOptions,
  q: QuantFormat | null,
  wb: number,
  denseBytes: number,
): number {
  if (o.weights === 'mxfp4') return denseBytes;
  if (q === 'gguf' && isGguf(o.weights)) return ggufTensorBytes(o.weights, m.hidden, true);
  return q === 'torchao' ? wb : 2;
}

/**
 * The share of a routed expert's weights in its down projection (hidden x expert width, of the 2 or 3 matrices
 * the expert holds): the down projections' share of the experts a step reads.
 */
export const expertDownShare = (m: ModelFacts): number =>
  m.expertWeightsPerLayer > 0 ? Math.min(1, (m.hidden * m.expertFfn) / m.expertWeightsPerLayer) : 0;

/**
 * Bytes per element of an MXFP4 MoE model's non-expert linears and lm_head as the engine stores them, and the
 * efficiency they are read at. Hugging Face checkpoints keep them in BF16 (quantization_config.modules_to_not_convert:
 * self_attn, the router, embed_tokens, lm_head; https://huggingface.co/openai/gpt-oss-20b/blob/main/config.json),
 * read as a 16-bit GEMV; an engine whose files store them quantized (FrameworkProfile.mxfp4Dense) reads them
 * through its quantized kernel family at its 8-bit efficiency.
 */
export function mxfp4DenseRead(
  o: EstimateOptions,
  e: { eff8: number } | null,
): { bytes: number; eff: number } {
  const d = FRAMEWORKS[o.framework].mxfp4Dense;
  if (o.weights !== 'mxfp4' || d === undefined) return { bytes: 2, eff: 1 };
  return { bytes: weightBytes(d), eff: e ? e.eff8 : 1 };
}

/**
 * Weight elements of a dense model's step whose dequantized copy (`bytes` per element, copyBytes) fits in the GPU's
 * L2: a kernel that dequantizes a matrix to memory and then multiplies it reads the copy back from L2 when it fits
 * (bitsandbytes' 4-bit path dequantizes each shard, then F.linear: bitsandbytes autograd/_functions.py
 * MatMul4Bit.forward; vLLM's `_apply_4bit_weight` as unsloth_zoo 7b78d53 vllm_utils.py patches it calls matmul_4bit
 * once per shard).
 * L2 sizes: the catalog's l2CacheMiB (vendor whitepapers).
 */
export function l2HeldElements(m: ModelFacts, r: GpuRates, bytes: number): number {
  const l2 = r.l2Bytes ?? 0;
  if (l2 <= 0 || m.experts > 1) return 0;
  // The layers' matrices (the output head stays 16-bit and is not dequantized).
  let held = 0;
  for (const v of stepMatVecs(m).slice(0, -1))
    if (v.rows * v.cols * bytes <= l2) held += v.rows * v.cols * v.count;
  return held;
}

/**
 * The weights a step's mat-vecs unpack (KernelFamily.issue): every one read, the distinct experts of an MoE layer
 * included. Above the mat-vec's columns, the tile kernel unpacks each block once per column tile: the dense matrices'
 * tiles cover the step's B tokens, a routed expert's its own share of them (B x topK over the distinct experts).
 */
export function unpackedBytes(
  m: ModelFacts,
  B: number,
  issue: { maxColumns: number; tileColumns: number },
  w: {
    bf16Read: number;
    denseBytes: number;
    qRead: number;
    feRead: number;
    expertRead: number;
    wb: number;
  },
  h: { layers: number; head: boolean; moved: number; headBytes: number },
): number {
  const tiles = (tokens: number): number =>
    B > issue.maxColumns ? Math.ceil(tokens / issue.tileColumns) : 1;
  const qExperts = w.expertRead - w.feRead;
  const expertTokens =
    w.expertRead > 0 ? (B * m.topK * m.expertWeightsPerLayer * m.moeLayers) / w.expertRead : 0;
  return (
    ((w.bf16Read * w.denseBytes + (w.qRead - qExperts) * w.wb) * (1 - h.layers) +
      (h.head ? 0 : h.headBytes)) *
      tiles(B) +
    (qExperts * w.wb * (1 - h.layers) - w.expertRead * w.wb * h.moved) * tiles(expertTokens)
  );
}

/**
 * The cache one sequence's step reads at context `ctx`, per GPU, in the layout memory stores (kv-layout.ts; cacheTpOf:
 * a row split keeps it all on the main GPU): the MLA latent, this rank's KV heads, a sliding window's cells, a
 * recurrent state read and written.
 */
export function stepCacheBytes(m: ModelFacts, o: EstimateOptions, ctx: number): number {
  const fw = FRAMEWORKS[o.framework];
  const c = FLOAT_BYTES[floatCompute(o.compute)];
  const kvElem = kvElementBytes(fw, o.kvCacheDtype, c);
  return decodeCacheBytes(m.arch, fw, { c, tp: cacheTpOf(fw, o.tp), kvElem }, ctx);
}
