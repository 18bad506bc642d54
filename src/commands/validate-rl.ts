/** `validate`'s preference / RL section: calibration/rl-cases.json beside vramplan's estimate. */
import { bandOf, longestFittingSeq, type RlRow } from '../core/memory/index.js';
import { buildEstimate } from '../core/estimate.js';
import { GiB } from '../core/units.js';
import { caseArch, loadRlCases } from '../io/load-calibration.js';
import { optionsFromFlags } from '../schema/flags.js';

/** Every published preference / RL row with its estimate and error, ordered by objective then id. */
export function rlRows(file = 'rl-cases.json'): RlRow[] {
  const rows = loadRlCases(file).map((c): RlRow => {
    const options = optionsFromFlags({ objective: c.objective, ...c.flags });
    const arch = caseArch(c);
    const apart = c.reportedApart === undefined ? {} : { reportedApart: c.reportedApart };
    const base = {
      id: c.id,
      objective: c.objective,
      engine: c.engine,
      model: c.model_hf_id ?? c.config_file,
    };
    if (c.metric !== 'max-context') {
      const published = c.measured_bytes!;
      const perGpu = buildEstimate(arch, options).perGpu;
      // Like with like (calibration/README.md): nvidia-smi beside deviceBytes, torch's peak beside allocatedBytes.
      const bytes = c.metric === 'device' ? perGpu.deviceBytes : perGpu.allocatedBytes;
      const band = bandOf(bytes);
      return {
        ...base,
        metric: c.metric,
        published,
        estimated: bytes,
        error: (bytes - published) / published,
        withinBand: published >= band.lowBytes && published <= band.highBytes,
        ...apart,
      };
    }
    const published = c.published_max_tokens!;
    // A max-context row is estimated only where the source gives the settings (gpu_memory_gib and flags
    // beyond the sequence); reported-apart rows without them carry no estimate.
    const estimated =
      c.gpu_memory_gib === undefined || c.reportedApart !== undefined
        ? null
        : longestFittingSeq(arch, options, c.gpu_memory_gib * GiB);
    return {
      ...base,
      metric: 'max-context',
      published,
      estimated,
      error: estimated === null ? null : (estimated - published) / published,
      withinBand: null,
      ...apart,
    };
  });
  return rows.sort((a, b) => a.objective.localeCompare(b.objective) || a.id.localeCompare(b.id));
}
