/**
 * Wall power of a plan and whether its circuits carry it (docs/reference/power.md §1-4):
 * P_wall = (Σ GPU power at its limit + system draw per node) / η_PSU; fits when each circuit's load
 * ≤ V × A × continuous fraction (NEC 80 % rule). The exact assignment of nodes to circuits is a MIP.
 */
import { PSU_EFFICIENCY_115V, PSU_EFFICIENCY_230V_EU, type PsuTier } from '../../schema/power.js';
import { solveMip, type MipModel } from '../../solve/index.js';

/** A circuit as the planner sees it: id and continuous watts at the wall. */
export interface CircuitCap {
  id: string;
  volts: number;
  continuousWatts: number;
}

/** PSU efficiency at ~50 % load (the planning point, docs/reference/power.md §3); 230 V table above 200 V. */
export function psuEfficiency(tier: PsuTier, volts: number): number {
  if (volts >= 200 && tier !== '80plus') return PSU_EFFICIENCY_230V_EU.tiers[tier].at50;
  return PSU_EFFICIENCY_115V.tiers[tier].at50;
}

/** Wall watts of one node: `gpus` GPUs drawing `gpuWatts` each plus the system's DC draw, through the PSU. */
export const nodeWallWatts = (
  gpus: number,
  gpuWatts: number,
  systemDrawW: number,
  efficiency: number,
): number => (gpus * gpuWatts + systemDrawW) / efficiency;

/** Wall power of a plan's nodes: `full` whole nodes of `fullW` watts and one partial node of `lastW`. */
export interface NodeWatts {
  full: number;
  fullW: number;
  lastW: number;
  total: number;
}

/** `count` GPUs in nodes of `nodeSize` at `gpuWatts` each (written into `out`: the search loop reuses it). */
export function planWallWatts(
  count: number,
  nodeSize: number,
  gpuWatts: number,
  systemDrawW: number,
  efficiency: number,
  out: NodeWatts,
): NodeWatts {
  const full = Math.floor(count / nodeSize);
  const rest = count - full * nodeSize;
  out.full = full;
  out.fullW = nodeWallWatts(nodeSize, gpuWatts, systemDrawW, efficiency);
  out.lastW = rest > 0 ? nodeWallWatts(rest, gpuWatts, systemDrawW, efficiency) : 0;
  out.total = full * out.fullW + out.lastW;
  return out;
}

/** Circuits in the order plans report and fill them: smallest continuous limit first, then by id. */
export const reportedOrder = <C extends CircuitCap>(circuits: readonly C[]): C[] =>
  [...circuits].sort((a, b) => a.continuousWatts - b.continuousWatts || (a.id < b.id ? -1 : 1));

/**
 * First-fit: each node, in order, on the first circuit (`caps` in the reported order, smallest first) that
 * still carries it: the search's placement of a plan, and the one plan-circuits.ts certifies. A node that
 * fits nowhere goes on the last circuit (its load then shows the overload) and `fits` is false.
 */
export function firstFit(
  nodeWatts: readonly number[],
  caps: readonly number[],
): { loads: number[]; fits: boolean } {
  const loads = caps.map(() => 0);
  let fits = true;
  for (const w of nodeWatts) {
    let c = caps.findIndex((cap, i) => loads[i]! + w <= cap + 1e-9);
    if (c < 0) [fits, c] = [false, caps.length - 1];
    if (c >= 0) loads[c]! += w;
  }
  return { loads, fits };
}

/**
 * Fast check for the search loop: can `fullNodes` nodes of `fullW` wall watts plus one node of `lastW`
 * (0 = none) be placed on the circuits, one node per circuit share? Greedy by circuit, exact for identical
 * nodes. Returns the watts by which the tightest placement is over (0 = fits).
 */
export function circuitOverWatts(
  fullNodes: number,
  fullW: number,
  lastW: number,
  caps: readonly number[],
): number {
  if (caps.length === 0) return 0;
  let remainingFull = fullNodes;
  let lastPlaced = lastW <= 0;
  let spare = 0;
  let worst = 0;
  // Circuits are sorted by capacity ascending by the caller; fill the small ones first.
  for (const cap of caps) {
    let left = cap;
    const k = Math.min(remainingFull, Math.floor(left / fullW + 1e-9));
    remainingFull -= k;
    left -= k * fullW;
    if (!lastPlaced && lastW <= left + 1e-9) {
      lastPlaced = true;
      left -= lastW;
    }
    spare = Math.max(spare, left);
  }
  if (remainingFull > 0) worst = remainingFull * fullW - spare + (lastPlaced ? 0 : lastW);
  else if (!lastPlaced) worst = lastW - spare;
  return Math.max(0, worst);
}

/** One unit that must sit on one circuit (a node), with its wall watts at each allowed power level. */
export interface PowerUnit {
  id: string;
  gpus: number;
  /** Wall watts at each level, same order as `levels`. */
  wallWatts: readonly number[];
}

export interface CircuitAssignment {
  status: 'optimal' | 'infeasible' | 'unsolved';
  /** Throughput fraction of the slowest GPU (synchronous training runs at its pace). */
  minThroughput: number;
  units: { unit: string; circuit: string; level: number }[];
  loadW: Record<string, number>;
  backend: string;
}

/** Units with the same GPUs and wall watts are interchangeable: one class each, in first-seen order. */
function unitClasses(units: readonly PowerUnit[]): number[][] {
  const byKey = new Map<string, number[]>();
  units.forEach((u, i) => {
    const key = `${u.gpus}|${u.wallWatts.join(',')}`;
    const members = byKey.get(key);
    if (members) members.push(i);
    else byKey.set(key, [i]);
  });
  return [...byKey.values()];
}

/**
 * The circuit MIP. Nodes that are alike (same GPUs, same wall watts) are one class, so the model
 * counts them instead of naming them: integer x[k][c][l] is how many nodes of class k sit on circuit c at
 * power level l (this removes the symmetry between alike nodes that a binary per node leaves to branch and
 * bound; the usual aggregation of identical items in bin packing). Each class is placed whole; Σ watts on a
 * circuit ≤ its continuous limit; a binary y[l] marks a level in use, and the pace t (the slowest GPU sets
 * it) is at most the throughput of every level in use; maximise t plus a small term for total throughput.
 * Verified by solveMip's row re-check; the counts are then handed to the nodes of each class in order.
 */
export async function assignCircuits(
  units: readonly PowerUnit[],
  circuits: readonly CircuitCap[],
  levelThroughput: readonly number[],
  timeLimitMs?: number,
): Promise<CircuitAssignment> {
  const classes = unitClasses(units);
  // Built here, so trusted: test/core/power-mip.test.ts checks these models against the MIP schema.
  // HiGHS with its node limit: jsLP's only limit is wall-clock, so its answer could depend on machine load.
  const r = await solveMip(circuitModel(units, classes, circuits, levelThroughput), {
    backend: 'highs',
    timeLimitMs,
    trusted: true,
  });
  if (r.status === 'infeasible')
    return { status: 'infeasible', minThroughput: 0, units: [], loadW: {}, backend: r.backend };
  if (r.status !== 'optimal' && r.status !== 'feasible')
    return { status: 'unsolved', minThroughput: 0, units: [], loadW: {}, backend: r.backend };
  return {
    status: 'optimal',
    minThroughput: r.values.t ?? 0,
    ...placeCounts(units, classes, circuits, levelThroughput, r.values),
    backend: r.backend,
  };
}

const countVar = (k: number, c: number, l: number) => `x_${k}_${c}_${l}`;

/** The MIP that assignCircuits solves for these units (tests check it against the MIP schema). */
export const circuitMip = (
  units: readonly PowerUnit[],
  circuits: readonly CircuitCap[],
  levelThroughput: readonly number[],
): MipModel => circuitModel(units, unitClasses(units), circuits, levelThroughput);

/** assignCircuits' model: counts of each class per circuit and level, level-in-use binaries, the pace t. */
function circuitModel(
  units: readonly PowerUnit[],
  classes: readonly number[][],
  circuits: readonly CircuitCap[],
  levelThroughput: readonly number[],
): MipModel {
  const top = Math.max(...levelThroughput);
  const objective: Record<string, number> = { t: 1 };
  const constraints: MipModel['constraints'] = [];
  const integers: string[] = [];
  const binaries: string[] = [];
  const bounds: NonNullable<MipModel['bounds']> = { t: { lo: 0, hi: top } };
  const eps = 1e-3 / Math.max(1, units.length);
  const used = levelThroughput.map(() => ({}) as Record<string, number>);
  classes.forEach((members, k) => {
    const unit = units[members[0]!]!;
    const once: Record<string, number> = {};
    circuits.forEach((_, c) =>
      levelThroughput.forEach((f, l) => {
        const name = countVar(k, c, l);
        if (members.length === 1) binaries.push(name);
        else {
          integers.push(name);
          bounds[name] = { lo: 0, hi: members.length };
        }
        once[name] = 1;
        used[l]![name] = 1;
        objective[name] = eps * f * unit.gpus;
      }),
    );
    constraints.push({ name: `once_${k}`, terms: once, op: '=', rhs: members.length });
  });
  levelThroughput.forEach((f, l) => {
    if (f >= top) return; // the pace is never below the top level
    const y = `y_${l}`;
    binaries.push(y);
    // Σ x[·][·][l] ≤ nodes × y[l]: a node at level l switches y[l] on, and then t ≤ f_l.
    const use = { ...used[l], [y]: -units.length };
    constraints.push({ name: `use_${l}`, terms: use, op: '<=', rhs: 0 });
    constraints.push({ name: `pace_${l}`, terms: { t: 1, [y]: top - f }, op: '<=', rhs: top });
  });
  circuits.forEach((circ, c) => {
    const terms: Record<string, number> = {};
    classes.forEach((members, k) =>
      levelThroughput.forEach(
        (_, l) => (terms[countVar(k, c, l)] = units[members[0]!]!.wallWatts[l]!),
      ),
    );
    constraints.push({ name: `cap_${c}`, terms, op: '<=', rhs: circ.continuousWatts });
  });
  return { sense: 'max', objective, constraints, integers, binaries, bounds };
}

/** The solved counts handed to the nodes of each class in order: each node's circuit and level, and loads. */
function placeCounts(
  units: readonly PowerUnit[],
  classes: readonly number[][],
  circuits: readonly CircuitCap[],
  levelThroughput: readonly number[],
  values: Readonly<Record<string, number>>,
): Pick<CircuitAssignment, 'units' | 'loadW'> {
  const placed: { u: number; circuit: string; level: number }[] = [];
  const loadW: Record<string, number> = {};
  for (const c of circuits) loadW[c.id] = 0;
  classes.forEach((members, k) => {
    let next = 0;
    circuits.forEach((circ, c) =>
      levelThroughput.forEach((_, l) => {
        const n = Math.round(values[countVar(k, c, l)] ?? 0);
        for (let i = 0; i < n && next < members.length; i++, next++) {
          const u = members[next]!;
          placed.push({ u, circuit: circ.id, level: l });
          loadW[circ.id] = (loadW[circ.id] ?? 0) + units[u]!.wallWatts[l]!;
        }
      }),
    );
  });
  placed.sort((a, b) => a.u - b.u);
  return {
    units: placed.map((p) => ({ unit: units[p.u]!.id, circuit: p.circuit, level: p.level })),
    loadW,
  };
}
