// nvidia-smi detection: a fake executable stands in for the driver; absence or failure yields [].
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { detectGpus } from '../../src/io/detect.js';
import { loadGpus } from '../../src/io/load-catalog.js';

const fixture = fileURLToPath(new URL('../fixtures/nvidia-smi/4x-rtx-3090.csv', import.meta.url));
const fakeSmi = (script: string) => ({ command: process.execPath, args: ['-e', script] });

describe('detectGpus', () => {
  it('parses what the command prints and matches catalog ids', async () => {
    const found = await detectGpus({
      gpus: loadGpus(),
      ...fakeSmi(
        `process.stdout.write(require('fs').readFileSync(${JSON.stringify(fixture)}, 'utf8'))`,
      ),
    });
    expect(found.map((g) => [g.index, g.gpuId, g.powerLimitW])).toEqual([
      [0, 'rtx-3090', 350],
      [1, 'rtx-3090', 280],
      [2, 'rtx-3090', 280],
      [3, 'rtx-3090', 280],
    ]);
  });

  it('returns [] when nvidia-smi is absent', async () => {
    expect(await detectGpus({ command: 'vramplan-no-such-nvidia-smi' })).toEqual([]);
  });

  it('returns [] when nvidia-smi fails or hangs', async () => {
    expect(await detectGpus(fakeSmi('process.exit(9)'))).toEqual([]);
    expect(await detectGpus({ ...fakeSmi('setTimeout(() => {}, 10000)'), timeoutMs: 200 })).toEqual(
      [],
    );
  });
});
