// An NVL72 rack (GB200) joins its GPUs through NVLink switches, like an SXM board: a TP group of 3+ of its GPUs
// reduces over NVLink, not over the host link that a bridged pair's third card would cross.
import { describe, expect, it } from 'vitest';
import '../../src/core/engines/registry.js';
import { estimateTime } from '../../src/core/time/index.js';
import { gpuRates, nvSwitched } from '../../src/core/time/hardware.js';
import { resolveModel } from '../../src/io/load-model.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { defaultOptions, type EstimateOptions } from '../../src/schema/estimate.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

const infer = (o: Partial<EstimateOptions>): EstimateOptions => ({
  ...defaultOptions('inference'),
  framework: 'sglang',
  weights: 'nvfp4',
  seq: 2000,
  promptTokens: 1000,
  ...o,
});
const tpSeconds = (r: ReturnType<typeof estimateTime>) =>
  r.phases.find((x) => x.phase === 'tensor-parallel')?.seconds ?? 0;

describe('NVL72 racks are NVLink-switched', () => {
  it('GB200 is switched; a bridged-pair card (H100 NVL) and a GeForce card are not', () => {
    expect(nvSwitched(findGpu('gb200'))).toBe(true);
    expect(nvSwitched(findGpu('b200'))).toBe(true);
    expect(nvSwitched(findGpu('h100-nvl'))).toBe(false);
    expect(nvSwitched(findGpu('rtx-4090'))).toBe(false);
  });

  it('a GB200 group of 4 reduces over NVLink: the same rate as a pair, above the host link', () => {
    const r = gpuRates(findGpu('gb200'), defaultTimeOptions(4));
    expect(r.intraMany).toBe(r.intraPair);
    expect(r.intraMany).toBeGreaterThan(r.host);
  });

  it('70B TP 4 decode on GB200 spends what B200 (same NVLink 5 rate) spends on all-reduces', () => {
    const arch = resolveModel('meta-llama/Llama-3.3-70B-Instruct');
    const at = (gpu: string) =>
      tpSeconds(
        estimateTime(
          arch,
          infer({ batch: 1, gpus: 4, tp: 4 }),
          findGpu(gpu),
          defaultTimeOptions(4),
        ),
      );
    expect(at('gb200')).toBeGreaterThan(0);
    expect(at('gb200')).toBeCloseTo(at('b200'), 9);
  });
});
