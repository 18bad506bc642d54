// Every hardware catalog file parses, ids equal file names, aliases resolve, circuits obey V × A × fraction.
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  findCircuit,
  findGpu,
  loadCircuits,
  loadGpus,
  loadOffers,
} from '../src/io/load-catalog.js';
import { PSU_EFFICIENCY_115V, PSU_EFFICIENCY_230V_EU, SYSTEM_DRAW_W } from '../src/schema/power.js';

const gpus = loadGpus();
const offers = loadOffers();
const circuits = loadCircuits();
const filesIn = (sub: string): string[] =>
  readdirSync(fileURLToPath(new URL(`../catalogs/${sub}/`, import.meta.url)))
    .filter((f) => f.endsWith('.json'))
    .map((f) => f.replace(/\.json$/, ''))
    .sort();

describe('GPU catalog', () => {
  it('loads every file, and each id equals its file name', () => {
    expect(gpus.map((g) => g.id).sort()).toEqual(filesIn('gpus'));
    // 41 from shared/reference/gpus.json + titan-rtx + h100-sxm-96gb
    expect(gpus.length).toBeGreaterThanOrEqual(43);
  });

  it('keeps aliases unique across the catalog and distinct from ids', () => {
    const ids = new Set(gpus.map((g) => g.id));
    const seen = new Map<string, string>();
    for (const g of gpus) {
      for (const a of g.aliases) {
        expect(ids.has(a), `${g.id}: alias '${a}' is another GPU's id`).toBe(false);
        expect(seen.get(a), `alias '${a}' on ${g.id} and ${seen.get(a)}`).toBeUndefined();
        seen.set(a, g.id);
      }
    }
  });

  it('keeps nvidia-smi names unique across the catalog', () => {
    const names = gpus.flatMap((g) => g.nvidiaSmiNames ?? []).map((n) => n.toLowerCase());
    expect(new Set(names).size).toBe(names.length);
  });

  // ids that calibration data and outside tests pass to --gpu
  const expected: Record<string, string> = {
    'v100-16gb': 'v100-16gb',
    'a100-80gb': 'a100-80gb-sxm',
    'a100-40gb': 'a100-40gb-sxm',
    'h100-80gb': 'h100-sxm',
    'h100-96gb': 'h100-sxm-96gb',
    t4: 't4',
    'rtx-4090': 'rtx-4090',
    a10g: 'a10g',
    l40s: 'l40s',
    'rtx-a6000': 'rtx-a6000',
    'titan-rtx': 'titan-rtx',
    'rtx-3090': 'rtx-3090',
    '4090': 'rtx-4090',
    a6000: 'rtx-a6000',
    // cards people own or rent now
    '4060': 'rtx-4060',
    'rtx-3060': 'rtx-3060-12gb', // not ambiguous with the 3060 Ti (another card, not a memory variant)
    'rtx-3060-ti': 'rtx-3060-ti',
    'rtx-4070': 'rtx-4070',
    '5070': 'rtx-5070',
    b300: 'b300',
    'gb200-nvl72': 'gb200',
    mi355x: 'mi355x',
  };
  it.each(Object.entries(expected))('resolves --gpu %s to %s', (name, id) => {
    expect(findGpu(name).id).toBe(id);
    expect(findGpu(name.toUpperCase()).id).toBe(id);
  });

  it('gives the 96 GB H100 more memory than the 94 GB NVL and the 80 GB SXM', () => {
    const mib = (id: string): number => findGpu(id).memoryMiB;
    expect(mib('h100-96gb')).toBeGreaterThan(mib('h100-nvl'));
    expect(mib('h100-nvl')).toBeGreaterThan(mib('h100-sxm'));
  });

  it('has facts that agree with each other', () => {
    for (const g of gpus) {
      // reported MiB of a "N GB" part lies within -5 %..+10 % of N × 1e9 bytes (HBM parts ship GiB-sized stacks)
      const ratio = (g.memoryMiB * 2 ** 20) / (g.memoryGB * 1e9);
      expect(ratio, g.id).toBeGreaterThan(0.95);
      expect(ratio, g.id).toBeLessThan(1.1);
      if (!g.supportsBf16) expect(g.tflops.bf16, g.id).toBeNull();
      if (g.tflops.fp8 !== null) expect(g.supportsFp8, g.id).toBe(true);
      expect(g.unifiedMemory, g.id).toBe(g.vendor === 'apple');
      // FlashAttention-2 needs Ampere or newer on NVIDIA (compute capability >= 8.0)
      if (g.vendor === 'nvidia') {
        expect(g.supportsFlashAttention2, g.id).toBe(Number(g.computeCapability) >= 8.0);
      }
      if (g.memoryMiBBasis !== 'nvidia-smi') expect(g.notes, g.id).toMatch(/memoryMiB/);
    }
  });

  it('has 8 GB and 12 GB consumer cards, and dates the specs of every entry added since', () => {
    const consumer = gpus.filter((g) => g.category === 'consumer');
    expect(consumer.some((g) => g.memoryGB === 8)).toBe(true);
    expect(consumer.filter((g) => g.memoryGB === 12).length).toBeGreaterThanOrEqual(2);
    for (const id of ['rtx-4060', 'rtx-3060-ti', 'rtx-4070', 'rtx-5070', 'b300', 'gb200', 'mi355x'])
      expect(findGpu(id).specsAsOf, id).toMatch(/^\d{4}-\d{2}/);
  });

  it('records that the RTX 4090 has no P2P and no NVLink (formulas-and-factors §2.6)', () => {
    const g = findGpu('rtx-4090');
    expect(g.interconnect).toMatchObject({ p2p: false, nvlinkGBps: null });
    expect(findGpu('h100-sxm').interconnect).toMatchObject({ p2p: true, nvlinkGBps: 900 });
  });
});

describe('offer catalog', () => {
  it('has unique ids, known GPUs, and providers equal to file names', () => {
    const ids = offers.map((o) => o.id);
    expect(new Set(ids).size).toBe(ids.length);
    const gpuIds = new Set(gpus.map((g) => g.id));
    for (const o of offers)
      expect(gpuIds.has(o.gpuId), `${o.id}: unknown gpuId ${o.gpuId}`).toBe(true);
    expect([...new Set(offers.map((o) => o.provider))].sort()).toEqual(filesIn('offers'));
  });

  it('keeps the §3.1 snapshot values', () => {
    const price = (id: string): number | undefined =>
      offers.find((o) => o.id === id)?.usdPerGpuHour;
    expect(price('runpod-rtx-4090-spot')).toBe(0.34);
    expect(price('runpod-h100-sxm-on-demand')).toBe(4.76);
    // 8× H100 SXM5 at $31.92/h on Lambda = $3.99/GPU-h
    expect(price('lambda-h100-sxm-on-demand-8x')).toBe(3.99);
    // RunPod serverless 4090 PRO $0.00031/s × 3600 = $1.116/h
    expect(price('runpod-rtx-4090-serverless')).toBeCloseTo(1.116, 6);
  });
});

describe('circuit catalog', () => {
  it('loads every preset with id = file name', () => {
    expect(circuits.map((c) => c.id)).toEqual(filesIn('circuits'));
  });

  it.each(circuits.map((c) => [c.id, c] as const))(
    '%s: continuousWatts = V × A × fraction',
    (_, c) => {
      expect(c.continuousWatts).toBeCloseTo(c.volts * c.amps * c.continuousFraction, 6);
    },
  );

  it('matches the power.md planning limits', () => {
    // 120 V × 15 A × 0.8 = 1440 W; 120 × 20 × 0.8 = 1920 W (NEC 80 % rule)
    expect(findCircuit('us-120v-15a').continuousWatts).toBe(1440);
    expect(findCircuit('us-120v-20a').continuousWatts).toBe(1920);
    // 240 × 30 × 0.8 = 5760 W; Schuko 230 × 16 × 0.625 = 2300 W (10 A multi-hour guidance); UK 230 × 13 = 2990 W
    expect(findCircuit('us-240v-30a').continuousWatts).toBe(5760);
    expect(findCircuit('eu-230v-16a').continuousWatts).toBe(2300);
    expect(findCircuit('UK-230V-13A').continuousWatts).toBe(2990);
  });
});

describe('power constants', () => {
  it('keeps efficiencies in (0, 1] and 230 V at or above 115 V', () => {
    for (const [tier, e] of Object.entries(PSU_EFFICIENCY_230V_EU.tiers)) {
      const base = PSU_EFFICIENCY_115V.tiers[tier as keyof typeof PSU_EFFICIENCY_115V.tiers];
      for (const k of ['at20', 'at50', 'at100'] as const) {
        expect(e[k]).toBeLessThanOrEqual(1);
        expect(e[k]).toBeGreaterThanOrEqual(base[k]);
      }
    }
    expect(PSU_EFFICIENCY_115V.tiers.gold.at50).toBe(0.9);
  });

  it('reproduces the power.md worked example: 1× RTX 4090 build draws 780 W DC', () => {
    // 450 W GPU + 230 W desktop CPU + 100 W platform = 780 W
    expect(450 + SYSTEM_DRAW_W.desktopCpu.typicalW + SYSTEM_DRAW_W.platform.typicalW).toBe(780);
  });
});
