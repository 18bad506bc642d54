/** An objective's step from CLI flags (Qwen2.5-1.5B LoRA on an H100 unless the flags say otherwise), with its forward. */
import { paramCounts } from '../../src/core/model/params.js';
import { estimateObjectiveTime } from '../../src/core/time/objective.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags, type RawFlags } from '../../src/schema/flags.js';
import { timeOptionsFromFlags } from '../../src/schema/time.js';

export function objectiveTimeOf(flags: RawFlags) {
  const f: RawFlags = { model: 'qwen2.5-1.5b', gpu: 'h100-sxm', method: 'lora', ...flags };
  const arch = resolveModel(String(f.model));
  const o = optionsFromFlags(f);
  const r = estimateObjectiveTime(
    arch,
    o,
    findGpu(String(f.gpu)),
    timeOptionsFromFlags(f, o),
    paramCounts(arch).total,
  );
  return { r, forward: r.phases.find((p) => p.phase === 'forward')!.seconds };
}
