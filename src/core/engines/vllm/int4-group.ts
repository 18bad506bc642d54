/**
 * vLLM 0.33.0 and a group-quantized int4 checkpoint split over tensor-parallel ranks. A row-parallel linear (the
 * attention output and a dense MLP's down projection) holds `input_size / --tensor-parallel-size` input columns a
 * rank, and each int4 method refuses a share that is not a whole number of scale groups: AWQ (auto_awq.py:819 "The
 * input size is not aligned with the quantized weight shape. This can be caused by too large tensor parallel size",
 * the fallback its Marlin path takes where the group straddles the shard, auto_awq.py:320-330) and compressed-tensors
 * W4A16 (compressed_tensors_wNa16.py:169-173 verify_group_size_divides_partition, distributed/utils.py:137-152);
 * Marlin's own thread tiles (min_thread_n 64, min_thread_k 128) are padded in 0.33.0 (marlin_utils.py
 * marlin_padded_nk), not refused. Qwen2.5-72B's 29,568-wide MLP leaves 3,696 a rank at TP 8, not a multiple of 128.
 * Routed experts are not checked (the Marlin MoE method declines such a share and another MoE method takes it). A
 * published int4 repository of a 16-bit catalog entry is not checked either: its config.json may pad the widths for
 * this very check (Qwen's own AWQ/GPTQ releases of Qwen2.5-72B-Instruct pad the MLP to 29,696, a width the base
 * entry vramplan reads does not carry), so only widths vramplan knows are the loaded ones are checked: an int4
 * catalog entry's own config, or the W4A16 checkpoint made from the 16-bit weights.
 */
import type { RuleInput } from '../rules.js';
import { INT4_GROUP } from '../../model/dtypes.js';
import { modelRepo } from '../../model/arch.js';
import { nativeWeights } from '../../model/native-weights.js';
import { checkpointFor } from '../../launch/checkpoints.js';

export const INT4_GROUP_SOURCE =
  'https://pypi.org/project/vllm/0.33.0/ (wheel) vllm/model_executor/layers/quantization/auto_awq.py:803-825, vllm/model_executor/layers/quantization/compressed_tensors/schemes/compressed_tensors_wNa16.py:160-173, vllm/distributed/utils.py:137-152';

/**
 * The scale group of the int4 weights vLLM loads: the checkpoint's own group_size (AWQ/GPTQ), or 128 for the
 * compressed-tensors W4A16 one vramplan makes (llm-compressor's W4A16 preset scheme: group_size 128); null where
 * scales are per output channel (group_size -1: replicated on every rank, nothing to straddle).
 */
function int4Group(x: RuleInput): number | null | undefined {
  const q = x.arch.quant;
  if (q && nativeWeights(x.arch) === 'int4') return q.groupSize;
  // A published int4 repository of the 16-bit entry: its widths are not read (undefined: not checked).
  if (checkpointFor(modelRepo(x.arch), x.arch.id, 'int4', nativeWeights(x.arch)).published)
    return undefined;
  return INT4_GROUP;
}

/** The input share of a row-parallel linear that is not a whole number of int4 scale groups, or null. */
export function int4GroupRefusedShard(x: RuleInput): number | null {
  if (x.options.weights !== 'int4' || x.options.tp <= 1) return null;
  const group = int4Group(x);
  if (group === null || group === undefined) return null;
  for (const g of x.arch.groups) {
    if (g.name !== 'decoder') continue;
    const shares = [
      (g.heads * g.vHeadDim) / x.options.tp,
      ...(g.experts > 1 ? [] : [g.ffn / x.options.tp]),
    ];
    const straddles = shares.find((s) => s > 0 && s % group !== 0);
    if (straddles !== undefined) return straddles;
  }
  return null;
}
