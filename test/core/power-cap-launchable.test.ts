// Power caps are planned only where the launch folder sets them (nvidia-smi -pl, NVIDIA GPUs): an owned AMD or Apple
// GPU is planned at its full power, an owned NVIDIA GPU at each of the scenario's levels.
import { afterAll, describe, expect, it } from 'vitest';
import { capsPower } from '../../src/core/launch/power.js';
import { runCli, scratchDir } from '../helpers/run-cli.js';

const scratch = scratchDir('vramplan-powercap-');
afterAll(() => scratch.remove());

const idsOn = (gpu: string): string[] => {
  const text = [
    'name: caps',
    'model: qwen2.5-7b',
    'job: { kind: inference, context: 4096, promptTokens: 2048, concurrency: 8, outputTokens: 10000000 }',
    `hardware: { owned: [{ gpu: ${gpu}, count: 1 }], counts: { min: 1, max: 1 } }`,
    'power: { powerLimits: [1, 0.85, 0.7] }',
    '',
  ].join('\n');
  const r = runCli(['plan', scratch.file(`${gpu}.yaml`, text), '--json', '--top', '40']);
  expect(r.status, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { plans: { id: string }[] }).plans.map((p) => p.id);
};

describe('power caps the launch folder can set', () => {
  it('nvidia-smi caps NVIDIA GPUs only', () => {
    expect(capsPower({ vendor: 'nvidia' })).toBe(true);
    expect(capsPower({ vendor: 'amd' })).toBe(false);
    expect(capsPower({ vendor: 'apple' })).toBe(false);
  });

  it('AMD and Apple GPUs are planned at full power; an NVIDIA GPU at the scenario levels', () => {
    for (const gpu of ['rx-7900-xtx', 'apple-m4-max-128gb']) {
      const ids = idsOn(gpu);
      expect(ids.length).toBeGreaterThan(0);
      expect(ids.filter((id) => /@\d+%$/.test(id) && !id.endsWith('@100%'))).toEqual([]);
    }
    expect(idsOn('rtx-4090').some((id) => /@(85|70)%$/.test(id))).toBe(true);
  });
});
