/**
 * Speculative decoding read back from a server command: the method and draft tokens the engine's flags name,
 * and the acceptance a launch folder's `# vramplan: --spec-acceptance P` line carries (else the method's
 * default, warned: acceptance is the workload's).
 */
import type { FromFlags } from './common.js';
import { SPEC_DEFAULTS } from '../../schema/flags.js';
import type { SpeculativeMethod } from '../../schema/estimate.js';

/** Contract flags for a speculative method with `tokens` draft tokens (null: none, or one not modelled). */
export function speculativeFlagsInto(
  method: SpeculativeMethod | null,
  tokens: number | undefined,
  planFlags: Readonly<Record<string, string>>,
  flags: FromFlags,
  warnings: string[],
  written: string,
): void {
  if (!method) return;
  flags.speculative = method;
  if (tokens !== undefined) flags['spec-tokens'] = tokens;
  const given = planFlags['spec-acceptance'];
  if (given !== undefined) {
    flags['spec-acceptance'] = Number(given);
    return;
  }
  const d = SPEC_DEFAULTS[method].acceptance;
  if (d === undefined) {
    flags['spec-acceptance'] = 0;
    warnings.push(
      `${written}: n-gram's acceptance depends on how much the output repeats the prompt; estimated with none (give --spec-acceptance P)`,
    );
  } else
    warnings.push(
      `${written}: the share of draft tokens accepted depends on the requests; estimated with ${method}'s default ${d} (give --spec-acceptance P)`,
    );
}

/** vLLM SpeculativeConfig.method → the contract's method (vllm/config/speculative.py at 002e77c1). */
export function vllmSpeculativeMethod(method: unknown): SpeculativeMethod | null {
  if (method === 'eagle3' || method === 'ngram' || method === 'mtp') return method;
  if (typeof method === 'string' && method.endsWith('_mtp')) return 'mtp';
  return null;
}
