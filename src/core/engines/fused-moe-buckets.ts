/**
 * The M-buckets of a tuned Triton fused_moe config file (`E=..,N=..,device_name=...json`: a JSON object from a token
 * count M to one kernel config), as vLLM and SGLang read them: `configs[min(configs.keys(), key=lambda x: abs(x -
 * M))]` (vllm/model_executor/layers/fused_moe/fused_moe.py `try_get_optimal_moe_config`, read in the vllm==0.10.2
 * wheel; SGLang's copy in fused_moe_triton_config.py `try_get_optimal_moe_config`, sglang==0.5.23), M the layer's token
 * rows (`hidden_states.shape[0]`). Python's `min` keeps the first of equal distances, and every file read lists its
 * keys in ascending order, so a tie takes the smaller bucket.
 *
 * Kept per file as one field's values (BLOCK_SIZE_M, BLOCK_SIZE_N), one token a key: a bare value is the next of
 * STANDARD_M_KEYS (the bucket list `benchmark_moe.py` tunes by default, which most files carry), `key:value` a key of
 * its own.
 */

/** `benchmarks/kernels/benchmark_moe.py`'s default batch sizes (vLLM; SGLang's tuning script copies them). */
const STANDARD_M_KEYS = [
  1, 2, 4, 8, 16, 24, 32, 48, 64, 96, 128, 256, 512, 1024, 1536, 2048, 3072, 4096,
] as const;

type Buckets = readonly (readonly [number, number])[];

/** Each kept form decoded once (a step looks its file up at every batch the planner tries). */
const DECODED = new Map<string, Buckets>();

/** One file's (M, BLOCK_SIZE_M) buckets from its kept form (module comment), in the file's order. */
export function decodeBlockM(kept: string): Buckets {
  const hit = DECODED.get(kept);
  if (hit !== undefined) return hit;
  const buckets = parseBlockM(kept);
  DECODED.set(kept, buckets);
  return buckets;
}

function parseBlockM(kept: string): Buckets {
  let bare = 0;
  return kept
    .trim()
    .split(/\s+/)
    .map((token) => {
      const [k, v] = token.split(':');
      if (v !== undefined) return [Number(k), Number(v)] as const;
      const key = STANDARD_M_KEYS[bare++];
      if (key === undefined)
        throw new Error(`more bare BLOCK_SIZE_M values than standard keys: ${kept}`);
      return [key, Number(k)] as const;
    });
}

/** The kept field of the bucket the engine picks at `tokens` token rows (the nearest key, the smaller on a tie). */
export function bucketValue(kept: string, tokens: number): number {
  let best: readonly [number, number] | undefined;
  for (const bucket of decodeBlockM(kept)) {
    if (best === undefined || Math.abs(bucket[0] - tokens) < Math.abs(best[0] - tokens))
      best = bucket;
  }
  if (best === undefined) throw new Error('a tuned config file with no buckets');
  return best[1];
}

/** The BLOCK_SIZE_M of the bucket the engine picks at `tokens` token rows (bucketValue of a kept BLOCK_SIZE_M form). */
export const bucketBlockM = bucketValue;
