// the vision tower's own activations and FLOPs (core/model/vision.ts, memory/vision.ts, time/vision.ts).
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { archFromHfConfig, towerRun, visionTokens, type Arch } from '../../src/core/model/index.js';
import { buildEstimate, type EstimateResult } from '../../src/core/estimate.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { defaultOptions, type EstimateOptions, type Method } from '../../src/schema/estimate.js';
import type { Checkpointing } from '../../src/schema/estimate.js';

const meta = { id: 'x', hfId: null };
const catalog = (id: string): Arch =>
  archFromHfConfig(
    (
      JSON.parse(
        readFileSync(new URL(`../../catalogs/models/${id}.json`, import.meta.url), 'utf8'),
      ) as { config: Record<string, unknown> }
    ).config,
    meta,
  );

// Qwen/Qwen2.5-VL-7B-Instruct config.json (language fields at the top level, as published).
const QWEN25_VL_7B = {
  architectures: ['Qwen2_5_VLForConditionalGeneration'],
  model_type: 'qwen2_5_vl',
  hidden_size: 3584,
  intermediate_size: 18944,
  num_attention_heads: 28,
  num_hidden_layers: 28,
  num_key_value_heads: 4,
  vocab_size: 152064,
  max_position_embeddings: 128000,
  rms_norm_eps: 1e-6,
  rope_theta: 1000000.0,
  tie_word_embeddings: false,
  torch_dtype: 'bfloat16',
  hidden_act: 'silu',
  vision_config: {
    depth: 32,
    hidden_act: 'silu',
    hidden_size: 1280,
    intermediate_size: 3420,
    num_heads: 16,
    in_chans: 3,
    out_hidden_size: 3584,
    patch_size: 14,
    spatial_merge_size: 2,
    spatial_patch_size: 14,
    window_size: 112,
    fullatt_block_indexes: [7, 15, 23, 31],
    tokens_per_second: 2,
    temporal_patch_size: 2,
  },
};
const qwen25 = archFromHfConfig(QWEN25_VL_7B, meta);
const gemma = catalog('gemma-3-27b-it');
const llama4 = catalog('llama-4-scout-17b-16e');
const qwen35 = catalog('qwen3.5-27b');
const h100 = findGpu('h100-sxm');

/** What `vramplan estimate --images n [--image-pixels px]` does to the options (commands/estimate-run.ts). */
function withImages(arch: Arch, o: EstimateOptions, images: number, pixels?: number) {
  if (images === 0) return o;
  const v = visionTokens(arch, images, pixels)!;
  return {
    ...o,
    seq: o.seq + v.tokens,
    images,
    ...(pixels === undefined ? {} : { imagePixels: pixels }),
  };
}
const train = (method: Method, checkpointing: Checkpointing = 'none'): EstimateOptions => ({
  ...defaultOptions(method),
  seq: 512,
  checkpointing,
  attention: 'flash',
});
const run = (arch: Arch, o: EstimateOptions): EstimateResult => buildEstimate(arch, o, h100);
/** What the tower keeps for backward (its bytes at the end of the forward). */
const towerSaved = (r: EstimateResult): number =>
  r.phases.find((p) => p.phase === 'forward')?.parts.visionActivations ?? 0;
/** The tower's largest bytes in any phase. */
const towerPeak = (r: EstimateResult): number =>
  Math.max(0, ...r.phases.map((p) => p.parts.visionActivations ?? 0));
const towerSeconds = (r: EstimateResult): number =>
  r.time?.phases.find((p) => p.phase === 'vision-encoder')?.seconds ?? 0;

describe('patches the tower runs per image (before merging or pooling)', () => {
  it('Qwen2.5-VL: merge^2 patches per token; window layers attend over 64 patches, 4 layers over the image', () => {
    const r = towerRun(qwen25, 1, 1280 * 28 * 28)!;
    expect(r.tokensPerImage).toBe(1280);
    expect(r.patchesPerImage).toBe(5120);
    expect(r.spans).toEqual([
      { layers: 4, span: 5120 },
      { layers: 28, span: 64 },
    ]);
  });
  it('Gemma 3: SigLIP runs its 4096 positions whatever the image size, pooled to 256 tokens', () => {
    for (const px of [224 * 224, 896 * 896, 4000 * 3000]) {
      const r = towerRun(gemma, 1, px)!;
      expect(r.patchesPerImage).toBe(4096);
      expect(r.tokensPerImage).toBe(256);
      expect(r.spans).toEqual([{ layers: 27, span: 4096 }]);
    }
  });
  it('Llama 4: a tile of 24 x 24 patches and its class token, each tile its own sequence', () => {
    expect(towerRun(llama4, 1)!.patchesPerImage).toBe(577);
    const two = towerRun(llama4, 1, 2 * 336 * 336)!;
    expect(two.patchesPerImage).toBe(2 * 577);
    expect(two.spans).toEqual([{ layers: 34, span: 577 }]);
  });
  it('FLOPs per image: 2 per tower weight per patch, plus attention over each span', () => {
    const r = towerRun(gemma, 1)!;
    const linear = r.group.linears.reduce((a, l) => a + l.inFeatures * l.outFeatures, 0);
    const gemm = 2 * r.group.count * linear * r.patchesPerImage;
    const attn = 4 * r.group.count * 4096 * 4096 * r.group.heads * r.group.headDim;
    expect(r.attnFlopsPerImage).toBe(attn);
    expect(r.flopsPerImage).toBeGreaterThan(gemm + attn);
    expect(r.flopsPerImage).toBeLessThan(1.05 * (gemm + attn));
  });
  it('nothing without images or without a tower description', () => {
    expect(towerRun(gemma, 0)).toBeNull();
    expect(towerRun(catalog('llama-3.2-11b-vision'), 1)).toBeNull();
  });
});

describe('estimate --images: the tower in memory and time (additive fields)', () => {
  it('without images: no visionActivations key and no vision phase', () => {
    const r = run(gemma, train('lora'));
    expect(r.perGpu.breakdown.visionActivations).toBeUndefined();
    expect(r.phases.some((p) => p.phase.startsWith('vision'))).toBe(false);
    expect(r.time!.phases.some((p) => p.phase.startsWith('vision'))).toBe(false);
  });
  it('with images: the contract keys stay, the tower has its key and phases, bytes add up', () => {
    const r = run(gemma, withImages(gemma, train('full'), 2));
    const b = r.perGpu.breakdown;
    for (const k of ['weights', 'gradients', 'optimizer', 'activations', 'kvCache', 'overhead'])
      expect(b).toHaveProperty(k);
    expect(b.visionActivations).toBeGreaterThan(0);
    const sum = Object.values(b).reduce((a, x) => a + x, 0);
    expect(sum).toBe(r.perGpu.deviceBytes);
    expect(r.phases.map((p) => p.phase)).toEqual([
      'load',
      'vision-encoder',
      'forward',
      'backward',
      'backward-layer',
      'vision-backward',
      'backward-end',
      'optimizer-step',
    ]);
    expect(towerSeconds(r)).toBeGreaterThan(0);
  });
  it('a trained SigLIP tower keeps every block over 2 x 4096 patches; checkpointed only each input', () => {
    const o = withImages(gemma, train('full'), 2);
    const ckpt = towerSaved(run(gemma, { ...o, checkpointing: 'full' }));
    // 27 blocks x 8192 patches x 1152 wide x 2 bytes (bf16 residual stream).
    expect(ckpt).toBe(27 * 8192 * 1152 * 2);
    expect(towerSaved(run(gemma, o))).toBeGreaterThan(10 * ckpt);
  });
  it('a frozen tower keeps nothing: LoRA on q,v leaves Qwen fused qkv untouched (PEFT names)', () => {
    const o = withImages(qwen25, train('lora'), 2);
    expect(towerSaved(run(qwen25, o))).toBe(0);
    // all-linear takes the tower's linears too.
    const all = {
      ...o,
      loraAllLinear: true,
      loraTargets: ['q', 'k', 'v', 'o', 'gate', 'up', 'down'],
    };
    expect(towerSaved(run(qwen25, all as EstimateOptions))).toBeGreaterThan(0);
  });
  it('LoRA under gradient checkpointing: the SigLIP patch embedding hook makes a frozen tower keep its inputs', () => {
    const o = withImages(gemma, { ...train('lora', 'full'), loraTargets: ['gate'] }, 1);
    expect(towerSaved(run(gemma, o))).toBe(27 * 4096 * 1152 * 2);
    // The same without checkpointing: no hook, nothing kept.
    expect(towerSaved(run(gemma, { ...o, checkpointing: 'none' }))).toBe(0);
  });
  it('DPO: the tower time is in the step as well as in its phases', () => {
    const o: EstimateOptions = { ...train('lora'), objective: 'dpo', reference: 'model' };
    const plain = run(gemma, o);
    const img = run(gemma, withImages(gemma, o, 2));
    expect(towerSeconds(img)).toBeGreaterThan(0);
    const policy = (r: EstimateResult) =>
      r.time!.phases.find((p) => p.phase === 'policy-training')!.seconds;
    expect(img.time!.stepSeconds).toBeGreaterThanOrEqual(
      plain.time!.stepSeconds + (policy(img) - policy(plain)) + towerSeconds(img) - 1e-3,
    );
  });
  it('inference: the tower runs before the prefill, in the TTFT', () => {
    const o = { ...defaultOptions('inference'), seq: 1024 };
    const plain = run(qwen35, o);
    const img = run(qwen35, withImages(qwen35, o, 1));
    const phase = img.phases.find((p) => p.phase === 'vision-encoder');
    expect(phase?.parts.visionActivations).toBeGreaterThan(0);
    expect(img.time!.ttftSeconds!).toBeGreaterThan(
      plain.time!.ttftSeconds! + towerSeconds(img) / 2,
    );
  });
});

const VLMS: [string, Arch][] = [
  ['gemma-3-27b-it', gemma],
  ['qwen2.5-vl-7b', qwen25],
  ['qwen3.5-27b', qwen35],
  ['llama-4-scout', llama4],
];
const methods = fc.constantFrom<Method>('full', 'lora', 'qlora', 'inference');
const ckpts = fc.constantFrom<Checkpointing>('none', 'selective', 'full', 'offload');
const options = (method: Method, checkpointing: Checkpointing): EstimateOptions =>
  method === 'inference'
    ? { ...defaultOptions('inference'), seq: 512 }
    : { ...train(method, checkpointing), loraAllLinear: method !== 'full' };

describe('properties', () => {
  it.each(VLMS)('%s: more images or more pixels never lower memory or time', (_, arch) => {
    fc.assert(
      fc.property(
        methods,
        ckpts,
        fc.integer({ min: 0, max: 4 }),
        fc.integer({ min: 200_000, max: 3_000_000 }),
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 1, max: 2_000_000 }),
        (method, ck, n, px, more, morePx) => {
          const o = options(method, ck);
          const a = run(arch, withImages(arch, o, n, px));
          const b = run(arch, withImages(arch, o, n + more, px));
          const c = run(arch, withImages(arch, o, n, px + morePx));
          for (const x of [b, c]) {
            expect(x.perGpu.allocatedBytes).toBeGreaterThanOrEqual(a.perGpu.allocatedBytes);
            expect(x.time!.stepSeconds).toBeGreaterThanOrEqual(a.time!.stepSeconds);
            // The tower's own share, not only the longer language sequence.
            expect(towerSeconds(x)).toBeGreaterThanOrEqual(towerSeconds(a));
            expect(towerPeak(x)).toBeGreaterThanOrEqual(towerPeak(a));
            if (method === 'inference')
              expect(x.time!.ttftSeconds!).toBeGreaterThanOrEqual(a.time!.ttftSeconds!);
          }
        },
      ),
      { numRuns: 25 },
    );
  });
  it.each(VLMS)(
    '%s: checkpointing never raises the tower activations; frozen <= trained',
    (_, arch) => {
      fc.assert(
        fc.property(
          fc.constantFrom<Method>('lora', 'qlora'),
          ckpts,
          fc.integer({ min: 1, max: 4 }),
          (method, ck, n) => {
            const none = towerSaved(run(arch, withImages(arch, options(method, 'none'), n)));
            const some = run(arch, withImages(arch, options(method, ck), n));
            expect(towerSaved(some)).toBeLessThanOrEqual(none);
            const full = run(arch, withImages(arch, options('full', ck), n));
            const frozen = run(
              arch,
              withImages(arch, { ...options(method, ck), loraAllLinear: false }, n),
            );
            expect(towerSaved(frozen)).toBeLessThanOrEqual(towerSaved(full));
            expect(towerSeconds(frozen)).toBeLessThanOrEqual(towerSeconds(full));
          },
        ),
        { numRuns: 20 },
      );
    },
  );
});
