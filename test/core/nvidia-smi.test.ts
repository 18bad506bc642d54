// nvidia-smi CSV parsing and name → catalog id matching, on recorded-style outputs in test/fixtures/nvidia-smi/.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  matchDetected,
  matchGpuName,
  parseNvidiaSmiCsv,
  slugOfDeviceName,
} from '../../src/core/hardware/index.js';
import { loadGpus } from '../../src/io/load-catalog.js';

const fixture = (name: string): string =>
  readFileSync(new URL(`../fixtures/nvidia-smi/${name}`, import.meta.url), 'utf8');
const gpus = loadGpus();
const detect = (name: string) => matchDetected(parseNvidiaSmiCsv(fixture(name)), gpus);

describe('parseNvidiaSmiCsv', () => {
  it('reads index, name, memory, power limit and bus id', () => {
    expect(parseNvidiaSmiCsv(fixture('1x-rtx-4090.csv'))).toEqual([
      {
        index: 0,
        name: 'NVIDIA GeForce RTX 4090',
        memoryMiB: 24564,
        powerLimitW: 450,
        pciBusId: '00000000:01:00.0',
      },
    ]);
  });

  it('keeps per-card power limits', () => {
    const rows = parseNvidiaSmiCsv(fixture('4x-rtx-3090.csv'));
    expect(rows.map((r) => r.powerLimitW)).toEqual([350, 280, 280, 280]);
    expect(rows.map((r) => r.index)).toEqual([0, 1, 2, 3]);
  });

  it('turns [N/A] into null and skips blank or malformed lines', () => {
    const rows = parseNvidiaSmiCsv(fixture('mixed-edge-cases.csv') + 'garbage line\n');
    expect(rows).toHaveLength(3);
    expect(rows[1]).toMatchObject({ name: 'NVIDIA GB10', memoryMiB: null, powerLimitW: null });
  });

  it('accepts CRLF line ends', () => {
    expect(parseNvidiaSmiCsv('0, Tesla T4, 15360, 70.00, 00000000:00:1E.0\r\n')).toHaveLength(1);
  });
});

describe('matching names to the catalog', () => {
  it('matches 1× RTX 4090', () => {
    expect(detect('1x-rtx-4090.csv').map((g) => g.gpuId)).toEqual(['rtx-4090']);
  });

  it('matches 4× RTX 3090', () => {
    expect(detect('4x-rtx-3090.csv').map((g) => g.gpuId)).toEqual(Array(4).fill('rtx-3090'));
  });

  it('matches 8× H100 80GB HBM3 to the SXM part', () => {
    const found = detect('8x-h100-80gb-hbm3.csv');
    expect(found).toHaveLength(8);
    expect(new Set(found.map((g) => g.gpuId))).toEqual(new Set(['h100-sxm']));
  });

  it('matches an A100-SXM4-80GB', () => {
    expect(detect('1x-a100-sxm4-80gb.csv').map((g) => g.gpuId)).toEqual(['a100-80gb-sxm']);
  });

  it('refuses a same-name SKU with other memory, and tolerates older-driver totals', () => {
    // 8 GB 4060 Ti (8188 MiB) is not the 16 GB card; GB10 is not in the catalog; A100 40GB PCIe at 40536 MiB (old driver) is
    expect(detect('mixed-edge-cases.csv').map((g) => g.gpuId)).toEqual([
      null,
      null,
      'a100-40gb-pcie',
    ]);
  });

  it('falls back to the name slug as an id or alias', () => {
    expect(slugOfDeviceName('NVIDIA GeForce RTX 4090')).toBe('rtx-4090');
    expect(matchGpuName('NVIDIA RTX A6000', 49140, gpus)).toBe('rtx-a6000');
    // memory type suffix dropped: "h100-96gb-hbm3" → alias "h100-96gb"
    expect(matchGpuName('NVIDIA H100 96GB HBM3', 97871, gpus)).toBe('h100-sxm-96gb');
    expect(matchGpuName('NVIDIA Quadro P1000', 4096, gpus)).toBeNull();
  });

  it('matches case-insensitively and without memory', () => {
    expect(matchGpuName('tesla t4', null, gpus)).toBe('t4');
  });

  it('returns null ids against an empty catalog', () => {
    expect(matchDetected(parseNvidiaSmiCsv(fixture('1x-rtx-4090.csv')), [])[0]?.gpuId).toBeNull();
  });
});
