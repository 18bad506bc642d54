/**
 * `--framework <engine>`: the engine's defaults, applied exactly as the planner's options carry them (its
 * memory profile, master-weight copy, sequence/loss parallel with TP: engineFieldsInto), plus what the engine
 * does where the user says nothing (profile `defaults`); then the engine's own checks and forbid rules. The
 * family names `hf` and `deepspeed` keep their meaning (the HF engine follows from --zero / --method).
 */
import type { Arch } from '../model/arch.js';
import { ENGINES, isEngine, type Engine } from '../../schema/engine.js';
import type { EstimateOptions } from '../../schema/estimate.js';
import { FlagError } from '../../schema/flags.js';
import { engineOf } from './engine.js';
import { ENGINE_PROFILES, engineFieldsInto } from './engines.js';
import { ENGINE_RUNS, engineRuns, runsRefusal } from './engines-runs.js';
import { runsSource } from './runs.js';
import { forbiddenBy, ruleReason } from './rules.js';
import { architectureRule } from './architectures.js';
import { architecturesOf } from './store.js';

type Flags = Readonly<Record<string, unknown>>;

/** The options on the engine `flags.framework` names (unchanged for a family name or none). */
export function withEngineDefaults(o: EstimateOptions, flags: Flags): EstimateOptions {
  const engine = flags.framework;
  if (!isEngine(engine)) return o;
  const p = ENGINE_PROFILES[engine];
  const given = (flag: string) => flags[flag] !== undefined;
  const out = { ...o };
  if (!given('zero') && !p.zero.includes(out.zero)) out.zero = Math.max(...p.zero) as 0 | 1 | 2 | 3;
  for (const d of p.defaults) if (!given(d.flag)) d.apply(out);
  // An --attention the engine picks for itself runs as what it picks (attentionNote says so).
  const picks = ENGINE_RUNS[engine].attention?.map[out.attention];
  if (picks) out.attention = picks;
  engineFieldsInto(out, engine);
  if (given('master-weights')) out.masterWeights = o.masterWeights;
  // A given --chunked-loss stands on an engine whose recipes chunk the loss (--chunked-loss false: the plain loss).
  if (given('chunked-loss') && !ENGINE_RUNS[engine].loss) out.chunkedLoss = o.chunkedLoss;
  if (engineOf(out) !== engine) {
    const why = runsRefusal(engine, out, out.gpus / (out.tp * out.pp * out.cp), 1);
    throw new FlagError(
      'framework',
      engine,
      why
        ? `a configuration the engine runs (${why})`
        : `an engine that runs --method ${o.method} with --zero ${out.zero}`,
    );
  }
  return out;
}

/**
 * Why the engine `flags.framework` names cannot run `o` on `arch` (what it runs, runs.ts, citing its source;
 * then its rules), or null. What vramplan does not write for it is estimated all the same.
 */
export function engineRefusal(arch: Arch, o: EstimateOptions, flags: Flags): string | null {
  const engine = flags.framework;
  const input = ruleInput(arch, o, flags);
  if (!isEngine(engine)) return familyOffloadRefusal(o) ?? familyArchRefusal(arch, o, input.dp);
  const why = runsRefusal(engine, o, input.dp, input.accum);
  if (why) return why;
  const rule = forbiddenBy(ENGINE_PROFILES[engine].rules, input, true);
  return rule ? ruleReason(rule, input) : null;
}

/** What an engine's rules read of an estimate: the options, their data-parallel width and --grad-accum. */
function ruleInput(arch: Arch, o: EstimateOptions, flags: Flags) {
  return {
    arch,
    options: o,
    dp: o.gpus / (o.tp * o.pp * o.cp),
    accum: Number(flags['grad-accum'] ?? 1),
  };
}

/**
 * Where a rule of the engine `flags.framework` names forbids an option the user did not ask for, and the library
 * does something else then (Rule.unasked): that, applied to `o`, with a note each. Refusals of what was asked stay.
 */
export function unaskedFallbacks(arch: Arch, o: EstimateOptions, flags: Flags): string[] {
  const engine = flags.framework;
  if (!isEngine(engine)) return [];
  const notes: string[] = [];
  const input = ruleInput(arch, o, flags);
  for (const r of ENGINE_PROFILES[engine].rules) {
    if (!r.unasked || flags[r.unasked.flag] !== undefined) continue;
    if (r.effect !== 'forbid' || !r.applies(input)) continue;
    r.unasked.apply(o);
    notes.push(`${r.unasked.says} (rule ${r.id})`);
  }
  return notes;
}

/**
 * A family name estimates as its engine (engineOf): an offload without ZeRO that engine does not run is refused
 * with the source of its layout, naming the engines whose runs.ts accepts it.
 */
function familyOffloadRefusal(o: EstimateOptions): string | null {
  if (o.offload === 'none' || o.zero !== 0) return null;
  const at0 = (e: Engine): boolean => (engineRuns(e).offload[o.offload] ?? []).includes(0);
  const engine = engineOf(o);
  if (at0(engine)) return null;
  const others = ENGINES.filter(at0);
  const instead = others.length > 0 ? `; estimate it with --framework ${others.join(' or ')}` : '';
  return `${engine} no ${o.offload} offload at ZeRO-0 (${runsSource(ENGINE_RUNS[engine], 'parallel')})${instead}`;
}

/**
 * A family name (`hf`, `deepspeed`, or none) resolves to an engine (engineOf); that engine's model_type table
 * holds for it as for the engine named: transformers has no class for a remote-code model_type either way.
 */
function familyArchRefusal(arch: Arch, o: EstimateOptions, dp: number): string | null {
  const table = architecturesOf(engineOf(o));
  if (!table) return null;
  const input = { arch, options: o, dp, accum: 1 };
  const rule = forbiddenBy([architectureRule(table)], input, true);
  return rule ? ruleReason(rule, input) : null;
}
