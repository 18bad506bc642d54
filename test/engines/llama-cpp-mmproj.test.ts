// llama.cpp keeps a multimodal checkpoint's vision tower in a GGUF of its own (the mmproj, --mmproj): the text GGUF
// holds the language model alone, -ngl counts its layers, and the tower is loaded (whole, on the GPU, 16-bit
// matrices) only when images are served, one image a graph.
import { describe, expect, it } from 'vitest';
import { buildEstimate, type EstimateResult } from '../../src/core/estimate.js';
import { withEngineDefaults } from '../../src/core/engines/defaults.js';
import { ENGINE_PROFILES } from '../../src/core/engines/engines.js';
import { forbiddenBy } from '../../src/core/engines/rules.js';
import { mmprojArgs } from '../../src/core/engines/llama-cpp/launch.js';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { loadedLayers } from '../../src/core/memory/setup.js';
import { visionFileBytes } from '../../src/core/memory/vision-file.js';
import { visionTokens } from '../../src/core/model/vision.js';
import type { Arch } from '../../src/core/model/arch.js';
import { plan } from '../../src/core/plan/index.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { parseScenario } from '../../src/io/load-scenario.js';
import { planInputOf } from '../../src/io/plan-scenario.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { serveShOf } from '../helpers/launch.js';
import { readBack } from '../serving/serve-line.js';

const rtx = findGpu('rtx-4090');
const scout = resolveModel('llama-4-scout-17b-16e');
const gemma = resolveModel('gemma-3-27b-it');
const fw = FRAMEWORKS['llama.cpp'];
const file = fw.visionFile!;
const towerParams = (a: Arch) => {
  const g = a.groups.find((x) => x.name === 'vision')!;
  return (
    g.count *
      (g.linears.reduce((s, l) => s + l.inFeatures * l.outFeatures, 0) + g.otherParamsPerLayer) +
    (a.vision!.params ?? 0)
  );
};

/** An estimate as `estimate --framework llama.cpp --weights q4_k_m ... [--images N]` makes it. */
function estimate(arch: Arch, flags: Record<string, unknown>, images = 0): EstimateResult {
  const all = {
    method: 'inference',
    framework: 'llama.cpp',
    weights: 'q4_k_m',
    seq: 8192,
    ...flags,
  };
  const o = withEngineDefaults(optionsFromFlags(all), all);
  if (images > 0) {
    // estimate-run.ts imagesInto: the images' tokens join the sequence, the tower reads the count.
    o.seq += visionTokens(arch, images)!.tokens;
    o.images = images;
  }
  return buildEstimate(arch, o, rtx);
}
const weights = (e: EstimateResult) =>
  e.perGpu.breakdown.weights + e.perGpu.breakdown.quantConstants;

const SCOUT_24GB = `
name: Llama-4-Scout Q4_K_M on one RTX 4090
model: llama-4-scout-17b-16e
job: { kind: inference, context: 8192, promptTokens: 4096, concurrency: 1, outputTokens: 100000000 }
hardware: { owned: [{ gpu: rtx-4090, count: 1 }], counts: { min: 1, max: 1 }, hostRamGiB: 128 }
search: { engines: [llama.cpp], weights: [q4_k_m] }
`;

describe('llama.cpp: the vision tower is an mmproj GGUF of its own', () => {
  it('-ngl counts the text layers: the layer split is taken over them, the output layer past them', () => {
    expect(loadedLayers(scout, fw)).toBe(48); // 36 + 12 decoder layers; the 34 tower blocks are no layer of it
    expect(loadedLayers(gemma, fw)).toBe(62);
    const all = weights(estimate(scout, {}));
    const text = weights(estimate(scout, { 'gpu-layers': 48 }));
    const half = weights(estimate(scout, { 'gpu-layers': 24 }));
    // -ngl 48 holds every text layer, all but the output layer (a split over the tower's 34 blocks too would
    // hold 48/82 of them); -ngl 49 is everything (the default); -ngl 24 half the text layers.
    expect(text).toBeLessThan(all);
    expect(text / all).toBeGreaterThan(0.97);
    expect(weights(estimate(scout, { 'gpu-layers': 49 }))).toBe(all);
    expect(half / text).toBeCloseTo(0.5, 6);
  });

  it('counts the text GGUF alone without images: the tower is neither in weights nor in the split', () => {
    // The language model as convert_hf_to_gguf.py writes it: no tower blocks, no embeddings or projector of theirs.
    const languageModel = (a: Arch): Arch => ({
      ...a,
      groups: a.groups.filter((g) => g.name !== 'vision'),
      otherParams: a.otherParams - (a.vision!.params ?? 0),
      vision: undefined,
      outerLinears: undefined,
    });
    for (const a of [scout, gemma]) {
      const e = estimate(a, {});
      expect(weights(e)).toBe(weights(estimate(languageModel(a), {})));
      expect(e.phases.some((p) => p.phase === 'vision-encoder')).toBe(false);
    }
    // Llama-4-Scout's tower: 0.87B parameters (0.5 GB at Q4_K_M's 4.89 bits, no longer in weights).
    expect(towerParams(scout)).toBeGreaterThan(0.85e9);
  });

  it('loads the tower with images: its f16 file on the GPU, outside -ngl, one image a graph', () => {
    const text = estimate(gemma, {});
    const one = estimate(gemma, {}, 1);
    // The mmproj: 16-bit matrices, fp32 norms and biases (convert_hf_to_gguf.py MmprojModel, --outtype f16).
    const mmproj = visionFileBytes(gemma, file);
    expect(mmproj / towerParams(gemma)).toBeGreaterThan(2);
    expect(mmproj / towerParams(gemma)).toBeLessThan(2.01);
    expect(weights(one) - weights(text)).toBeCloseTo(mmproj, -3);
    // Whole on the GPU whatever -ngl says: the text layers split, the tower does not.
    const partText = estimate(gemma, { 'gpu-layers': 31 });
    const partImages = estimate(gemma, { 'gpu-layers': 31 }, 1);
    expect(weights(partImages) - weights(partText)).toBeCloseTo(mmproj, -3);
    // The tower encodes before the prefill: its activations are one image's, whatever the slots and images.
    const encoder = (e: EstimateResult) =>
      e.phases.find((p) => p.phase === 'vision-encoder')!.parts.visionActivations!;
    expect(encoder(one)).toBeGreaterThan(0);
    expect(encoder(estimate(gemma, { batch: 4 }, 3))).toBe(encoder(one));
  });

  it('plans Llama-4-Scout Q4_K_M on one 24 GB card with part of its text layers on the GPU', () => {
    const f = '/tmp/llama-cpp-mmproj-scout.yaml';
    const r = plan({ ...planInputOf(f, parseScenario(f, SCOUT_24GB)), top: 40 });
    // First: every text layer on the GPU and the experts of the first layers on the host (--n-cpu-moe), which
    // reads fewer host bytes a token than whole layers there.
    const first = r.plans[0]!.options;
    expect(first.cpuMoeLayers).toBeGreaterThan(0);
    expect(first.gpuLayers).toBeUndefined();
    const best = r.plans.find((p) => p.options.gpuLayers !== undefined)!;
    expect(best.options.framework).toBe('llama.cpp');
    expect(best.options.gpuLayers).toBeGreaterThan(0);
    expect(best.options.gpuLayers).toBeLessThan(48);
    // No partial split is refused for the tower any more.
    expect(
      forbiddenBy(ENGINE_PROFILES['llama.cpp'].rules, {
        arch: scout,
        options: best.options,
        dp: 1,
        accum: 1,
      }),
    ).toBeNull();
    // serve.sh writes the plan's -ngl, and no mmproj: no images are planned.
    const sh = serveShOf(scout, best.options, rtx, buildEstimate(scout, best.options, rtx));
    expect(sh).toContain(`-ngl ${best.options.gpuLayers} `);
    expect(sh).not.toContain('mmproj');
    expect(readBack(sh).flags['gpu-layers']).toBe(best.options.gpuLayers);
  });

  it('serve.sh writes --mmproj only where images are planned', () => {
    // A GGUF made locally (no published Q4_K_M of gemma-3-12b-it, catalogs/checkpoints.json): llama-server -m.
    const made = resolveModel('gemma-3-12b-it');
    const text = estimate(made, {});
    const one = estimate(made, {}, 1);
    const plain = serveShOf(made, text.options, rtx, text);
    const images = serveShOf(made, one.options, rtx, one);
    expect(plain).not.toContain('mmproj');
    expect(images).toContain('--mmproj "$MMPROJ"');
    expect(images).toContain(
      'convert_hf_to_gguf.py base --mmproj --outfile mmproj-model-f16.gguf --outtype f16',
    );
    expect(readBack(images).warnings.join(' ')).toContain('--mmproj');
    // From a -hf repository llama-server fetches and loads the repository's mmproj itself unless told not to.
    const x = { arch: gemma, options: text.options } as Parameters<typeof mmprojArgs>[0];
    expect(mmprojArgs(x, true)).toEqual(['--no-mmproj']);
    expect(mmprojArgs({ ...x, options: one.options }, true)).toEqual([]);
    expect(mmprojArgs({ ...x, arch: resolveModel('llama-3.1-8b') }, true)).toEqual([]);
  });
});
