/**
 * The policy's work shared between rows (time/objective.ts PolicyWork): GRPO searches every rollout mode of
 * each configuration, and rows that differ only in the rollout train the policy alike (its options less the
 * objective's keys, on the same trainer GPUs, layout, engine variant and accumulation), so its training work is
 * made once for all of them, and its step once per rates object it is timed at (time/objective.ts objectiveStep;
 * GPU options alike share a rates object: context.ts ratesOf).
 */
import type { EstimateOptions } from '../../schema/estimate.js';
import { trainingGpus } from '../../schema/estimate.js';
import type { TimeOptions } from '../../schema/time.js';
import { samePolicyOptions } from '../memory/objective.js';
import { RolloutDecodes, policyWork, type PolicyWork } from '../time/objective.js';
import type { ModelFacts } from '../time/model-facts.js';
import { countFreeWork, type CountFreeWork } from '../time/train-work.js';
import type { BaseConfig } from './configs.js';

/** Layout fields packed into one number: trainer GPUs, TP, PP below these bounds (larger ones share nothing). */
const MAX_GPUS = 4096;
const MAX_TP = 256;
const MAX_PP = 1024;

export class PolicyWorks {
  /** Per configuration: its policy class (configurations whose policyOptions agree but for GPUs), -1 unknown. */
  private readonly classes: Int32Array;
  private readonly members: number[] = [];
  /** Class ids by a few fields of the options (the candidates samePolicyOptions decides between). */
  private readonly byFields = new Map<string, number[]>();
  /** By class and engine variant, then layout: the accumulation the work was made at, and the work. */
  private readonly works = new Map<number, Map<number, { accum: number; work: PolicyWork }>>();
  /**
   * The policy works' CountFreeWork (time/train-work.ts), shared by the works of one class and engine variant
   * that differ only in GPU count and grad-accum (as the loop's rowWork shares them between training rows), by the
   * sequence the policy trains at.
   */
  private readonly frees = new Map<number, Map<number, CountFreeWork>>();
  /** The rollout decodes every policy work of the search shares (time/objective.ts RolloutDecodes). */
  private readonly decodes = new RolloutDecodes();

  constructor(private readonly bases: readonly BaseConfig[]) {
    this.classes = new Int32Array(bases.length).fill(-1);
  }

  /** Configuration `bi`'s policy class: configurations whose policyOptions agree but for GPUs share one. */
  classOf(bi: number): number {
    const known = this.classes[bi]!;
    if (known >= 0) return known;
    const o = this.bases[bi]!.options;
    const fields = `${o.method}|${o.weights}|${o.optimizer}|${o.checkpointing}|${o.attention}|${o.batch}`;
    let ids = this.byFields.get(fields);
    if (!ids) this.byFields.set(fields, (ids = []));
    let id = ids.find((c) => samePolicyOptions(this.bases[this.members[c]!]!.options, o));
    if (id === undefined) {
      id = this.members.length;
      this.members.push(bi);
      ids.push(id);
    }
    return (this.classes[bi] = id);
  }

  /**
   * policyWork(m, options, t) for a row of configuration `bi` on engine variant `vi` (`options`: the row's,
   * `offload` its index, `t` at its accumulation `accum`), shared with every row it trains alike.
   */
  of(
    m: ModelFacts,
    options: EstimateOptions,
    t: TimeOptions,
    bi: number,
    vi: number,
    offload: number,
    accum: number,
  ): PolicyWork {
    const gpus = trainingGpus(options);
    if (gpus >= MAX_GPUS || options.tp >= MAX_TP || options.pp >= MAX_PP || vi >= 64)
      return policyWork(m, options, t, this.decodes);
    const outer = this.classOf(bi) * 64 + vi;
    let byLayout = this.works.get(outer);
    if (!byLayout) this.works.set(outer, (byLayout = new Map()));
    const layout =
      (((gpus * MAX_TP + options.tp) * MAX_PP + options.pp) * 4 + options.zero) * 4 + offload;
    const known = byLayout.get(layout);
    if (known && known.accum === accum) return known.work;
    // The count-free part: by class, variant, TP, PP, ZeRO stage and offload (the layout less its GPU count).
    const freeKey =
      (((outer * MAX_TP + options.tp) * MAX_PP + options.pp) * 4 + options.zero) * 4 + offload;
    // A GRPO policy that trains at its generation batch's padded length (time/objective.ts policyTrainOptions) has a
    // sequence that follows the accumulation: its count-free part is kept by that sequence too.
    // The count-free part is made at the trainer's time options (its loss path, its k-bit stream), as policyWork
    // makes the rest of the work.
    const work = policyWork(m, options, t, this.decodes, (p, tp) => {
      let bySeq = this.frees.get(freeKey);
      if (!bySeq) this.frees.set(freeKey, (bySeq = new Map()));
      let free = bySeq.get(p.seq);
      if (!free) bySeq.set(p.seq, (free = countFreeWork(m, p, tp)));
      return free;
    });
    if (!known) byLayout.set(layout, { accum, work });
    return work;
  }
}
