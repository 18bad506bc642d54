// `launch`'s flag form takes `estimate`'s --images N / --image-pixels P: the images' tokens join the served context,
// the README's estimate counts the vision tower, and llama.cpp's serve.sh loads the tower's own GGUF (--mmproj).
import { describe, expect, it } from 'vitest';
import { buildEstimate } from '../../src/core/estimate.js';
import {
  launchFolder,
  launchInputFromFlags,
  type LaunchFlags,
} from '../../src/commands/launch-run.js';
import { visionTokens } from '../../src/core/model/vision.js';
import { resolveModel } from '../../src/io/load-model.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { cliBuilt, runCli } from '../helpers/run-cli.js';

const lf: LaunchFlags = {
  gradAccum: undefined,
  powerLimit: undefined,
  sharding: undefined,
  out: 'unused',
  force: false,
};
const flags = (extra: Record<string, string> = {}) => ({
  model: 'gemma-3-27b-it',
  method: 'inference',
  framework: 'llama.cpp',
  weights: 'q4_k_m',
  gpu: 'rtx-4090',
  seq: '8192',
  ...extra,
});
const launched = (extra: Record<string, string> = {}) =>
  launchInputFromFlags('gemma-3-27b-it', flags(extra), lf);
const serveSh = (extra: Record<string, string> = {}) =>
  launchFolder(launched(extra)).files.find((f) => f.path === 'serve.sh')!.content;

describe('launch --images on a multimodal model', () => {
  const gemma = resolveModel('gemma-3-27b-it');

  it('adds the image tokens to the context and the tower to the estimate, as estimate --images does', () => {
    const x = launched({ images: '2' });
    expect(x.options.images).toBe(2);
    expect(x.options.seq).toBe(8192 + visionTokens(gemma, 2)!.tokens);
    const text = launched();
    expect(text.options.images).toBeUndefined();
    expect(x.estimate.perGpu.deviceBytes).toBeGreaterThan(text.estimate.perGpu.deviceBytes);
    expect(x.estimate.perGpu.deviceBytes).toBe(
      buildEstimate(gemma, x.options, findGpu('rtx-4090')).perGpu.deviceBytes,
    );
  });

  it("writes llama-server's --mmproj with the tower's GGUF only when images are served", () => {
    // Q5_K_M: a GGUF made locally (no published one of gemma-3-27b-it, catalogs/checkpoints.json), so -m and --mmproj.
    const withImages = serveSh({ images: '1', weights: 'q5_k_m' });
    expect(withImages).toMatch(/--mmproj "\$MMPROJ"/);
    expect(withImages).toMatch(/convert_hf_to_gguf\.py base --mmproj/);
    expect(serveSh({ weights: 'q5_k_m' })).not.toMatch(/--mmproj/);
  });

  it('--image-pixels alone is refused, naming the flag', () => {
    expect(() => launched({ 'image-pixels': '1000000' })).toThrow(/image-pixels/);
  });

  it('is listed in launch --help', () => {
    expect(cliBuilt()).toBe(true);
    const help = runCli(['launch', '--help']).stdout;
    expect(help).toMatch(/--images <n>/);
    expect(help).toMatch(/--image-pixels <pixels>/);
  });
});

describe('the README of launch --images', () => {
  const readme = (extra: Record<string, string> = {}) =>
    launchFolder(launched(extra)).files.find((f) => f.path === 'README.md')!.content;

  it('lists the flags it was built with beside the context they inflate', () => {
    const tokens = visionTokens(resolveModel('gemma-3-27b-it'), 2, 1_000_000)!.tokens;
    const text = readme({ images: '2', 'image-pixels': '1000000' });
    expect(text).toContain(`| sequences at once x context | 1 x ${8192 + tokens} tokens |`);
    expect(text).toMatch(
      /\| images \| 2 a sequence at 1,000,000 pixels \(`--images 2 --image-pixels 1000000`\): 512 of its 8,704 tokens \(256 an image\)/,
    );
    expect(readme({ images: '1' })).toMatch(
      /\| images \| 1 a sequence at [\d,]+ pixels \(`--images 1`\)/,
    );
    expect(readme()).not.toMatch(/\| images \|/);
  });
});
