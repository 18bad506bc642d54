/**
 * The circuit MIP for the reported plans. The search places nodes on circuits greedily
 * (hardware/power.ts circuitOverWatts, results.ts perCircuit); after plan() this re-places each reported owned/bought
 * plan: first-fit when it fits (optimal, see refineOne), else assignCircuits proves that nothing fits.
 * Pure apart from awaiting solveMip: no I/O.
 *
 * The power limit stays the plan's own: the search already tries every uniform limit, and raising single
 * nodes would cost energy without speeding a job that runs at its slowest GPU's pace.
 */
import {
  boardWatts,
  DEFAULT_GPU_WATTS,
  type CircuitSolve,
  type Plan,
  type PlanInput,
  type PlanResult,
} from './plan.js';
import {
  assignCircuits,
  firstFit,
  nodeWallWatts,
  psuEfficiency,
  reportedOrder,
  type PowerUnit,
} from '../hardware/power.js';

export interface RefineOptions {
  /**
   * Most MIPs solved for one report (default 32); plans left when they are spent keep greedy. A count, not a
   * clock, so the report is the same on a loaded machine; each solve is bounded by HiGHS's node limit.
   */
  maxSolves?: number;
  /** Largest model to build (nodes × circuits binaries); bigger plans keep greedy (default 40). */
  maxVariables?: number;
}

type Power = Plan['power'];

/** The nodes of a plan as MIP units: full nodes, then the partial one, each with its wall watts. */
export function planUnits(p: Plan, input: PlanInput): PowerUnit[] {
  const h = p.hardware;
  const opt = input.hardware.find((o) => o.kind === h.kind && o.gpu.id === h.gpuId);
  const nodeSize = opt?.nodeSize ?? h.gpusPerNode;
  const board = opt ? boardWatts(opt.gpu) : DEFAULT_GPU_WATTS;
  const gpuW = board * h.powerLimitFraction;
  const s = input.scenario;
  const eff = psuEfficiency(s.power.psu, Math.min(...input.circuits.map((c) => c.volts)));
  const units: PowerUnit[] = [];
  for (let left = h.gpus, i = 1; left > 0; left -= nodeSize, i++) {
    const gpus = Math.min(left, nodeSize);
    units.push({
      id: `node${i}`,
      gpus,
      wallWatts: [nodeWallWatts(gpus, gpuW, s.power.systemDrawW, eff)],
    });
  }
  return units;
}

/** Re-solve one plan's placement; `solvesLeft` says whether a MIP may still run. Returns the new power block. */
async function refineOne(
  p: Plan,
  input: PlanInput,
  solvesLeft: number,
  maxVariables: number,
): Promise<Power> {
  const greedy = (solver: CircuitSolve): Power => ({ ...p.power, assignment: 'greedy', solver });
  const units = planUnits(p, input);
  const circuits = reportedOrder(input.circuits);
  // The plan keeps its own power limit, so the MIP has one level and its objective (the pace, plus
  // throughput summed over the GPUs) is the same for every placement within the limits: any such placement
  // is optimal. First-fit finds one whenever one exists for a plan's nodes (identical full nodes, then one
  // smaller partial node: test/core/plan-circuits.test.ts checks this against the MIP), so the solver
  // only runs to prove that none exists. With one node this is the smallest circuit that carries it.
  const ff = firstFit(
    units.map((u) => u.wallWatts[0]!),
    circuits.map((c) => c.continuousWatts),
  );
  if (ff.fits)
    return {
      ...p.power,
      perCircuit: circuits.map((c, i) => ({
        circuit: c.id,
        loadW: Math.round(ff.loads[i]!),
        limitW: c.continuousWatts,
      })),
      assignment: 'mip',
      solver: {
        status: 'optimal',
        backend: null,
        note:
          units.length === 1
            ? 'one node: exact without a solver'
            : 'one power level: every placement within the limits is optimal; first-fit, without a solver',
      },
    };
  if (units.length * circuits.length > maxVariables)
    return greedy({
      status: 'skipped',
      backend: null,
      note: `${units.length} nodes × ${circuits.length} circuits is over ${maxVariables} variables`,
    });
  if (units.length === 1)
    return greedy({
      status: 'infeasible',
      backend: null,
      note: 'no circuit carries the node; greedy loads shown',
    });
  if (solvesLeft < 1)
    return greedy({ status: 'skipped', backend: null, note: 'solver budget spent' });
  const r = await assignCircuits(units, circuits, [1]);
  if (r.status === 'infeasible')
    return greedy({
      status: 'infeasible',
      backend: r.backend,
      note: 'the MIP finds no placement within the circuit limits; greedy loads shown',
    });
  if (r.status !== 'optimal')
    return greedy({
      status: 'unsolved',
      backend: r.backend,
      note: 'the MIP hit its node limit or failed; greedy loads shown',
    });
  const perCircuit = circuits.map((c) => ({
    circuit: c.id,
    loadW: Math.round(r.loadW[c.id] ?? 0),
    limitW: c.continuousWatts,
  }));
  // solveMip re-checked every row; this is the same check in the report's own terms.
  const over = circuits.find((c) => (r.loadW[c.id] ?? 0) > c.continuousWatts + 1e-6);
  if (over || r.units.length !== units.length)
    return greedy({
      status: 'unsolved',
      backend: r.backend,
      note: 'the MIP answer failed the circuit check; greedy loads shown',
    });
  return {
    ...p.power,
    perCircuit,
    assignment: 'mip',
    solver: { status: 'optimal', backend: r.backend },
  };
}

/**
 * Re-solve the circuit placement of the reported plans (ranked and front) that run on owned or bought GPUs
 * with ≥ 2 circuits or ≥ 2 nodes. Plans with the same hardware share one solve. The result is a new PlanResult.
 */
export async function refineCircuits(
  result: PlanResult,
  input: PlanInput,
  opts: RefineOptions = {},
): Promise<PlanResult> {
  if (input.circuits.length === 0) return result;
  let solvesLeft = opts.maxSolves ?? 32;
  const maxVariables = opts.maxVariables ?? 40;
  const solved = new Map<string, Power>();
  const refine = async (p: Plan): Promise<Plan> => {
    const h = p.hardware;
    if (h.kind === 'rent' || (input.circuits.length < 2 && h.nodes < 2)) return p;
    const key = `${h.kind}|${h.gpuId}|${h.gpus}|${h.powerLimitFraction}`;
    let power = solved.get(key);
    if (!power) {
      power = await refineOne(p, input, solvesLeft, maxVariables);
      if (power.solver?.backend) solvesLeft -= 1;
      solved.set(key, power);
    }
    // Shared solves carry the loads of the first plan with this hardware; wall watts are the same by key.
    return { ...p, power: { ...power, gpuWatts: p.power.gpuWatts, wallWatts: p.power.wallWatts } };
  };
  const plans: Plan[] = [];
  for (const p of result.plans) plans.push(await refine(p));
  const front: Plan[] = [];
  for (const p of result.front) front.push(await refine(p));
  return { ...result, plans, front };
}
