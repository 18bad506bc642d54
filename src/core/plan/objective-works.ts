/**
 * The objective works of a search's preference / RL rows (time/objective.ts objectiveWork), shared between the rows
 * of GRPO's colocated vLLM shares. The search tries each colocated configuration at every share (objective.ts
 * COLOCATE_SHARES: `rolloutMemory`), and the share sizes vLLM's part of the GPU's memory only: no time figure reads
 * it (no module under src/core/time reads `rolloutMemory`; the memory side keeps the shares apart:
 * memory/surface.ts). The rows of configurations alike but for the share, on the same layout, engine variant and
 * accumulation, have options alike but for it (loop.ts rowTimingOf writes the same layout and engine fields into
 * each) and one policy work (policy-works.ts: one policy class), so objectiveWork makes them the same work: it is
 * made once for them. Every other row makes its own.
 */
import type { EstimateOptions } from '../../schema/estimate.js';
import type { TimeOptions } from '../../schema/time.js';
import type { ModelFacts } from '../time/model-facts.js';
import { objectiveWork, type ObjectiveWork } from '../time/objective.js';
import { alikeBut } from './alike.js';
import type { BaseConfig } from './configs.js';
import { PolicyWorks } from './policy-works.js';

/** The option the shared works leave out: vLLM's colocated share of the GPU. */
const SHARE: ReadonlySet<string> = new Set<keyof EstimateOptions>(['rolloutMemory']);

// Layout fields packed into one number below these bounds (larger ones share nothing): GPUs, TP, PP, then ZeRO stage
// (4), offload index (4) and engine variant.
const MAX_GPUS = 4096;
const MAX_TP = 256;
const MAX_PP = 1024;
const MAX_VARIANTS = 64;

export class ObjectiveWorks {
  /** The policy works the objective works are made on (rows that differ only in the rollout share one). */
  readonly policies: PolicyWorks;
  /** Per configuration: the configuration whose rows' works its rows take (-1: not asked yet). */
  private readonly roots: Int32Array;
  /** Root configurations by policy class (PolicyWorks.classOf: the candidates alikeBut decides between). */
  private readonly byClass = new Map<number, number[]>();
  /** By root configuration, then layout and engine variant: the works made, each at its accumulation. */
  private readonly works = new Map<number, Map<number, { accum: number; work: ObjectiveWork }[]>>();

  constructor(private readonly bases: readonly BaseConfig[]) {
    this.policies = new PolicyWorks(bases);
    this.roots = new Int32Array(bases.length).fill(-1);
  }

  /** The first configuration met of `bi`'s policy class whose options are `bi`'s but for the share. */
  private rootOf(bi: number): number {
    const known = this.roots[bi]!;
    if (known >= 0) return known;
    const policyClass = this.policies.classOf(bi);
    let ids = this.byClass.get(policyClass);
    if (!ids) this.byClass.set(policyClass, (ids = []));
    const o = this.bases[bi]!.options;
    let root = ids.find((c) => alikeBut(this.bases[c]!.options, o, SHARE));
    if (root === undefined) ids.push((root = bi));
    return (this.roots[bi] = root);
  }

  /**
   * objectiveWork(m, options, t, params, its policy work) for a row of configuration `bi` on engine variant `vi`
   * (`options`: the row's, `offload` its index, `t` at its accumulation `accum`): the work a row alike but for vLLM's
   * share made, else made here (on PolicyWorks' policy work) and kept for those rows.
   */
  of(
    m: ModelFacts,
    options: EstimateOptions,
    t: TimeOptions,
    params: number,
    bi: number,
    vi: number,
    offload: number,
    accum: number,
  ): ObjectiveWork {
    const o = options;
    if (
      o.rolloutMemory === undefined || // no share: no row is alike but for it
      o.gpus >= MAX_GPUS ||
      o.tp >= MAX_TP ||
      o.pp >= MAX_PP ||
      vi >= MAX_VARIANTS
    )
      return this.make(m, o, t, params, bi, vi, offload, accum);
    const root = this.rootOf(bi);
    let byLayout = this.works.get(root);
    if (!byLayout) this.works.set(root, (byLayout = new Map()));
    const layout =
      ((((o.gpus * MAX_TP + o.tp) * MAX_PP + o.pp) * 4 + o.zero) * 4 + offload) * MAX_VARIANTS + vi;
    let made = byLayout.get(layout);
    if (!made) byLayout.set(layout, (made = []));
    for (let i = 0; i < made.length; i++) if (made[i]!.accum === accum) return made[i]!.work;
    const work = this.make(m, o, t, params, bi, vi, offload, accum);
    made.push({ accum, work });
    return work;
  }

  private make(
    m: ModelFacts,
    o: EstimateOptions,
    t: TimeOptions,
    params: number,
    bi: number,
    vi: number,
    offload: number,
    accum: number,
  ): ObjectiveWork {
    return objectiveWork(m, o, t, params, this.policies.of(m, o, t, bi, vi, offload, accum));
  }
}
