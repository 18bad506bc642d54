/** Planner reason codes and fixes to sentences (one place; used by the text report, --json and exports). */
import type { NearestFix, ReasonCode, SloNearest } from '../core/plan/index.js';
import { formatDeviceMemory, formatGiB, formatUsd, formatDuration } from './format.js';

export const REASON_LABEL: Record<ReasonCode, string> = {
  oom: 'out of GPU memory',
  'host-ram': 'needs more host RAM per node than hardware.hostRamGiB',
  'not-enough-gpus':
    'more GPUs than owned, or than one machine of an offer without a cluster network',
  'over-max-gpus': 'more GPUs than limits.maxGpus',
  'partial-node': 'GPU count is not whole rented nodes',
  'no-flash-attention': 'GPU has no FlashAttention-2 kernels',
  'no-fp8': 'GPU has no fp8 support',
  'no-quant-kernels': 'no bitsandbytes kernels on this GPU',
  'circuit-over': 'circuits cannot carry the wall power',
  'over-budget': 'over budget',
  'over-deadline': 'finishes after the deadline',
  'too-slow': 'more × fastest than limits.maxSlowdown allows',
  'no-engine': 'no engine runs this combination',
  quality: "lossier than the scenario's quality accepts",
  slo: "misses the scenario's service level (job.slo, job.requestsPerSecond)",
  undocumented:
    "runs only on a path the engine's guides do not describe (search.undocumented: true searches it)",
  'no-model-flash':
    "the engine runs this model's flash attention through a kernel built for other GPUs (gpt-oss: Hopper only); eager attention runs here",
  'no-apple-weights':
    "the engine's quantization path does not run these weights on Apple GPUs ('vramplan estimate --gpu' quotes its source)",
  'no-apple-kernels':
    "Liger's Triton kernels do not install next to an Apple GPU (no Triton wheel for macOS); the plan without them runs",
};

/** One sentence saying what single change would make the nearest candidate feasible. */
export function fixSentence(f: NearestFix): string {
  const where = `${f.method} on ${f.gpus}× ${f.gpuId}`;
  switch (f.code) {
    case 'oom':
      return `${where} is out of memory by ${formatDeviceMemory(f.over)} per GPU (capacity ${formatDeviceMemory(f.limit)}): use a GPU with at least ${formatDeviceMemory(f.limit + f.over)}, more GPUs, or a shorter sequence`;
    case 'circuit-over':
      return `${where} is over the circuits by ${Math.round(f.over)} W: lower the power limit, add a circuit, or use a larger one`;
    case 'over-budget':
      return `${where} costs ${formatUsd(f.limit + f.over)}: raise the budget by ${formatUsd(f.over)}`;
    case 'over-deadline':
      return `${where} takes ${formatDuration(f.limit + f.over)}: extend the deadline by ${formatDuration(f.over)}`;
    case 'host-ram':
      return `${where} needs ${formatGiB(f.limit + f.over)} of host RAM per node (limit ${formatGiB(f.limit)}): raise hardware.hostRamGiB or offload less`;
    case 'too-slow':
      return `${where} is ${(f.limit + f.over).toFixed(2)}× slower than the fastest plan: allow maxSlowdown ${(f.limit + f.over).toFixed(2)}`;
    case 'slo':
      return `${where} misses the service level by ${Math.round(f.over * 100)}%: more replicas or GPUs, lighter weights, fewer concurrent sequences, or a looser job.slo`;
    default:
      return `${where}: ${REASON_LABEL[f.code]}`;
  }
}

const ms = (seconds: number): string => `${Math.round(seconds * 1000).toLocaleString('en-US')} ms`;

/** One line for an SLO no layout meets: the nearest plan, its TTFT/TPOT and the most concurrency that meets it. */
export function sloNearestSentence(n: SloNearest): string {
  const slo = [
    n.slo.ttftMs !== undefined ? `TTFT ≤ ${n.slo.ttftMs} ms` : '',
    n.slo.tpotMs !== undefined ? `TPOT ≤ ${n.slo.tpotMs} ms` : '',
  ]
    .filter((x) => x !== '')
    .join(', ');
  const layout = `${n.gpus}× ${n.gpuId} ${n.engine} ${n.weights}${n.kvCacheDtype === 'fp8' ? ' fp8-KV' : ''} tp${n.tp} pp${n.pp}`;
  const max =
    n.maxConcurrency > 0
      ? `at most ${n.maxConcurrency} concurrent requests meet it (TTFT ${ms(n.ttftSecondsAtMax ?? 0)}, TPOT ${ms(n.tpotSecondsAtMax ?? 0)})`
      : 'not even one request at a time meets it';
  return `SLO (${slo}) not met: nearest plan ${layout} at ${n.concurrency} concurrent: TTFT ${ms(n.ttftSeconds)}, TPOT ${ms(n.tpotSeconds)}; ${max}`;
}
