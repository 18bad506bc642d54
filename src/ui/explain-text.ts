/** Plain-text rendering of an Explanation: what overflows, then the cheapest fixes with their costs. */
import type { Explanation, Fix } from '../core/plan/index.js';
import { formatDeviceMemory, formatGiB } from './format.js';
import { COMPONENT_LABEL } from './messages.js';
import { HOST_RAM_LABEL, hostRamFigure } from './host-ram-text.js';

/** "about 1.40× slower", "about 1.33× faster", "same speed". */
export function slowdownText(ratio: number): string {
  if (Math.abs(ratio - 1) < 0.005) return 'same speed';
  return ratio > 1
    ? `about ${ratio.toFixed(2)}× slower`
    : `about ${(1 / ratio).toFixed(2)}× faster`;
}

/** A fix's slowdown; where it rests on host copies hidden behind compute, says so. */
function fixSlowdownText(f: Fix): string {
  const text = slowdownText(f.slowdown);
  if (!f.overlapAssumed) return text;
  return text === 'same speed'
    ? 'same speed only if its host copies hide behind compute (assumed, not measured)'
    : `${text} if its host copies hide behind compute (assumed, not measured)`;
}

/** One fix on one line: "QLoRA r16 (nf4): −19.80 GiB, about 1.40× slower". */
export function fixLine(f: Fix): string {
  const host = f.hostBytesPerGpu > 0 ? `, ${HOST_RAM_LABEL} ${hostRamFigure(f.hostRam)}` : '';
  const batch =
    f.globalBatch !== undefined
      ? `, global batch ${f.globalBatch.runs}, rounded up from ${f.globalBatch.given} (micro-batch x data-parallel ranks do not divide it)`
      : '';
  return `${f.changes.map((c) => c.label).join(' + ')}: −${formatGiB(f.freedBytes, 1)} (${formatDeviceMemory(f.deviceBytes)} per GPU, ${formatDeviceMemory(f.headroomBytes)} spare), ${fixSlowdownText(f)}, quality ${f.quality}, on ${f.engine}${host}${batch}`;
}

/** "time: 1.2 s per step, 2,300 tokens/s per GPU, bound: compute; backward dominates (45%): ...". */
export function timeVerdictLine(v: Explanation['time']): string {
  const rate =
    v.decodeTokensPerSecond !== undefined
      ? `${Math.round(v.decodeTokensPerSecond).toLocaleString('en-US')} decode tokens/s per replica`
      : `${Math.round(v.tokensPerSecondPerGpu).toLocaleString('en-US')} tokens/s per GPU`;
  return `time: ${v.stepSeconds.toPrecision(3)} s per step, ${rate}, MFU ${(v.mfu * 100).toFixed(1)}%, bound: ${v.bound}; ${v.dominant.phase} dominates (${Math.round(v.dominant.share * 100)}% of the step); to lift it: ${v.lift}`;
}

/**
 * Paged optimizer states on the device are spare room too: they page out to host RAM when it is needed, and
 * once any have, every step migrates all of them over PCIe (time/paged-migration.ts; timed).
 */
const pagedNote = (e: Explanation): string => {
  const p = e.paged;
  if (!p) return '';
  if (p.hostBytes > 0)
    return `; ${formatDeviceMemory(p.hostBytes)} of its ${formatDeviceMemory(p.statesBytes)} of paged optimizer states sit in host RAM, so every step migrates all of them over PCIe (timed)`;
  return p.deviceBytes > p.workingSetBytes
    ? `, counting ${formatDeviceMemory(p.deviceBytes - p.workingSetBytes)} of paged optimizer states that page out to host RAM when needed (then every step migrates all of them over PCIe)`
    : '';
};

export function renderExplainText(e: Explanation): string {
  const lines: string[] = [];
  if (e.fits) {
    lines.push(
      `${e.model.id} fits on ${e.gpu.name}: ${formatDeviceMemory(e.deviceBytes)} of ${formatDeviceMemory(e.gpu.capacityBytes)} (${formatDeviceMemory(-e.overByBytes)} spare${pagedNote(e)}).`,
    );
    lines.push(timeVerdictLine(e.time));
    lines.push(`${HOST_RAM_LABEL}: ${hostRamFigure(e.hostRam)}`);
    return lines.join('\n');
  }
  lines.push(
    `${e.model.id} does not fit on ${e.gpu.name}: needs ${formatDeviceMemory(e.deviceBytes)} per GPU, has ${formatDeviceMemory(e.gpu.capacityBytes)} (over by ${formatDeviceMemory(e.overByBytes)}).`,
  );
  lines.push(`as given, ${timeVerdictLine(e.time)}`);
  lines.push(`${HOST_RAM_LABEL}: ${hostRamFigure(e.hostRam)}`);
  lines.push('', 'what overflows (largest first):');
  for (const c of e.overflow)
    lines.push(`  ${COMPONENT_LABEL[c.component]}: ${formatGiB(c.bytes)}`);
  lines.push('');
  if (e.fixes.length === 0) {
    lines.push(
      `no single change, pair or triple of changes makes it fit (${e.tried} configurations tried); consider a larger GPU.`,
      ...ruledOutLines(e),
    );
    return lines.join('\n');
  }
  const kind =
    e.depth === 1
      ? 'single changes'
      : e.depth === 2
        ? 'no single change is enough; pairs of changes'
        : 'no pair is enough; triples of changes';
  lines.push(
    `cheapest fixes (${kind} that fit and an engine runs: best quality tier, then fewest GPUs, then least slowdown first; time at the same samples per step; ${e.tried} configurations tried):`,
  );
  e.fixes.forEach((f, i) => {
    lines.push(`  ${i + 1}. ${fixLine(f)}`);
    for (const c of f.changes)
      if (c.tradeoff) lines.push(`     ${f.changes.length > 1 ? `${c.label}: ` : ''}${c.tradeoff}`);
  });
  lines.push(...ruledOutLines(e));
  return lines.join('\n');
}

/** Fixes that fit but that a library rule forbids, each with the rule that prunes it. */
function ruledOutLines(e: Explanation): string[] {
  if (e.ruledOut.length === 0) return [];
  return [
    '',
    "fits, but the engine's libraries reject it (behaviour rules):",
    ...e.ruledOut.map(
      (r) => `  - ${r.changes} on ${r.engine}: ${r.says} (rule ${r.rule}, ${r.source})`,
    ),
  ];
}
