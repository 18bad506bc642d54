/** The `plan` report as plain text: small pure functions over PlanResult (an Ink TUI can reuse them). */
import { isFloat8Compute } from '../schema/estimate.js';
import type { Fleet, FleetReplica, Plan, PlanResult } from '../core/plan/index.js';
import {
  bar,
  formatDuration,
  deviceMemoryValue,
  formatDeviceMemory,
  formatGiB,
  formatUsd,
  padLeft,
  padRight,
  formatInt,
  servedKernelName,
} from './format.js';
import { COMPONENT_LABEL } from './messages.js';
import { HOST_RAM_LABEL, hostRamFigure } from './host-ram-text.js';
import { kvText } from './kv-text.js';
import { objectiveText } from './objective-text.js';
import { planCountText, shownText } from './plan-count.js';
import { fixSentence, REASON_LABEL, sloNearestSentence } from './plan-messages.js';

/** Short description of a plan's technique choices. */
export function techniqueOf(p: Plan): string {
  const c = p.choices;
  const master = p.options.masterWeights ? '+fp32 master' : '';
  // Weights no published checkpoint holds: the user quantizes them before serving (plan/made-weights.ts).
  const make = c.weightsToMake ? ' (quantize first)' : '';
  // A serving plan's kernel for quantized weights (Marlin, CUTLASS W8A8, ...); a GGUF type names its own.
  const k = servedKernelName(c.quantFormat);
  const kernel = k ? ` ${k}` : '';
  const parts = [`${c.method} ${c.weights}${kernel}${c.doubleQuant ? '+dq' : ''}${master}${make}`];
  // The adapters' targets: the scenario's, else the engine's recipes' (profile `loraTargets`).
  if (c.method === 'lora' || c.method === 'qlora')
    parts[0] += ` ${p.options.loraAllLinear ? 'all-linear' : p.options.loraTargets.join(',')}`;
  if (isFloat8Compute(c.compute)) parts.push(`${c.compute} training`);
  const kv = kvText(p);
  if (kv) parts.push(kv);
  // Weights in host RAM, in llama-server's words: the layers on the GPU, the layers whose experts stay on the host.
  if (p.options.gpuLayers !== undefined) parts.push(`-ngl ${p.options.gpuLayers}`);
  if (p.options.cpuMoeLayers !== undefined) parts.push(`--n-cpu-moe ${p.options.cpuMoeLayers}`);
  const rl = objectiveText(p.options);
  if (rl) parts.push(rl);
  if (c.method !== 'inference')
    parts.push(
      `${c.optimizer}${p.options.optimizerInBackward ? ' in backward' : ''}`,
      `ckpt ${c.checkpointing}`,
    );
  if (p.options.tiledMlp) parts.push('tiled MLP');
  parts.push(c.attention, `mb ${c.microBatch}${c.gradAccum > 1 ? `×${c.gradAccum}` : ''}`);
  if (c.zero > 0) parts.push(`ZeRO-${c.zero}${c.offload !== 'none' ? ` off:${c.offload}` : ''}`);
  if (c.tp > 1) parts.push(`TP${c.tp}`);
  if (c.pp > 1) parts.push(`PP${c.pp}`);
  // MoE serving: the data-parallel ranks are one engine, experts over all of them (plan/expert-parallel.ts).
  if (c.dpAttention) parts.push(`DP-attention ×${c.dp}${(c.ep ?? 1) > 1 ? `, EP${c.ep}` : ''}`);
  else if ((c.ep ?? 1) > 1) parts.push(`EP${c.ep}`); // TP + EP: the MoE layers' experts over the TP group
  if (c.speculative) parts.push(`${c.speculative.method} ×${c.speculative.tokens}`);
  parts.push(c.engine);
  return parts.join(', ');
}

/** Where the GPUs come from. */
export function hardwareOf(p: Plan): string {
  const h = p.hardware;
  const src = h.kind === 'rent' ? `rent ${h.offerId}` : h.kind;
  const pl =
    h.kind === 'rent' || h.powerLimitFraction === 1 ? '' : ` @${formatInt(h.powerLimitW)} W`;
  return `${h.gpus}× ${h.gpuId}${pl} (${src})`;
}

/** The device bytes a plan needs to fit: capacity less headroom (paged optimizer states only at their working set). */
export const fitBytes = (p: Plan): number => p.memory.capacityBytes - p.memory.headroomBytes;

/**
 * Paged optimizer states resident beyond their working set (core/memory/paged.ts): they fill the card's free
 * memory and page out to host RAM when it is needed, so a plan showing them is not at its limit; 0 for others.
 */
export const pagedFillBytes = (p: Plan): number => Math.max(0, p.memory.deviceBytes - fitBytes(p));

/** The device bytes a plan needs: its device figure less any paged states that only fill free memory. */
export const neededBytes = (p: Plan): number => p.memory.deviceBytes - pagedFillBytes(p);

/**
 * "21.1 GiB/24 GiB": a plan's device memory against the card; with paged optimizer states, the bytes the plan
 * needs and the states beside them ("64.1 GiB/80 GiB +14.2 paged"), not a card that looks full.
 */
export function gpuMemoryCell(p: Plan, sep = '/'): string {
  const paged = pagedFillBytes(p);
  const cap = formatGiB(p.memory.capacityBytes, 0);
  const beside = paged > 0 ? ` +${deviceMemoryValue(paged)} paged` : '';
  return `${formatDeviceMemory(neededBytes(p))}${sep}${cap}${beside}`;
}

export interface Column {
  title: string;
  right: boolean;
  cell: (p: Plan) => string;
}

export const PLAN_COLUMNS: readonly Column[] = [
  { title: '#', right: true, cell: (p) => String(p.rank) },
  { title: 'hardware', right: false, cell: hardwareOf },
  { title: 'technique', right: false, cell: techniqueOf },
  { title: 'quality', right: false, cell: (p) => p.quality.tier },
  {
    title: 'GPU mem',
    right: true,
    cell: (p) => gpuMemoryCell(p),
  },
  {
    title: 'tok/s',
    right: true,
    cell: (p) => Math.round(p.time.tokensPerSecond).toLocaleString('en-US'),
  },
  { title: 'time', right: true, cell: (p) => formatDuration(p.time.hours) },
  { title: 'cost', right: true, cell: (p) => formatUsd(p.cost.usd) },
  { title: 'wall W', right: true, cell: (p) => formatInt(p.power.wallWatts) },
  // Plan hours (with weights made first) over the fastest plan's in this result: what limits.maxSlowdown caps.
  { title: 'x fastest', right: true, cell: (p) => `${p.slowdown.toFixed(2)}×` },
  { title: 'front', right: false, cell: (p) => (p.onFront ? '*' : '') },
];

/** Host RAM per node, shown as a column when some plan offloads to the host. */
export const HOST_RAM_COLUMN: Column = {
  title: HOST_RAM_LABEL,
  right: true,
  cell: (p) => hostRamFigure(p.hostRam),
};

/** The plan columns, with host RAM when it matters for any of `plans`. */
export function planColumns(plans: readonly Plan[]): readonly Column[] {
  if (!plans.some((p) => p.hostRam.offloadBytes > 0)) return PLAN_COLUMNS;
  const i = PLAN_COLUMNS.findIndex((c) => c.title === 'GPU mem') + 1;
  return [...PLAN_COLUMNS.slice(0, i), HOST_RAM_COLUMN, ...PLAN_COLUMNS.slice(i)];
}

/** Host RAM of one plan's busiest node: offloaded states, pinned buffers and the loading peak. */
export function renderHostRam(p: Plan): string {
  const h = p.hostRam;
  const parts = [];
  if (h.offloadBytes > 0) parts.push(`offloaded ${formatGiB(h.offloadBytes)}`);
  if (h.pinnedBytes > 0) parts.push(`pinned buffers ${formatGiB(h.pinnedBytes)}`);
  if (h.loadingBytes === 0) parts.push('checkpoint streamed to the GPU as it loads');
  else
    parts.push(
      `loading peak ${formatGiB(h.loadingBytes)}${h.efficientLoading ? ' (one process loads the checkpoint)' : ' (every process loads the checkpoint)'}`,
    );
  return `${HOST_RAM_LABEL}: ${hostRamFigure(h)} of ${formatGiB(h.limitBytes, 1)} (${parts.join(', ')})`;
}

/** The quality tier with the techniques that set it. */
export function renderQuality(p: Plan): string {
  const items = p.quality.items.map((i) => `${i.technique} ${i.tier}: ${i.reason} (${i.source})`);
  return [`quality: ${p.quality.tier}`, ...items.map((x) => `  ${x}`)].join('\n');
}

/** Where one step of the plan goes (the time model), apart from "x fastest". */
export function renderFactors(p: Plan): string {
  // The time model's own split of one step (the same function as estimate --json `time`). A serving plan's
  // prefill of the whole batch is a one-off per request, not part of its decode step: shown apart, as
  // `estimate` does.
  const serving = p.choices.method === 'inference';
  const steady = serving ? p.time.phases.filter((x) => x.phase !== 'prefill') : p.time.phases;
  const total = steady.reduce((a, x) => a + x.seconds, 0);
  const parts = steady
    .filter((x) => total > 0 && x.seconds / total >= 0.005)
    .sort((a, b) => b.seconds - a.seconds)
    .slice(0, 5)
    .map((x) => `${x.phase} ${Math.round((100 * x.seconds) / total)}%`);
  const prefill = serving ? (p.time.phases.find((x) => x.phase === 'prefill')?.seconds ?? 0) : 0;
  return (
    `${serving ? 'decode step' : 'step'} ${p.time.stepSeconds.toFixed(2)} s, bound by ${p.time.bound}, MFU ${(p.time.mfu * 100).toFixed(0)}%: ${parts.join(', ')}` +
    (prefill > 0 ? `; prefill of the whole batch ${prefill.toFixed(2)} s (apart)` : '')
  );
}

/** A table with column widths derived from the rows. */
export function renderTable(
  plans: readonly Plan[],
  columns: readonly Column[] = PLAN_COLUMNS,
): string {
  const cells = plans.map((p) => columns.map((c) => c.cell(p)));
  const widths = columns.map((c, i) => Math.max(c.title.length, ...cells.map((r) => r[i]!.length)));
  const line = (xs: string[]) =>
    xs
      .map((x, i) => (columns[i]!.right ? padLeft(x, widths[i]!) : padRight(x, widths[i]!)))
      .join('  ')
      .trimEnd();
  return [
    line(columns.map((c) => c.title)),
    line(widths.map((w) => '-'.repeat(w))),
    ...cells.map(line),
  ].join('\n');
}

/**
 * A component's label in a plan: a serving plan's KV cache is what its planned sequences hold (the launch
 * README shows the pool the engine pre-allocates, which is larger); where the pool holds fewer, the sequences it
 * runs at once (the rest queue: time/pool-queue.ts).
 */
function componentLabel(p: Plan, k: keyof Plan['memory']['breakdown']): string {
  return k === 'kvCache' && p.choices.method === 'inference'
    ? `KV cache in use (${Math.min(p.options.batch, p.serving?.sequencesAtMeanContext ?? Infinity)} seqs)`
    : COMPONENT_LABEL[k];
}

/** Per-GPU memory of one plan against capacity, largest components first. */
export function renderMemory(p: Plan, width = 40): string {
  const m = p.memory;
  const parts = (Object.entries(m.breakdown) as [keyof typeof m.breakdown, number][])
    .filter(([, b]) => b > 0)
    .sort((a, b) => b[1] - a[1]);
  const paged = pagedFillBytes(p);
  const head =
    `${bar(m.deviceBytes / m.capacityBytes, width)} ${formatDeviceMemory(m.deviceBytes)} of ${formatDeviceMemory(m.capacityBytes)} per GPU (peak: ${m.peakPhase})` +
    (paged > 0
      ? `\n  incl. ${formatGiB(paged)} of paged optimizer states that fill free memory and page out when it is needed: the plan needs ${formatDeviceMemory(fitBytes(p))}`
      : '');
  return [
    head,
    ...parts
      .slice(0, 6)
      .map(([k, b]) => `  ${padRight(componentLabel(p, k), 26)} ${padLeft(formatGiB(b), 10)}`),
  ].join('\n');
}

export function renderPruned(r: PlanResult): string {
  if (r.pruned.length === 0) return 'pruned: none';
  return [
    'pruned:',
    ...r.pruned.map(
      (p) =>
        `  ${padLeft(p.count.toLocaleString('en-US'), 12)}  ${REASON_LABEL[p.code]} (${p.code})`,
    ),
  ].join('\n');
}

/** The engines searched that ran no configuration of the job, each with the reason from its checks or rules. */
export function renderIdleEngines(r: PlanResult): string {
  const idle = r.engines.filter((e) => e.idle !== null);
  if (idle.length === 0) return '';
  const ran = r.engines.filter((e) => e.idle === null).map((e) => e.engine);
  return [
    `engines searched: ${r.engines.map((e) => e.engine).join(', ')}; with plans: ${ran.length > 0 ? ran.join(', ') : 'none'}`,
    ...idle.map((e) => `  ${e.engine}: ${e.idle}`),
  ].join('\n');
}

export function renderFixes(r: PlanResult): string {
  const lossier = r.plans.length > 0 ? 0 : (r.pruned.find((p) => p.code === 'quality')?.count ?? 0);
  if (r.nearestFixes.length === 0 && lossier === 0) return '';
  // The quality filter runs before memory: a lossier tier widens the search, it does not promise a fit.
  const quality =
    lossier > 0
      ? [
          `  - ${lossier.toLocaleString('en-US')} configurations are lossier than the scenario's quality accepts: a lossier quality (exact, then near, then lossy) widens the search`,
        ]
      : [];
  return [
    'Nothing fits. Nearest fixes (one change each):',
    ...r.nearestFixes.map((f) => `  - ${fixSentence(f)}`),
    ...quality,
  ].join('\n');
}

/** Circuit loads of one plan and who placed them ('' for rented plans and plans without circuits). */
export function renderCircuits(p: Plan): string {
  const pc = p.power.perCircuit;
  if (pc.length === 0) return '';
  const loads = pc
    .map(
      (c) =>
        `${c.circuit} ${c.loadW.toLocaleString('en-US')}/${Math.round(c.limitW).toLocaleString('en-US')} W`,
    )
    .join(', ');
  const sv = p.power.solver;
  const by =
    p.power.assignment === 'mip'
      ? sv?.backend
        ? `MIP placement (${sv.backend})`
        : `optimal placement (${sv?.note ?? 'exact without a solver'})`
      : `greedy placement${sv ? ` (MIP ${sv.status}${sv.note ? `: ${sv.note}` : ''})` : ''}`;
  return `circuits, ${by}: ${loads}`;
}

/** "2× rtx-3090 (owned) replicas of 4 users": the kind, its count and each replica's share of the concurrency. */
const replicaName = (c: FleetReplica): string =>
  `${c.count}× ${c.gpusPerReplica > 1 ? `${c.gpusPerReplica}×` : ''}${c.gpuId}${c.kind === 'rent' ? ` (rent ${c.offerId ?? ''})` : ' (owned)'} replica${c.count === 1 ? '' : 's'} of ${c.concurrency} user${c.concurrency === 1 ? '' : 's'}${c.weightsToMake ? ' (weights to quantize first)' : ''}`;

/** The serving fleet line: "fleet: 2× rtx-3090 (owned) replicas + 1× … → N tok/s at $X/h". */
export function renderFleet(f: Fleet): string {
  const limits = [
    f.budgetUsdPerHour !== null ? `budget ${formatUsd(f.budgetUsdPerHour)}/h` : '',
    f.maxGpus !== null ? `≤ ${f.maxGpus} GPUs` : '',
  ].filter((x) => x !== '');
  const within = limits.length > 0 ? `, within ${limits.join(', ')}` : '';
  if (f.replicas.length === 0) return `fleet: none (${f.status}${f.note ? `: ${f.note}` : ''})`;
  const tps = Math.round(f.tokensPerSecond).toLocaleString('en-US');
  const proof = f.status === 'optimal' ? '' : ` (${f.status}, not proven best)`;
  return [
    `fleet: ${f.replicas.map(replicaName).join(' + ')} → ${tps} tok/s at ${formatUsd(f.usdPerHour)}/h${proof}`,
    ...(f.demand ? [renderDemand(f, f.demand)] : []),
    `  ${f.gpus} GPU${f.gpus === 1 ? '' : 's'}${f.hours !== null ? `, job in ${formatDuration(f.hours)}` : ''}; integer MIP over ${f.candidates} replica kinds (${f.backend ?? 'no solver'})${within}`,
  ].join('\n');
}

const rps = (x: number): string => x.toLocaleString('en-US', { maximumFractionDigits: 2 });

/** "demand 5 req/s at the SLO: one rtx-4090 replica sustains 1.9 req/s → ceil(5 / 1.9) = 3 replicas". */
function renderDemand(f: Fleet, d: NonNullable<Fleet['demand']>): string {
  const each = f.replicas
    .map(
      (c) =>
        `one ${c.gpusPerReplica > 1 ? `${c.gpusPerReplica}×` : ''}${c.gpuId} replica sustains ${rps(c.requestsPerSecond ?? 0)} req/s`,
    )
    .join(', ');
  const only = f.replicas.length === 1 ? f.replicas[0]! : null;
  const need =
    only && (only.requestsPerSecond ?? 0) > 0
      ? `ceil(${rps(d.requestsPerSecond)} / ${rps(only.requestsPerSecond!)}) = ${Math.ceil(d.requestsPerSecond / only.requestsPerSecond! - 1e-9)} replica${only.count === 1 ? '' : 's'}`
      : `${rps(d.sustainedRequestsPerSecond)} req/s in all`;
  return `  demand ${rps(d.requestsPerSecond)} req/s at the SLO: ${each} → ${need} (least $/h that sustains it)`;
}

export function renderPlanText(r: PlanResult): string {
  const out: string[] = [];
  out.push(
    `${r.scenario.name}: ${r.model.id} (${(r.model.params / 1e9).toFixed(2)}B params), ${r.scenario.job}, ranked by ${r.scenario.rank}`,
  );
  const more = r.plans.length < r.searched.distinctPlans ? '; --top N for more' : '';
  const count =
    r.plans.length > 0
      ? `${planCountText(r)}, ${shownText(r)} (a plan folds the variants with the same hardware, power limit, cost, time and wall power${more})`
      : `${r.searched.feasible.toLocaleString('en-US')} feasible configurations`;
  out.push(
    `searched ${r.searched.candidates.toLocaleString('en-US')} candidates (${r.searched.configurations.toLocaleString('en-US')} configurations, ${r.searched.memoryEvaluations.toLocaleString('en-US')} memory estimates); ${count}`,
  );
  out.push('');
  if (r.plans.length > 0) {
    out.push(renderTable(r.plans, planColumns(r.plans)));
    out.push(
      `x fastest = plan hours${r.plans.some((p) => p.choices.weightsToMake) ? ' (with its weights made first)' : ''} / fastest plan's hours (${r.fastestHours !== null ? formatDuration(r.fastestHours) : 'n/a'}); quality: exact, near or lossy (least accepted: scenario quality)`,
    );
    out.push('');
    const best = r.plans[0]!;
    out.push(`best: ${best.id}`);
    const c = best.choices;
    if (c.method !== 'inference')
      out.push(
        `global batch ${c.globalBatch} samples per step (micro-batch ${c.microBatch} x accumulation ${c.gradAccum} x ${c.dp} data-parallel)`,
      );
    for (const n of best.notes ?? []) out.push(`note: ${n}`);
    out.push(renderMemory(best));
    out.push(renderHostRam(best));
    out.push(renderQuality(best));
    out.push(renderFactors(best));
    const circuits = renderCircuits(best);
    if (circuits) out.push(circuits);
    if (r.largest)
      out.push(
        `largest that fits this plan's GPU: micro-batch ${r.largest.microBatch}, sequence ${r.largest.seq.toLocaleString('en-US')} tokens`,
      );
    out.push(
      `Pareto front (cost, hours, power): ${r.front.length} plan${r.front.length === 1 ? '' : 's'}`,
    );
  } else out.push(renderFixes(r));
  if (r.sloNearest) out.push(sloNearestSentence(r.sloNearest));
  if (r.fleet) {
    out.push('');
    out.push(renderFleet(r.fleet));
  }
  out.push('');
  out.push(renderPruned(r));
  const idle = renderIdleEngines(r);
  if (idle) out.push(idle);
  out.push('');
  out.push(
    'Estimates: memory ±calibration band; time from the time model (each phase at its compute, memory, link or host limit); see docs/time-model.md and docs/assumptions.md.',
  );
  return out.join('\n');
}
