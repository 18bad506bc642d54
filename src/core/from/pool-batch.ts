/**
 * A paged-pool server's command line on a GPU (`--from` with `--gpu`): its `--max-num-seqs` / `--max-running-requests`
 * caps the running requests; it is not a concurrency. The server sizes its KV pool at start-up and its scheduler
 * admits a request while the pool has blocks for it, the rest waiting (vLLM V1 vllm/v1/core/sched/scheduler.py;
 * SGLang python/sglang/srt/managers/scheduler.py). So the sequences it runs at once are min(the cap, the sequences
 * of the line's max context the pool holds), the batch the estimate takes. Where the pool holds no such sequence the
 * engine's profile says what the server does: refuse to start (its startRefusal) or start and cap a request at the
 * pool (its poolCapsRequest). Pure; the engines' rules are their profiles' (engines/<engine>/memory.ts).
 */
import { buildEstimate, gpuCapacityBytes, type BuildContext } from '../estimate.js';
import { FRAMEWORKS } from '../memory/frameworks.js';
import type { Arch } from '../model/arch.js';
import type { PoolAdmission } from './common.js';
import type { EstimateOptions } from '../../schema/estimate.js';
import type { Gpu } from '../../schema/gpu.js';
import type { TimeOptions } from '../../schema/time.js';

/** The batch a serve line runs at once on `gpu`, and the report's line saying so. */
export interface AdmittedBatch {
  batch: number;
  line: string;
}

// Thousands grouped as the rest of the output writes them (schema/serving-job.ts, ui/).
const digits = (n: number): string => n.toLocaleString('en-US');

/** The pool's tokens per replica at `batch` running requests (undefined: not a paged pool). */
function poolTokens(
  arch: Arch,
  o: EstimateOptions,
  batch: number,
  gpu: Gpu,
  time: TimeOptions | undefined,
  build: BuildContext | undefined,
): number | undefined {
  const e = buildEstimate(arch, { ...o, batch }, gpu, time, build, { burst: false });
  return e.serving?.kvTokens;
}

/**
 * The batch of options `o` (read from a serve line, `admission` its cap) as the server admits it on `gpu`, or null
 * where the engine has no paged pool with a running-request cap. `o.seq` is the line's max context.
 */
export function admittedBatch(
  arch: Arch,
  o: EstimateOptions,
  gpu: Gpu,
  admission: PoolAdmission,
  time?: TimeOptions,
  build?: BuildContext,
): AdmittedBatch | null {
  const server = FRAMEWORKS[o.framework].server;
  if (o.method !== 'inference' || !server?.runningCap) return null;
  const capacity = gpuCapacityBytes(gpu);
  const capOf = (tokens: number) =>
    server.runningCap!(admission.cap, tokens, o.seq, capacity, gpu.name);
  const first = poolTokens(arch, o, o.batch, gpu, time, build);
  if (first === undefined) return null;
  // The pool as the server sizes it: at its cap (vLLM's start-up profile runs one sampler row per slot).
  const cap = Math.max(1, capOf(first));
  const tokens = cap === o.batch ? first : (poolTokens(arch, o, cap, gpu, time, build) ?? first);
  const held = Math.floor(tokens / o.seq);
  const capText = `${admission.capFlag} ${cap}${admission.cap === undefined ? " (the engine's default here)" : ''}`;
  const pool = `the KV pool of ${digits(tokens)} tokens per replica`;
  if (held >= 1) {
    const batch = Math.min(cap, held);
    return {
      batch,
      line: `${capText} caps the running requests, not a concurrency: ${pool} holds ${held} sequence${held === 1 ? '' : 's'} of the max context ${digits(o.seq)}, so ${batch} run at once and the rest queue; estimated with --batch ${batch} (give --batch and --seq for a batch held at once)`,
    };
  }
  const why = server.poolHoldsMaxLen
    ? (server.startRefusal ?? 'the server refuses to start')
    : (server.poolCapsRequest ?? 'the server caps a request at its pool');
  return {
    batch: 1,
    line: `${pool} holds no sequence of the max context ${digits(o.seq)}: ${why}; estimated with --batch 1`,
  };
}
