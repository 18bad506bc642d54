/** Pure: the detail pane's and the compare view's text, from a Plan / PlanResult. */
import type { Plan, PlanResult } from '../../core/plan/index.js';
import type { Scenario } from '../../schema/scenario.js';
import { formatDeviceMemory, formatDuration, formatUsd } from '../format.js';
import { PHASE_LABEL } from '../messages.js';
import { REASON_LABEL } from '../plan-messages.js';
import { hardwareOf, techniqueOf } from '../plan-text.js';
import { gib, groupBytes, MEMORY_GROUPS, meter, powerLimitText } from './cells.js';
import { hostRamLine } from '../host-ram-text.js';
import { COUNT_LABEL, countCell } from '../plan-count.js';

export const usd = formatUsd;

/** "21.3 of 24.0 GiB per GPU, 2.7 GiB free (peak: optimizer step)". */
export function memoryHeadline(p: Plan): string {
  const m = p.memory;
  const free =
    m.headroomBytes >= 0
      ? `${formatDeviceMemory(m.headroomBytes)} free`
      : `${formatDeviceMemory(-m.headroomBytes)} over`;
  return `${formatDeviceMemory(m.deviceBytes)} of ${formatDeviceMemory(m.capacityBytes)} per GPU, ${free} (peak: ${PHASE_LABEL[m.peakPhase]})`;
}

/** "host RAM per node 24.0 GiB": the plan's hostRam, as the table, explain, --json and the README give it. */
export function hostRamDetail(p: Plan): string {
  return hostRamLine(p.hostRam);
}

/** Legend entries "█ weights 6.9 GiB" for the groups that hold memory. */
export function memoryLegend(p: Plan): string[] {
  return groupBytes(p.memory.breakdown)
    .filter((g) => g.bytes > 0)
    .map((g) => `${MEMORY_GROUPS.find((m) => m.key === g.key)!.glyph} ${g.label} ${gib(g.bytes)}`);
}

/** Pack items into lines of at most `width` characters, separated by two spaces. */
export function pack(items: readonly string[], width: number): string[] {
  const lines: string[] = [];
  let cur = '';
  for (const it of items) {
    if (cur === '') cur = it;
    else if (cur.length + 2 + it.length <= width) cur += `  ${it}`;
    else {
      lines.push(cur);
      cur = it;
    }
  }
  if (cur !== '') lines.push(cur);
  return lines;
}

/** One line per circuit: name, load meter, load / continuous limit. */
export function powerLines(p: Plan, width: number): string[] {
  const head = `wall ${p.power.wallWatts.toLocaleString('en-US')} W, GPUs ${p.power.gpuWatts.toLocaleString('en-US')} W${p.hardware.kind !== 'rent' && p.hardware.powerLimitFraction < 1 ? ` (limit ${p.hardware.powerLimitW} W each)` : ''}`;
  if (p.power.perCircuit.length === 0)
    return [
      p.hardware.kind === 'rent'
        ? `${head}; rented: no circuits of yours`
        : `${head}; no circuits in the scenario (power.circuits)`,
    ];
  const nameW = Math.min(18, Math.max(...p.power.perCircuit.map((c) => c.circuit.length)));
  const meterW = Math.max(6, width - nameW - 24);
  return [
    head,
    ...p.power.perCircuit.map((c) => {
      const name =
        c.circuit.length > nameW ? `${c.circuit.slice(0, nameW - 1)}…` : c.circuit.padEnd(nameW);
      return `${name} ${meter(c.limitW > 0 ? c.loadW / c.limitW : 1, meterW)} ${c.loadW.toLocaleString('en-US')}/${Math.round(c.limitW).toLocaleString('en-US')} W`;
    }),
  ];
}

export function timeCostLine(p: Plan): string {
  const c = p.cost;
  const parts = [
    c.rentUsd > 0 ? `rent ${usd(c.rentUsd)}` : '',
    c.energyUsd > 0 ? `energy ${usd(c.energyUsd)}` : '',
    c.purchaseUsd > 0 ? `purchase ${usd(c.purchaseUsd)}` : '',
    c.amortisedUsd > 0 ? `amortised ${usd(c.amortisedUsd)}` : '',
    // The one-off quantize of weights to make is a share of the parts above (plan/made-weights.ts).
    c.quantizeUsd !== undefined ? `of which quantize first ${usd(c.quantizeUsd)}` : '',
  ].filter((x) => x !== '');
  return `${formatDuration(p.time.hours)} at ${Math.round(p.time.tokensPerSecond).toLocaleString('en-US')} tok/s; ${usd(c.usd)}${parts.length > 0 ? ` (${parts.join(', ')})` : ''}`;
}

/**
 * Technique slowdown lines, the plan's own slowdownFactors (time model: this step over the same plan's step
 * without the technique): "×1.33 full activation recomputation". A factor is not "x fastest": where the plan
 * without the technique would beat every plan found (x fastest / factor < 1), it is not among the plans
 * (infeasible or not searched), and the line says so rather than suggest a speed no plan has.
 */
export function techniqueLines(p: Plan): string[] {
  if (p.slowdownFactors.length === 0) return ['no slowing techniques'];
  return p.slowdownFactors.map((f) => {
    const without = p.slowdown / f.factor;
    const note =
      without < 0.995 ? ` (without it ${without.toFixed(2)}× fastest: not among the plans)` : '';
    return `×${f.factor.toFixed(2)} ${f.why}${note}`;
  });
}

/** The techniques' heading: what the factors are measured against, beside the plan's x fastest. */
export function techniquesHeading(p: Plan): string {
  return `x fastest ${p.slowdown.toFixed(2)}×; step time with / without each`;
}

/** Pruned counts as "12,345 out of GPU memory". */
export function prunedLines(r: PlanResult): string[] {
  if (r.pruned.length === 0) return ['none pruned'];
  return r.pruned.map((p) => `${p.count.toLocaleString('en-US')} ${REASON_LABEL[p.code]}`);
}

export interface CompareColumn {
  name: string;
  rows: string[];
}

/** Labels of the compare view's rows, in order. */
export const COMPARE_LABELS = [
  'model',
  'dataset tokens',
  'global batch',
  'fits',
  'best hardware',
  'technique',
  'engine',
  'weights',
  'optimizer',
  'power limit',
  'GPU memory',
  ...MEMORY_GROUPS.map((g) => `  ${g.label}`),
  'time',
  'cost',
  'wall power',
  'tokens/s',
  'x fastest',
  COUNT_LABEL,
  'runner-up',
];

/** The job's own settings compare shows: its tokens (dataset × epochs, or serving output) and global batch. */
export function jobCells(job: Scenario['job'] | undefined): [string, string] {
  if (!job) return ['—', '—'];
  const n = (x: number) => x.toLocaleString('en-US');
  if (job.kind === 'inference')
    return [`${n(job.outputTokens)} out (whole job)`, `${n(job.concurrency)} concurrent`];
  return [
    `${n(job.datasetTokens)}${job.epochs !== 1 ? ` × ${job.epochs} epochs` : ''}`,
    `${n(job.globalBatch)} × ${n(job.seq)} tokens`,
  ];
}

export function compareColumn(name: string, r: PlanResult, job?: Scenario['job']): CompareColumn {
  const b = r.plans[0];
  const [tokens, batch] = jobCells(job);
  if (!b)
    return {
      name,
      rows: COMPARE_LABELS.map((l) =>
        l === 'model'
          ? r.model.id
          : l === 'dataset tokens'
            ? tokens
            : l === 'global batch'
              ? batch
              : l === 'fits'
                ? 'no'
                : l === COUNT_LABEL
                  ? countCell(r)
                  : '—',
      ),
    };
  const groups = groupBytes(b.memory.breakdown).map((g) => (g.bytes > 0 ? gib(g.bytes) : '—'));
  const second = r.plans[1];
  return {
    name,
    rows: [
      r.model.id,
      tokens,
      batch,
      'yes',
      hardwareOf(b),
      techniqueOf(b),
      b.choices.engine,
      b.choices.weights,
      b.choices.method === 'inference' ? '—' : b.choices.optimizer,
      powerLimitText(b),
      `${formatDeviceMemory(b.memory.deviceBytes)} / ${formatDeviceMemory(b.memory.capacityBytes)}`,
      ...groups,
      formatDuration(b.time.hours),
      usd(b.cost.usd),
      `${b.power.wallWatts.toLocaleString('en-US')} W`,
      Math.round(b.time.tokensPerSecond).toLocaleString('en-US'),
      `${b.slowdown.toFixed(2)}×`,
      countCell(r),
      second ? `${hardwareOf(second)}, ${usd(second.cost.usd)}` : '—',
    ],
  };
}
