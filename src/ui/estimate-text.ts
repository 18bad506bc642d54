/** Plain-text report of one estimate: breakdown with bars, verdict, and what dominates when it does not fit. */
import type { EstimateResult } from '../core/estimate.js';
import type { TimeResult } from '../core/time/index.js';
import { powerHeld } from '../core/time/verdict.js';
import type { Breakdown } from '../core/memory/index.js';
import { COMPONENT_LABEL, PHASE_LABEL } from './messages.js';
import {
  bar,
  formatCount,
  formatDeviceMemory,
  formatGiB,
  groupDigits,
  padLeft,
  padRight,
} from './format.js';

const BAR_WIDTH = 30;
/** Where paged optimizers' behaviour is documented (bitsandbytes, "Paged optimizers"). */
const PAGED_SOURCE =
  'https://huggingface.co/docs/bitsandbytes/main/en/explanations/optimizers#paged-optimizers';

export function renderEstimateText(r: EstimateResult): string {
  const lines: string[] = [];
  const o = r.options;
  const scale = r.gpu?.capacityBytes ?? r.perGpu.deviceBytes;
  lines.push(
    `${r.model.id}: ${o.method} · weights ${o.weights} · compute ${o.compute} · optimizer ${o.optimizer} · ` +
      `batch ${o.batch} × seq ${o.seq} · ${o.framework}` +
      (o.gpus > 1
        ? ` · ${o.gpus} GPUs (dp ${r.parallel.dp}, tp ${r.parallel.tp}, pp ${r.parallel.pp}${r.parallel.cp > 1 ? `, cp ${r.parallel.cp}` : ''}${(o.ep ?? 1) > 1 && o.method !== 'inference' ? `, ep ${o.ep}` : ''}, ZeRO ${o.zero})`
        : ''),
  );
  lines.push(
    `parameters ${formatCount(r.params.total)}, trainable ${formatCount(r.params.trainable)}`,
  );
  const ckpt = r.params.checkpoint;
  if (ckpt)
    lines.push(
      `checkpoint also stores ${ckpt.mtpLayers} MTP layer${ckpt.mtpLayers === 1 ? '' : 's'}: ${formatCount(ckpt.mtpParams)} ` +
        `(not loaded for training or plain serving; ${formatCount(ckpt.total)} in its files)`,
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
    `  ${padRight('device (nvidia-smi)', 30)}${padLeft(formatDeviceMemory(r.perGpu.deviceBytes), 11)}  ` +
      `likely ${formatDeviceMemory(r.uncertainty.lowBytes)} – ${formatDeviceMemory(r.uncertainty.highBytes)}`,
  );
  if (r.hostBytesPerGpu > 0)
    lines.push(`  ${padRight('host RAM per GPU', 30)}${padLeft(formatGiB(r.hostBytesPerGpu), 11)}`);
  if (r.paged)
    lines.push(
      `  paged optimizer states ${formatGiB(r.paged.statesBytes)}: ${formatGiB(r.paged.deviceBytes)} on the device, ${formatGiB(r.paged.hostBytes)} in host RAM`,
      `    (a step needs ${formatGiB(r.paged.workingSetBytes)} of them on the device, ${formatDeviceMemory(r.paged.fitDeviceBytes)} in all for fits; the rest pages out only when the card is full)`,
      ...(r.paged.hostBytes > 0
        ? [
            `    they do not all fit: every step migrates all ${formatGiB(r.paged.statesBytes)} in and out over PCIe (timed in the optimizer phase)`,
          ]
        : []),
      `    source: ${PAGED_SOURCE}`,
    );
  if (r.serving)
    lines.push(
      `  KV-cache pool ${formatGiB(r.serving.kvPoolBytes)} per GPU: ${groupDigits(r.serving.kvTokens)} tokens, ${r.serving.concurrency} sequences of ${groupDigits(r.options.seq)} at once; ` +
        `admits ${r.serving.sequencesAtMeanContext} of ${r.serving.maxNumSeqs} at the mean context (${groupDigits(r.serving.meanContext)}), ${r.serving.sequencesAtMaxContext} at the maximum`,
    );
  if (r.gpu) {
    lines.push('');
    if (r.fits) {
      lines.push(
        `fits: yes — ${formatDeviceMemory(r.gpu.headroomBytes)} headroom on ${r.gpu.name} (${formatDeviceMemory(r.gpu.capacityBytes)})`,
      );
    } else {
      lines.push(
        `fits: NO — over by ${formatDeviceMemory(-r.gpu.headroomBytes)} on ${r.gpu.name} (${formatDeviceMemory(r.gpu.capacityBytes)})`,
      );
      const top = r.dominant
        .slice(0, 3)
        .map((d) => `${COMPONENT_LABEL[d.component]} ${formatGiB(d.bytes)}`);
      lines.push(`largest components: ${top.join(', ')}`);
      if (r.serving?.startRefusal) lines.push(r.serving.startRefusal);
    }
  }
  if (r.time) lines.push('', ...timeLines(r.time));
  lines.push('');
  lines.push(
    'estimates ignore NCCL buffers, CUDA graphs and other processes; see docs/assumptions.md',
  );
  return lines.join('\n');
}

/** Seconds as ms below 1 s, else s / min / h. */
export function formatSeconds(s: number): string {
  if (s < 1) return `${(s * 1000).toPrecision(3)} ms`;
  if (s < 120) return `${s.toPrecision(3)} s`;
  if (s < 7200) return `${(s / 60).toPrecision(3)} min`;
  return `${(s / 3600).toPrecision(3)} h`;
}

const tps = (x: number) => (x >= 100 ? groupDigits(Math.round(x)) : x.toPrecision(3));

/** Why the MFU is low on a card its power cannot feed: "power holds it to N of M spec TFLOPS", or null. */
export function powerHeldLine(t: TimeResult): string | null {
  const held = powerHeld(t);
  return held
    ? `power holds it to ${held.sustained} of its ${held.spec} spec 16-bit TFLOPS (docs/assumptions.md)`
    : null;
}

/** The time block of an estimate: step time, tokens/s, MFU, bound and the largest phases. */
export function timeLines(t: TimeResult): string[] {
  const out: string[] = [];
  const pl =
    t.settings.powerLimit < 1 ? ` at ${Math.round(t.settings.powerLimit * 100)}% power` : '';
  if (t.decodeTokensPerSecond !== undefined) {
    out.push(
      `time${pl}: decode ${tps(t.decodeTokensPerSecond)} tokens/s per replica (${formatSeconds(t.stepSeconds)} per step), ` +
        `MFU ${(t.mfu * 100).toFixed(1)}%, bound: ${t.bound}` +
        (t.ttftSeconds !== undefined && t.tpotSeconds !== undefined
          ? `; per request (steady state): ${formatSeconds(t.ttftSeconds)} to first token, ${formatSeconds(t.tpotSeconds)} per output token`
          : ''),
    );
    const b = t.burst;
    if (b)
      out.push(
        `  burst of ${b.requests} requests sent ${sentAs(t.settings.requestRate)}: ${formatSeconds(b.ttftMeanSeconds)} mean to first token ` +
          `(the last ${formatSeconds(b.ttftMaxSeconds)}: ${b.prefillSteps} prefill steps of ${tps(b.chunkTokens)} tokens), ` +
          `${tps(b.outputTokensPerSecond)} output tokens/s over the run` +
          (b.durationSeconds === undefined ? '' : ` of ${formatSeconds(b.durationSeconds)}`),
      );
  } else {
    out.push(
      `time${pl}: ${formatSeconds(t.stepSeconds)} per optimizer step (grad-accum ${t.settings.gradAccum}), ` +
        `${tps(t.tokensPerSecondPerGpu)} tokens/s per GPU, MFU ${(t.mfu * 100).toFixed(1)}%, bound: ${t.bound}`,
    );
  }
  const held = powerHeldLine(t);
  if (held) out.push(`  ${held}`);
  const emulated = t.tensorTflops.bf16Emulated;
  if (emulated !== undefined)
    out.push(
      `  bf16 is emulated here: no bf16 tensor cores, so its matmuls run on CUDA cores at about ${emulated} TFLOPS (--compute fp16 uses the tensor cores)`,
    );
  // Shares of one step (prefill is a one-off per request, shown apart).
  const steady = t.phases.filter((p) => p.phase !== 'prefill');
  const total = steady.reduce((a, p) => a + p.seconds, 0);
  const top = [...steady]
    .filter((p) => p.seconds > 0)
    .sort((a, b) => b.seconds - a.seconds)
    .slice(0, 4)
    .map((p) => `${p.phase} ${Math.round((p.seconds / total) * 100)}%`);
  if (top.length > 0) out.push(`  phases: ${top.join(', ')}`);
  const prefill = t.phases.find((p) => p.phase === 'prefill');
  if (prefill && prefill.seconds > 0)
    out.push(`  prefill of the whole batch: ${formatSeconds(prefill.seconds)}`);
  return out;
}

/** How a burst's requests were sent: at once, or at --request-rate (its TTFTs from each request's send). */
const sentAs = (rate: number | undefined): string =>
  rate === undefined ? 'at once' : `at ${rate} a second`;
