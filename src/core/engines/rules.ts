/**
 * Behaviour rules: what a library rejects, or silently changes, for a configuration, kept as data in the
 * folder of the engine it binds (each with the versions it holds for and its citation). The planner never
 * ranks a configuration a `forbid` rule matches at the pinned versions; `explain` names the rule when it
 * prunes a fix; `launch` refuses it with the rule's sentence. A `change` rule is something the launcher
 * writes differently from the library's default, to stay clear of a known failure (the rule says what).
 */
import type { Arch } from '../model/arch.js';
import type { EstimateOptions } from '../../schema/estimate.js';

/** What a rule reads: the configuration, its model, the data-parallel degree and micro-batches per step. */
export interface RuleInput {
  arch: Arch;
  options: EstimateOptions;
  /** Data-parallel degree: gpus / (tp * pp * cp). */
  dp: number;
  /** Micro-batches accumulated per optimizer step. */
  accum: number;
}

export interface Rule {
  /** Stable id (kebab-case), shown by `explain` and in the launch README. */
  id: string;
  /** What the library does, in one sentence a user can act on (no trailing period). */
  says: string;
  /** The refusal for one configuration, where it names more than `says` (e.g. the model_type refused). */
  reason?: (x: RuleInput) => string;
  /** The library and the versions the rule holds for (pip specifier), e.g. bitsandbytes `>=0.43,<=0.50.2`. */
  library: string;
  versions: string;
  /** Where the behaviour is shown: an issue URL or a source line at a commit or tag. */
  source: string;
  /** forbid: never ranked or launched; change: the launcher works around it (the sentence says how). */
  effect: 'forbid' | 'change';
  /** Whether the rule matches a configuration (pure and cheap: the planner asks per layout shape). */
  applies: (x: RuleInput) => boolean;
  /**
   * 'writer': the rule is about what vramplan writes (a launcher's own map), not what the library does: the
   * planner and `launch` honour it, `estimate` models the configuration all the same. Absent: the library's.
   */
  scope?: 'writer';
  /** Where only some inputs are about what vramplan writes (a model_type its script cannot load): those. */
  writerFor?: (x: RuleInput) => boolean;
  /**
   * What the library does instead where the option the rule forbids was not asked for (a default, not a flag):
   * `estimate` then models that (`apply`) and says so (`says`) rather than refusing. Absent: refused either way.
   */
  unasked?: { flag: string; apply: (o: EstimateOptions) => void; says: string };
}

/**
 * The first `forbid` rule of `rules` that matches `x`, or null; `library`: only the library's own rules (what
 * `estimate` refuses), not those about what vramplan writes.
 */
export function forbiddenBy(rules: readonly Rule[], x: RuleInput, library = false): Rule | null {
  // By index: the planner asks per layout shape, tens of thousands of times, much of it before V8 optimizes this
  // loop, where a for-of runs the array iterator (one result object per rule).
  for (let i = 0; i < rules.length; i++) {
    const r = rules[i]!;
    if (r.effect === 'forbid' && r.applies(x) && !(library && writerOnly(r, x))) return r;
  }
  return null;
}

const writerOnly = (r: Rule, x: RuleInput): boolean =>
  r.scope === 'writer' || (r.writerFor?.(x) ?? false);

/** A forbidding rule as a one-line reason: its sentence (its `reason` for `x` where it has one), id and source. */
export const ruleReason = (r: Rule, x?: RuleInput): string =>
  r.reason && x ? r.reason(x) : `${r.says} (rule ${r.id}: ${r.library} ${r.versions}, ${r.source})`;

/** The `change` rules that match `x`: what the launcher writes differently, for the README's notes. */
export const changesFor = (rules: readonly Rule[], x: RuleInput): Rule[] =>
  rules.filter((r) => r.effect === 'change' && r.applies(x));
