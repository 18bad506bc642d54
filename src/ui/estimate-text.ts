/** Plain-text report of one estimate: breakdown with bars, verdict, and what dominates when it does not fit. */
import type { EstimateResult } from '../core/estimate.js';
import type { Breakdown } from '../core/memory.js';
import { COMPONENT_LABEL, PHASE_LABEL } from './messages.js';
import { bar, formatCount, formatGiB, padLeft, padRight } from './format.js';

const BAR_WIDTH = 30;

export function renderEstimateText(r: EstimateResult): string {
  const lines: string[] = [];
  const o = r.options;
  const scale = r.gpu?.capacityBytes ?? r.perGpu.deviceBytes;
  lines.push(
    `${r.model.id}: ${o.method} · weights ${o.weights} · compute ${o.compute} · optimizer ${o.optimizer} · ` +
      `batch ${o.batch} × seq ${o.seq} · ${o.framework}` +
      (o.gpus > 1
        ? ` · ${o.gpus} GPUs (dp ${r.parallel.dp}, tp ${r.parallel.tp}, pp ${r.parallel.pp}, ZeRO ${o.zero})`
        : ''),
  );
  lines.push(
    `parameters ${formatCount(r.params.total)}, trainable ${formatCount(r.params.trainable)}`,
  );
  lines.push('');
  lines.push(
    `per-GPU memory at the peak (${PHASE_LABEL[r.peakPhase]})${r.gpu ? ` vs ${r.gpu.name}` : ''}:`,
  );
  for (const [key, bytes] of Object.entries(r.perGpu.breakdown) as [keyof Breakdown, number][]) {
    if (bytes <= 0) continue;
    lines.push(
      `  ${padRight(COMPONENT_LABEL[key], 30)}${padLeft(formatGiB(bytes), 11)}  ${bar(bytes / scale, BAR_WIDTH)}`,
    );
  }
  lines.push(
    `  ${padRight('allocated (torch peak)', 30)}${padLeft(formatGiB(r.perGpu.allocatedBytes), 11)}`,
  );
  lines.push(
    `  ${padRight('reserved (caching allocator)', 30)}${padLeft(formatGiB(r.perGpu.reservedBytes), 11)}`,
  );
  lines.push(
    `  ${padRight('device (nvidia-smi)', 30)}${padLeft(formatGiB(r.perGpu.deviceBytes), 11)}  ` +
      `likely ${formatGiB(r.uncertainty.lowBytes, 1)} – ${formatGiB(r.uncertainty.highBytes, 1)}`,
  );
  if (r.hostBytesPerGpu > 0)
    lines.push(`  ${padRight('host RAM per GPU', 30)}${padLeft(formatGiB(r.hostBytesPerGpu), 11)}`);
  if (r.gpu) {
    lines.push('');
    if (r.fits) {
      lines.push(
        `fits: yes — ${formatGiB(r.gpu.headroomBytes)} headroom on ${r.gpu.name} (${formatGiB(r.gpu.capacityBytes)})`,
      );
    } else {
      lines.push(
        `fits: NO — over by ${formatGiB(-r.gpu.headroomBytes)} on ${r.gpu.name} (${formatGiB(r.gpu.capacityBytes)})`,
      );
      const top = r.dominant
        .slice(0, 3)
        .map((d) => `${COMPONENT_LABEL[d.component]} ${formatGiB(d.bytes)}`);
      lines.push(`largest components: ${top.join(', ')}`);
    }
  }
  lines.push('');
  lines.push(
    "estimates ignore NCCL buffers, CUDA graphs and other processes; see README 'Assumptions and limits'",
  );
  return lines.join('\n');
}
