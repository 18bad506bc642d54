// The width a quantized vision-language checkpoint stores its vision tower at (FrameworkProfile.floatTowerWeights).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { archFromHfConfig, type Arch } from '../../src/core/model/index.js';
import { linearWeights } from '../../src/core/model/params.js';
import { buildEstimate } from '../../src/core/estimate.js';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { defaultOptions, type EstimateOptions } from '../../src/schema/estimate.js';

const arch = archFromHfConfig(
  (
    JSON.parse(
      readFileSync(
        new URL('../../catalogs/models/qwen2.5-vl-7b-instruct.json', import.meta.url),
        'utf8',
      ),
    ) as { config: Record<string, unknown> }
  ).config,
  { id: 'x', hfId: null },
);
/** The same model without its tower (as setup.ts textOnly builds it). */
const { vision, outerLinears: _outer, ...rest } = arch;
const text: Arch = {
  ...rest,
  groups: arch.groups.filter((g) => g.name !== 'vision'),
  otherParams: arch.otherParams - (vision?.params ?? 0),
};
const tower = arch.groups.find((g) => g.name === 'vision')!;
const towerLinears = tower.linears.reduce((a, l) => a + linearWeights(l) * tower.count, 0);
const h100 = findGpu('h100-sxm');
const weights = (a: Arch, o: EstimateOptions): number =>
  Math.max(...buildEstimate(a, o, h100).phases.map((p) => p.parts.weights));
const towerWeights = (o: EstimateOptions): number => weights(arch, o) - weights(text, o);

describe('a quantized VL checkpoint stores its tower at the width its quantizer left it', () => {
  it('vLLM / SGLang int4 (AWQ / GPTQ: modules_to_not_convert ["visual"]): the tower linears at 16 bits', () => {
    for (const framework of ['vllm', 'sglang'] as const) {
      expect(FRAMEWORKS[framework].floatTowerWeights).toContain('int4');
      const o = { ...defaultOptions('inference'), framework, weights: 'int4' as const, seq: 1024 };
      expect(towerWeights(o)).toBeGreaterThanOrEqual(towerLinears * 2);
      // the tower's share of the bf16 checkpoint: the same bytes
      expect(towerWeights(o)).toBeCloseTo(towerWeights({ ...o, weights: 'bf16' }), -3);
    }
  });
  it('bitsandbytes through transformers quantizes the tower blocks with the text model', () => {
    const o = { ...defaultOptions('qlora'), framework: 'hf' as const, seq: 512 };
    expect(FRAMEWORKS.hf.floatTowerWeights).toBeUndefined();
    expect(towerWeights(o)).toBeLessThan(towerLinears);
  });
});
