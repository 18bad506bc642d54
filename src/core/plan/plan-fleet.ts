/**
 * Serving fleets: from the feasible serving plans' per-replica figures, choose integer replica
 * counts per GPU source (owned GPU type or rent offer) that maximise total tokens/s within a budget per hour,
 * the owned counts and limits.maxGpus. The replicas share the job's concurrency as the ranked plans' replicas do
 * (replicas.ts): each kind is one replica of a plan at its share, and the shares add up to the concurrency. One
 * integer variable per replica kind; rows for the budget, each owned GPU type's inventory, the GPU cap and the
 * concurrency; solved and re-checked by solveMip. Pure apart from awaiting solveMip.
 */
import {
  planReplicas,
  type Fleet,
  type FleetReplica,
  type HardwareOption,
  type PlanInput,
  type ReplicaPlan,
} from './plan.js';
import { modelSidesFor } from './model-side.js';
import { solveMip, type MipModel } from '../../solve/index.js';
import { replicaRequestsPerSecond } from './slo.js';

export type FleetCandidate = Omit<FleetReplica, 'count'>;

export interface FleetLimits {
  /** USD per hour for the whole fleet (rent, plus energy and amortisation of owned GPUs); null = none. */
  budgetUsdPerHour: number | null;
  maxGpus: number | null;
  /** Owned GPUs per GPU id. */
  owned: Readonly<Record<string, number>>;
  /** job.requestsPerSecond: requests/s the fleet must sustain at the SLO (null: maximise tokens/s). */
  requestsPerSecond?: number | null;
  /** job.concurrency: the replicas' shares add up to it (undefined: no such row). */
  concurrency?: number;
}

/** Most replica kinds offered to the MIP (one integer variable each). */
export const MAX_FLEET_VARIABLES = 40;
const PER_SOURCE = 4;

const sourceOf = (c: Pick<FleetReplica, 'kind' | 'gpuId' | 'offerId'>) =>
  c.kind === 'rent' ? `rent:${c.offerId ?? c.gpuId}` : `owned:${c.gpuId}`;

/**
 * Per-replica figures of one serving plan: a plan with dp replicas of tp × pp GPUs each, each serving its
 * options.batch of the job's concurrency. A DP-attention plan's dp ranks are one engine (its experts span them
 * all): one replica of all its GPUs, serving every rank's share.
 */
export function replicaOf(p: ReplicaPlan): FleetCandidate | null {
  const h = p.hardware;
  if (
    (h.kind !== 'owned' && h.kind !== 'rent') ||
    p.choices.method !== 'inference' ||
    !(p.time.hours > 0)
  )
    return null;
  // Replicas in the plan, and data-parallel ranks per replica (a DP-attention engine's).
  const ranks = p.options.dpAttention === true ? p.choices.dp : 1;
  const dp = p.choices.dp / ranks;
  return {
    kind: h.kind,
    gpuId: h.gpuId,
    offerId: h.offerId,
    gpusPerReplica: p.choices.tp * p.choices.pp * ranks,
    concurrency: p.options.batch * ranks,
    powerLimitFraction: h.powerLimitFraction,
    tokensPerSecond: p.time.tokensPerSecond / dp,
    requestsPerSecond:
      p.time.ttftSeconds !== undefined && p.time.tpotSeconds !== undefined
        ? replicaRequestsPerSecond(p.options, p.time.ttftSeconds, p.time.tpotSeconds) * ranks
        : null,
    // A running cost: the one-off quantize of weights to make (cost.quantizeUsd) is not spread over the hours.
    usdPerHour: (p.cost.usd - (p.cost.quantizeUsd ?? 0)) / p.time.hours / dp,
    planId: p.id,
    ...(p.choices.weightsToMake ? { weightsToMake: true as const } : {}),
  };
}

/**
 * Keep, per source, replica size and share of the concurrency, the replicas no other beats on both tokens/s and
 * $/h (fastest first, at most PER_SOURCE), then at most MAX_FLEET_VARIABLES in all (best tokens per dollar
 * first). Deterministic.
 */
export function pruneCandidates(all: readonly FleetCandidate[]): FleetCandidate[] {
  const groups = new Map<string, FleetCandidate[]>();
  for (const c of all) {
    const k = `${sourceOf(c)}|${c.gpusPerReplica}|${c.concurrency}`;
    const g = groups.get(k) ?? [];
    g.push(c);
    groups.set(k, g);
  }
  const kept: FleetCandidate[] = [];
  for (const k of [...groups.keys()].sort()) {
    const g = groups
      .get(k)!
      .sort(
        (a, b) =>
          b.tokensPerSecond - a.tokensPerSecond ||
          a.usdPerHour - b.usdPerHour ||
          (a.planId < b.planId ? -1 : 1),
      );
    let cheapest = Infinity;
    const front: FleetCandidate[] = [];
    for (const c of g)
      if (c.usdPerHour < cheapest - 1e-12) {
        front.push(c);
        cheapest = c.usdPerHour;
      }
    kept.push(...front.slice(0, PER_SOURCE));
  }
  const perUsd = (c: FleetCandidate) => c.tokensPerSecond / Math.max(c.usdPerHour, 1e-9);
  if (kept.length <= MAX_FLEET_VARIABLES) return kept;
  return [...kept]
    .sort((a, b) => perUsd(b) - perUsd(a) || (a.planId < b.planId ? -1 : 1))
    .slice(0, MAX_FLEET_VARIABLES);
}

/**
 * Candidate replicas of a serving scenario: plan() once per owned type and rent offer, fastest first, with
 * the per-plan limits that the fleet replaces (total budget, deadline, slowdown) lifted. Sync and pure.
 */
export function fleetCandidates(input: PlanInput): FleetCandidate[] {
  const s = input.scenario;
  if (s.job.kind !== 'inference') return [];
  const limits = {
    ...s.limits,
    budgetUsd: undefined,
    deadlineHours: undefined,
    maxSlowdown: undefined,
  };
  // A candidate is one replica: the demand (job.requestsPerSecond) is the fleet's to meet, not each plan's.
  const job = { ...s.job, requestsPerSecond: undefined };
  const scenario = { ...s, job, limits, rank: 'time' as const };
  const all: FleetCandidate[] = [];
  const options = input.hardware.filter(
    (h: HardwareOption) => h.kind === 'owned' || h.kind === 'rent',
  );
  // The model side is built once (or taken from the search of the whole scenario): it reads no GPU option
  // beyond whether it has FP4 cores, nor the limits lifted here (model-side.ts modelView).
  const modelSides = input.modelSides ?? modelSidesFor(scenario, input.arch);
  for (const h of options) {
    // The ranked plans' figures the fleet reads, as plan() would rank them (its memory, power and front unmade).
    for (const p of planReplicas({ ...input, scenario, hardware: [h], top: 60, modelSides })) {
      // One replica of the plan at its share of the concurrency (replicas.ts: a plan of dp replicas serves
      // concurrency / dp each); the fleet sets its own replica counts, whose shares add up to the concurrency.
      const c = replicaOf(p);
      if (c) all.push(c);
    }
  }
  return pruneCandidates(all);
}

/** The fleet limits a scenario sets: limits.budgetUsdPerHour, else budgetUsd over deadlineHours. */
export function fleetLimits(input: PlanInput): FleetLimits {
  const l = input.scenario.limits;
  const perHour =
    l.budgetUsdPerHour ??
    (l.budgetUsd !== undefined && l.deadlineHours !== undefined
      ? l.budgetUsd / l.deadlineHours
      : null);
  const owned: Record<string, number> = {};
  for (const h of input.hardware)
    if (h.kind === 'owned') owned[h.gpu.id] = (owned[h.gpu.id] ?? 0) + h.maxCount;
  const job = input.scenario.job;
  const requestsPerSecond = job.kind === 'inference' ? (job.requestsPerSecond ?? null) : null;
  return {
    budgetUsdPerHour: perHour,
    maxGpus: l.maxGpus ?? null,
    owned,
    requestsPerSecond,
    ...(job.kind === 'inference' ? { concurrency: job.concurrency } : {}),
  };
}

/**
 * The fleet MIP: maximise Σ tokens/s · n_i (minus a tie-break of 1e-6 × $/h) subject to Σ $/h · n_i ≤ budget,
 * Σ gpus · n_i ≤ owned count per owned GPU type, Σ gpus · n_i ≤ maxGpus, Σ share · n_i = concurrency; n_i
 * integer ≥ 0.
 */
const replicaVar = (i: number) => `n_${String(i).padStart(2, '0')}`;

/**
 * The fleet MIP: maximise tokens/s over integer replica counts under budget, GPU cap and inventory. Built here, so
 * solveMip takes it as trusted (no schema check): test/core/fleet-model.test.ts holds its models to the MIP schema.
 */
export function fleetModel(
  candidates: readonly FleetCandidate[],
  limits: FleetLimits,
): MipModel | { unbounded: true } {
  const budget = limits.budgetUsdPerHour;
  const objective: Record<string, number> = {};
  const bounds: NonNullable<MipModel['bounds']> = {};
  const constraints: MipModel['constraints'] = [];
  const budgetRow: Record<string, number> = {};
  const gpuRow: Record<string, number> = {};
  const inventory = new Map<string, Record<string, number>>();
  const demand = limits.requestsPerSecond ?? null;
  const demandRow: Record<string, number> = {};
  const shareRow: Record<string, number> = {};
  const users = limits.concurrency;
  for (const [i, c] of candidates.entries()) {
    const name = replicaVar(i);
    const rps = c.requestsPerSecond ?? 0;
    // With a demand: least $/h (ties: fewer GPUs); without: most tokens/s (ties: least $/h).
    objective[name] =
      demand !== null
        ? c.usdPerHour + 1e-6 * c.gpusPerReplica
        : c.tokensPerSecond - 1e-6 * c.usdPerHour;
    demandRow[name] = rps;
    shareRow[name] = c.concurrency;
    budgetRow[name] = c.usdPerHour;
    gpuRow[name] = c.gpusPerReplica;
    let hi = Infinity;
    if (c.kind === 'owned') {
      const row = inventory.get(c.gpuId) ?? {};
      row[name] = c.gpusPerReplica;
      inventory.set(c.gpuId, row);
      hi = Math.floor((limits.owned[c.gpuId] ?? 0) / c.gpusPerReplica);
    }
    if (limits.maxGpus !== null) hi = Math.min(hi, Math.floor(limits.maxGpus / c.gpusPerReplica));
    if (users !== undefined) hi = Math.min(hi, Math.floor(users / c.concurrency));
    if (budget !== null && c.usdPerHour > 0)
      hi = Math.min(hi, Math.floor(budget / c.usdPerHour + 1e-9));
    // More replicas of one kind than the demand needs on its own never help a least-cost fleet.
    if (demand !== null) hi = rps > 0 ? Math.min(hi, Math.ceil(demand / rps)) : 0;
    if (!Number.isFinite(hi)) return { unbounded: true };
    bounds[name] = { lo: 0, hi };
  }
  if (budget !== null)
    constraints.push({ name: 'budget', terms: budgetRow, op: '<=', rhs: budget });
  if (demand !== null)
    constraints.push({ name: 'demand', terms: demandRow, op: '>=', rhs: demand });
  if (users !== undefined)
    constraints.push({ name: 'concurrency', terms: shareRow, op: '=', rhs: users });
  if (limits.maxGpus !== null)
    constraints.push({ name: 'max_gpus', terms: gpuRow, op: '<=', rhs: limits.maxGpus });
  for (const [gpu, row] of [...inventory].sort((a, b) => (a[0] < b[0] ? -1 : 1)))
    constraints.push({ name: `owned_${gpu}`, terms: row, op: '<=', rhs: limits.owned[gpu] ?? 0 });
  const sense = demand !== null ? 'min' : 'max';
  return { sense, objective, constraints, integers: Object.keys(objective), bounds };
}

export async function chooseFleet(
  candidates: readonly FleetCandidate[],
  limits: FleetLimits,
  opts: { timeLimitMs?: number; outputTokens?: number } = {},
): Promise<Fleet> {
  const base = {
    budgetUsdPerHour: limits.budgetUsdPerHour,
    maxGpus: limits.maxGpus,
    candidates: candidates.length,
  };
  const empty = (status: Fleet['status'], backend: string | null, note: string): Fleet => ({
    ...base,
    status,
    backend,
    replicas: [],
    tokensPerSecond: 0,
    usdPerHour: 0,
    gpus: 0,
    hours: null,
    note,
  });
  if (candidates.length === 0)
    return empty('skipped', null, 'no serving plan on owned or rented GPUs fits');
  const model = fleetModel(candidates, limits);
  if ('unbounded' in model)
    return empty(
      'skipped',
      null,
      'renting is unbounded: set limits.budgetUsdPerHour or limits.maxGpus',
    );
  // HiGHS with a node limit: jsLP's only limit is wall-clock, so on a loaded machine it could stop early and
  // hand a different incumbent to the fallback (the fleet answer must not depend on load).
  const r = await solveMip(model, {
    backend: 'highs',
    timeLimitMs: opts.timeLimitMs,
    trusted: true,
  });
  const demand = limits.requestsPerSecond ?? null;
  if (r.status === 'infeasible')
    return empty(
      'infeasible',
      r.backend,
      demand !== null
        ? `no fleet sustains ${demand} requests/s at the SLO within the limits`
        : 'no fleet fits the limits',
    );
  if (r.status !== 'optimal' && r.status !== 'feasible')
    return empty('unsolved', r.backend, `solver: ${r.status}`);
  const replicas: FleetReplica[] = candidates
    .map((c, i) => ({ ...c, count: r.values[replicaVar(i)] ?? 0 }))
    .filter((c) => c.count > 0)
    .sort(
      (a, b) =>
        b.tokensPerSecond * b.count - a.tokensPerSecond * a.count || (a.planId < b.planId ? -1 : 1),
    );
  const tokensPerSecond = replicas.reduce((a, c) => a + c.tokensPerSecond * c.count, 0);
  const fleet: Fleet = {
    ...base,
    status: r.status,
    backend: r.backend,
    replicas,
    tokensPerSecond,
    usdPerHour: replicas.reduce((a, c) => a + c.usdPerHour * c.count, 0),
    gpus: replicas.reduce((a, c) => a + c.gpusPerReplica * c.count, 0),
    hours:
      opts.outputTokens !== undefined && tokensPerSecond > 0
        ? opts.outputTokens / tokensPerSecond / 3600
        : null,
  };
  if (demand !== null)
    fleet.demand = {
      requestsPerSecond: demand,
      sustainedRequestsPerSecond: replicas.reduce(
        (a, c) => a + (c.requestsPerSecond ?? 0) * c.count,
        0,
      ),
    };
  if (replicas.length === 0) fleet.note = 'no replica fits the budget';
  return fleet;
}

/** The fleet answer of a serving scenario (undefined for fine-tunes). */
export async function planFleet(
  input: PlanInput,
  opts: { timeLimitMs?: number } = {},
): Promise<Fleet | undefined> {
  const job = input.scenario.job;
  if (job.kind !== 'inference') return undefined;
  return chooseFleet(fleetCandidates(input), fleetLimits(input), {
    ...opts,
    outputTokens: job.outputTokens,
  });
}
