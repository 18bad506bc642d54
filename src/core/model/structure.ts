/**
 * Structural limits a model puts on a configuration: tensor parallelism splits attention heads (and KV
 * heads, or replicates them), pipeline stages hold whole layers, and the context fits the positions the
 * model was trained for (or the rope-scaled length its config declares). Pure: returns the first problem.
 */
import { rlJobIssue } from '../../schema/objective-job.js';
import type { Arch } from './arch.js';
import type { EstimateOptions } from '../../schema/estimate.js';
import { FlagError } from '../../schema/flags.js';
import type { Scenario } from '../../schema/scenario.js';

export interface StructureIssue {
  /** The flag (estimate) or scenario field it comes from. */
  flag: 'tp' | 'pp' | 'seq' | 'completion-tokens';
  value: number;
  allowed: string;
}

/** Attention heads and KV heads of the first attention group (all groups of a decoder share them). */
function headsOf(arch: Arch): { heads: number; kv: number } | null {
  const g = arch.groups.find((x) => x.heads > 0);
  return g ? { heads: g.heads, kv: g.kvHeads } : null;
}

/**
 * TP degrees a model admits: each rank gets whole attention heads; KV heads are split when the degree
 * divides them and replicated when it is a multiple of them (Megatron-LM / vLLM replicate KV heads when
 * tp > num_key_value_heads: https://docs.vllm.ai/en/latest/serving/distributed_serving.html).
 */
export function tpAllowed(arch: Arch, tp: number): boolean {
  const h = headsOf(arch);
  if (!h) return tp === 1;
  return h.heads % tp === 0 && (h.kv % tp === 0 || tp % h.kv === 0);
}

export function tpAllowedText(arch: Arch): string {
  const h = headsOf(arch);
  if (!h) return '1 (no attention heads to split)';
  const ok: number[] = [];
  for (let t = 1; t <= h.heads; t++) if (tpAllowed(arch, t)) ok.push(t);
  return `one of ${ok.join(', ')} (a divisor of the ${h.heads} attention heads; the ${h.kv} KV heads are split or, above ${h.kv}, replicated)`;
}

/** The longest context the model declares: rope-scaled length, else max_position_embeddings. */
export function maxContext(arch: Arch): number {
  if (arch.unboundedPositions) return Infinity; // relative or ALiBi positions: no table caps the context
  return Math.max(arch.maxPositions, arch.ropeScaledPositions ?? 0);
}

function maxContextText(arch: Arch): string {
  const n = maxContext(arch);
  return arch.ropeScaledPositions && arch.ropeScaledPositions > arch.maxPositions
    ? `at most ${n} (the rope-scaled length ${arch.id} declares)`
    : `at most ${n} (max_position_embeddings of ${arch.id})`;
}

export function layersOf(arch: Arch): number {
  return arch.groups.reduce((a, g) => a + g.count, 0);
}

export function structureIssue(arch: Arch, o: EstimateOptions): StructureIssue | null {
  if (!tpAllowed(arch, o.tp)) return { flag: 'tp', value: o.tp, allowed: tpAllowedText(arch) };
  const layers = layersOf(arch);
  if (o.pp > layers)
    return { flag: 'pp', value: o.pp, allowed: `at most ${layers} (the layers of ${arch.id})` };
  if (o.completionTokens !== undefined && o.completionTokens >= maxContext(arch))
    return {
      flag: 'completion-tokens',
      value: o.completionTokens,
      allowed: `fewer than the model's positions: ${maxContextText(arch)}`,
    };
  if (o.seq > maxContext(arch)) return { flag: 'seq', value: o.seq, allowed: maxContextText(arch) };
  return null;
}

/**
 * The same limits on a scenario: the job's context and any TP/PP degrees it lists. `scalesRope`: an engine the
 * scenario searches scales RoPE itself past the config's positions (engines' runs.ts extendsContext), so the
 * context is bounded per engine by the search instead (plan/configs.ts variantsOf).
 */
export function scenarioStructureIssue(
  arch: Arch,
  s: Scenario,
  scalesRope = false,
): { field: string; value: number; allowed: string } | null {
  const seq = s.job.kind === 'fine-tune' ? s.job.seq : s.job.context;
  if (seq > maxContext(arch) && !scalesRope)
    return {
      field: s.job.kind === 'fine-tune' ? 'job.seq' : 'job.context',
      value: seq,
      allowed: maxContextText(arch),
    };
  const rl =
    s.job.kind === 'fine-tune' ? rlJobIssue(s.job, maxContext(arch), maxContextText(arch)) : null;
  if (rl) return rl;
  for (const tp of s.search.tp ?? [])
    if (!tpAllowed(arch, tp))
      return { field: 'search.tp', value: tp, allowed: tpAllowedText(arch) };
  const layers = layersOf(arch);
  for (const pp of s.search.pp ?? [])
    if (pp > layers)
      return {
        field: 'search.pp',
        value: pp,
        allowed: `at most ${layers} (the layers of ${arch.id})`,
      };
  return null;
}

/** structureIssue as the one-line flag error (`--tp: got 5; expected one of ...`). */
export function assertStructure(arch: Arch, o: EstimateOptions): void {
  const issue = structureIssue(arch, o);
  if (issue) throw new FlagError(issue.flag, issue.value, issue.allowed);
}
