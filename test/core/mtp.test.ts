// multi-token-prediction layers are stored in the checkpoint but not loaded for training or plain
// serving; they change the checkpoint's total (params.checkpoint) and nothing else.
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { archFromHfConfig, paramCounts, type Arch } from '../../src/core/model/index.js';
import { buildEstimate, type EstimateResult } from '../../src/core/estimate.js';
import { hostRamOfOptions } from '../../src/core/memory/host-ram.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { renderEstimateText } from '../../src/ui/estimate-text.js';
import { defaultOptions, type EstimateOptions, type Method } from '../../src/schema/estimate.js';

type Config = Record<string, unknown>;
const read = (path: string): Config =>
  JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8')) as Config;
const catalog = (id: string): Config =>
  (read(`../../catalogs/models/${id}.json`) as { config: Config }).config;

/** A config with n MTP layers, under the key its family uses. */
type WithMtp = (n: number) => Config;
const topLevel =
  (config: Config): WithMtp =>
  (n) => ({ ...config, num_nextn_predict_layers: n });
const qwen35 =
  (config: Config): WithMtp =>
  (n) => ({
    ...config,
    text_config: { ...(config.text_config as Config), mtp_num_hidden_layers: n },
  });

const MODELS: [string, WithMtp][] = [
  ['glm-4.5-air (glm4_moe)', topLevel(catalog('glm-4.5-air'))],
  ['glm-4.7-flash (glm4_moe_lite)', topLevel(catalog('glm-4.7-flash'))],
  ['qwen3.5-27b (qwen3_5)', qwen35(catalog('qwen3.5-27b'))],
  [
    'nemotron-3-super shape (nemotron_h)',
    topLevel(read('../fixtures/models/families/nemotron-3-super-shape.json')),
  ],
];
const arch = (c: Config): Arch => archFromHfConfig(c, { id: 'm', hfId: null });
const h100 = findGpu('h100-sxm');

const options = (method: Method, batch: number, seq: number): EstimateOptions =>
  method === 'inference'
    ? { ...defaultOptions('inference'), batch, seq }
    : { ...defaultOptions(method), batch, seq, gpus: 8, zero: 3 };

/** Everything but the checkpoint figure. */
const withoutCheckpoint = (r: EstimateResult): EstimateResult => {
  const { checkpoint: _, ...params } = r.params;
  return { ...r, params };
};

describe('MTP layers: only the checkpoint total', () => {
  it.each(MODELS)('%s: never change memory, step time, parameters or host RAM', (_, withMtp) => {
    const base = arch(withMtp(0));
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 3 }),
        fc.constantFrom<Method>('full', 'lora', 'qlora', 'inference'),
        fc.integer({ min: 1, max: 4 }),
        fc.constantFrom(512, 2048, 8192),
        (n, method, batch, seq) => {
          const withLayers = arch(withMtp(n));
          const o = options(method, batch, seq);
          const a = buildEstimate(base, o, h100);
          const b = buildEstimate(withLayers, o, h100);
          expect(withoutCheckpoint(b)).toEqual(withoutCheckpoint(a));
          expect(b.time?.stepSeconds).toBeGreaterThan(0);
          expect(hostRamOfOptions(withLayers, o, b.params.total, b.hostBytesPerGpu)).toEqual(
            hostRamOfOptions(base, o, a.params.total, a.hostBytesPerGpu),
          );
          // The checkpoint grows by n identical layers.
          const one = paramCounts(arch(withMtp(1))).mtp;
          expect(a.params.checkpoint).toBeUndefined();
          expect(b.params.checkpoint).toEqual({
            total: a.params.total + n * one,
            mtpLayers: n,
            mtpParams: n * one,
          });
        },
      ),
      { numRuns: 8 },
    );
  });
});

describe('DeepSeek-V3: 671B + the MTP module', () => {
  const v3 = arch(catalog('deepseek-v3'));
  it('reads its MTP layer as GLM-4.5 does: the headline 671,026,419,200, the Hub total 684,489,845,504', () => {
    const p = paramCounts(v3);
    expect(v3.mtpLayers).toBe(1);
    expect(p.total).toBe(671_026_419_200);
    expect(p.checkpoint).toBe(684_489_845_504);
  });

  it('the estimate text names the MTP layer and its size', () => {
    const text = renderEstimateText(buildEstimate(v3, defaultOptions('inference')));
    expect(text).toContain(
      'checkpoint also stores 1 MTP layer: 13.46B (not loaded for training or plain serving; 684.49B in its files)',
    );
    const plain = arch({ ...catalog('deepseek-v3'), num_nextn_predict_layers: 0 });
    expect(renderEstimateText(buildEstimate(plain, defaultOptions('inference')))).not.toContain(
      'MTP',
    );
  });
});
