// --images through the built CLI: the tower's additive fields in the contract object.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const run = (...args: string[]) => {
  const r = spawnSync(process.execPath, ['dist/cli.js', ...args], { encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
};
const json = (...args: string[]) =>
  JSON.parse(
    run('estimate', '--model', 'gemma-3-27b-it', '--gpu', 'h100-sxm', '--json', ...args).out,
  );

describe('vramplan estimate --images', () => {
  it('echoes the images, adds the tower key, phases and time, and names the tower in warnings', () => {
    const j = json('--images', '2', '--image-pixels', '500000');
    expect(j.options.images).toBe(2);
    expect(j.options.imagePixels).toBe(500000);
    expect(Number.isSafeInteger(j.perGpu.breakdown.visionActivations)).toBe(true);
    expect(j.perGpu.breakdown.visionActivations).toBeGreaterThan(0);
    expect(j.phases.map((p: { phase: string }) => p.phase)).toContain('vision-backward');
    expect(j.time.phases.map((p: { phase: string }) => p.phase)).toContain('vision-encoder');
    expect(j.warnings.join('\n')).toMatch(/vision tower: 4096 patches per image through 27 blocks/);
  });
  it('without --images the object is as before: no tower key, no images option', () => {
    const j = json();
    expect(j.perGpu.breakdown.visionActivations).toBeUndefined();
    expect(j.options.images).toBeUndefined();
  });
  it('more images never lower the bytes or the step time', () => {
    const one = json('--images', '1');
    const four = json('--images', '4');
    expect(four.perGpu.deviceBytes).toBeGreaterThan(one.perGpu.deviceBytes);
    expect(four.time.stepSeconds).toBeGreaterThan(one.time.stepSeconds);
  });
});
