// explain: a fix whose micro-batch x data-parallel ranks do not divide the given samples per step says it runs
// (and is timed at) the next larger global batch.
import { describe, expect, it } from 'vitest';
import { explainFit } from '../../src/core/plan/index.js';
import { defaultTimeOptions } from '../../src/core/time/index.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { fixLine } from '../../src/ui/explain-text.js';

const options = optionsFromFlags({ method: 'full', batch: '3' });
const e = explainFit(resolveModel('llama-3.1-8b'), options, findGpu('rtx-4090'), {
  ...defaultTimeOptions(options.gpus),
  gradAccum: 2,
});
const dp = (f: (typeof e.fixes)[number]) =>
  f.options.gpus / (f.options.tp * f.options.pp * f.options.cp);

describe('explain: rounded global batches of fixes', () => {
  it('marks the fixes that run more than the 6 samples per step given, and only those', () => {
    expect(e.fixes.length).toBeGreaterThan(0);
    const rounded = e.fixes.filter((f) => 6 % (f.options.batch * dp(f)) !== 0);
    expect(rounded.length).toBeGreaterThan(0);
    for (const f of e.fixes) {
      if (rounded.includes(f)) {
        const runs = f.options.batch * dp(f) * Math.ceil(6 / (f.options.batch * dp(f)));
        expect(f.globalBatch).toEqual({ runs, given: 6 });
        expect(fixLine(f)).toContain(`global batch ${runs}, rounded up from 6`);
      } else {
        expect(f.globalBatch).toBeUndefined();
        expect(fixLine(f)).not.toContain('rounded up');
      }
    }
  });
});
