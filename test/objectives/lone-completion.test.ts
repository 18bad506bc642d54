// The longest completion's last decode steps, which vLLM runs alone once the batch's other requests finish.
import { describe, expect, it } from 'vitest';
import { paramCounts } from '../../src/core/model/params.js';
import { modelFacts } from '../../src/core/time/index.js';
import { estimateObjectiveTime, objectiveWork } from '../../src/core/time/objective.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags, type RawFlags } from '../../src/schema/flags.js';
import { timeOptionsFromFlags } from '../../src/schema/time.js';
import {
  LONGEST_TO_MEAN_COMPLETION,
  SHORTEST_TO_MEAN_COMPLETION,
  loneCompletionSteps,
} from '../../src/core/time/completion-length.js';

describe('loneCompletionSteps', () => {
  it('is the longest less the second longest of a log-normal batch', () => {
    // The logged batches are skewed long: further above the mean at the top than below it at the bottom.
    expect(LONGEST_TO_MEAN_COMPLETION - 1).toBeGreaterThan(1 - SHORTEST_TO_MEAN_COMPLETION);
    // 6 completions of mean 189: longest 266 (1.40x, the log-normal's largest of 6), second about 0.82 of it.
    expect(loneCompletionSteps(189, 6, 768)).toBe(48);
    // Fewer completions leave the longest further ahead; one completion is always alone.
    expect(loneCompletionSteps(189, 2)).toBeGreaterThan(loneCompletionSteps(189, 6));
    expect(loneCompletionSteps(189, 64)).toBeLessThan(loneCompletionSteps(189, 6));
    expect(loneCompletionSteps(189, 1)).toBe(0);
  });

  it('is 0 when the cap stops the two longest alike', () => {
    expect(loneCompletionSteps(183, 8, 200)).toBe(0);
  });
});

describe('a rollout engine that drops finished requests', () => {
  const arch = resolveModel('mistralai/Mistral-7B-v0.3');
  const work = (rollout: string) => {
    const f: RawFlags = {
      method: 'qlora',
      'lora-targets': 'all-linear',
      objective: 'grpo',
      generations: 6,
      batch: 6,
      'completion-tokens': 189,
      'prompt-tokens': 256,
      gpu: 'rtx-4090',
      framework: 'unsloth',
      rollout,
    };
    const o = optionsFromFlags(f);
    const t = timeOptionsFromFlags(f, o);
    const w = objectiveWork(modelFacts(arch), o, t, paramCounts(arch).total);
    const r = estimateObjectiveTime(arch, o, findGpu('rtx-4090'), t, paramCounts(arch).total);
    return { w, rollout: r.objectivePhases.rollout };
  };

  it('decodes the longest completion alone at batch 1 under vLLM, not under generate()', () => {
    const v = work('vllm-colocate');
    expect(v.w.loneSteps).toBe(48);
    expect(v.w.rolloutAlone?.decode.batch).toBe(1);
    const hf = work('hf');
    expect(hf.w.loneSteps).toBe(0);
    expect(hf.w.rolloutAlone).toBeNull();
  });
});
