// Power caps are planned only where the launch folder sets them (nvidia-smi -pl on NVIDIA GPUs, amd-smi set -o on
// AMD Instinct GPUs): an owned Radeon or Apple GPU is planned at its full power, an owned NVIDIA or Instinct GPU at
// each of the scenario's levels, and its folder's power-limit.sh sets the cap.
import { afterAll, describe, expect, it } from 'vitest';
import { buildLaunch } from '../../src/core/launch/index.js';
import { capsPower, POWER_FILE } from '../../src/core/launch/power.js';
import { launchInputOf } from '../helpers/launch.js';
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
  it('nvidia-smi caps NVIDIA GPUs, amd-smi AMD Instinct GPUs', () => {
    expect(capsPower({ vendor: 'nvidia', category: 'consumer' })).toBe(true);
    expect(capsPower({ vendor: 'amd', category: 'datacenter' })).toBe(true);
    expect(capsPower({ vendor: 'amd', category: 'consumer' })).toBe(false);
    expect(capsPower({ vendor: 'apple', category: 'apple' })).toBe(false);
  });

  it('Radeon and Apple GPUs are planned at full power; NVIDIA and Instinct GPUs at the scenario levels', () => {
    for (const gpu of ['rx-7900-xtx', 'apple-m4-max-128gb']) {
      const ids = idsOn(gpu);
      expect(ids.length).toBeGreaterThan(0);
      expect(ids.filter((id) => /@\d+%$/.test(id) && !id.endsWith('@100%'))).toEqual([]);
    }
    expect(idsOn('rtx-4090').some((id) => /@(85|70)%$/.test(id))).toBe(true);
    expect(idsOn('mi300x').some((id) => /@(85|70)%$/.test(id))).toBe(true);
  });

  it("an MI300X plan's power-limit.sh caps each GPU with amd-smi in watts; an H100's with nvidia-smi", () => {
    const script = (gpu: string) => {
      const x = launchInputOf('llama-3.1-8b', gpu, {
        method: 'lora',
        batch: 1,
        seq: 2048,
        gpus: 2,
      });
      const b = buildLaunch({ ...x, powerLimitW: 525 });
      return String(
        b.outputs.flatMap((o) => (o.ok ? o.files : [])).find((f) => f.path === POWER_FILE)?.content,
      );
    };
    const amd = script('mi300x');
    expect(amd).toMatch(/^sudo amd-smi set -g 0 -o 525$/m);
    expect(amd).toMatch(/^sudo amd-smi set -g 1 -o 525$/m);
    expect(amd).not.toMatch(/nvidia-smi/);
    expect(script('h100-sxm')).toMatch(/^sudo nvidia-smi -i 1 -pl 525$/m);
  });
});
