/** The format a checkpoint ships in, as the contract names weights. */
import type { GgufDtype, WeightDtype } from '../../schema/estimate.js';
import type { Arch, Linear } from './arch.js';
import { ggufTensorBytes } from './dtypes.js';
import { isLowBitGguf, lowBitLinearBytes } from './gguf-mix.js';

/** The contract weight type a checkpoint ships in (config.json quantization_config), or null (float). */
export function nativeWeights(arch: Arch): WeightDtype | null {
  const q = arch.quant;
  if (!q) return null;
  if (q.method === 'mxfp4') return 'mxfp4';
  if (q.method === 'fp8') return 'fp8';
  if ((q.method === 'awq' || q.method === 'gptq') && q.bits === 4) return 'int4';
  if (q.method === 'bitsandbytes-4bit') return 'nf4';
  return null;
}

// MXFP4: 4-bit E2M1 values with one 8-bit scale per 32 (OCP Microscaling spec v1.0 §5): 4.25 bits per weight.
const MXFP4_BYTES = 0.5 + 1 / 32;

/**
 * Bytes per weight element of one linear in a GGUF file of type `w`. The routed experts of a checkpoint that ships
 * them in MXFP4 (gpt-oss) stay MXFP4 at every GGUF type (https://huggingface.co/bartowski/openai_gpt-oss-20b-GGUF:
 * "All quants keep the feed forward networks at mxfp4"; unsloth's gpt-oss-20b Q2_K to Q8_0 files are all
 * 11.5-12.1 GB, https://huggingface.co/unsloth/gpt-oss-20b-GGUF); every other linear is priced at its row width,
 * the input features its quant blocks run along (ggufTensorBytes: the k-quant fallback). A low-bit mix prices each
 * linear by the type its role takes (gguf-mix.ts), with the decoder's query heads per KV head and routed experts.
 */
export function ggufLinearBytes(arch: Arch, l: Linear, w: GgufDtype): number {
  if (l.copies > 1 && nativeWeights(arch) === 'mxfp4') return MXFP4_BYTES;
  if (isLowBitGguf(w)) {
    const g = arch.groups.find((x) => x.name === 'decoder') ?? arch.groups[0];
    const m = { gqa: g ? g.heads / Math.max(1, g.kvHeads) : 1, experts: g?.experts ?? 0 };
    return lowBitLinearBytes(w, l.role, l.inFeatures, m);
  }
  return ggufTensorBytes(w, l.inFeatures);
}
