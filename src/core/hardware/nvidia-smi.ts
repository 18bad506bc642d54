/** Parse `nvidia-smi --query-gpu` CSV and match device names to catalog GPUs. Pure. */
import type { Gpu } from '../../schema/gpu.js';

/** Arguments for nvidia-smi; the parser expects exactly these columns in this order. */
export const NVIDIA_SMI_ARGS = [
  '--query-gpu=index,name,memory.total,power.limit,pci.bus_id',
  '--format=csv,noheader,nounits',
] as const;

/** One row of nvidia-smi output; memory and power are null where the driver prints [N/A] or [Not Supported]. */
export interface SmiGpu {
  readonly index: number;
  readonly name: string;
  /** memory.total, MiB (null on unified-memory parts such as GB10). */
  readonly memoryMiB: number | null;
  /** power.limit, W (the current enforced limit, which `nvidia-smi -pl` changes). */
  readonly powerLimitW: number | null;
  readonly pciBusId: string;
}

/** A detected GPU plus the catalog id it matched, or null. */
export interface DetectedGpu extends SmiGpu {
  readonly gpuId: string | null;
}

const num = (field: string): number | null => {
  const n = Number(field);
  return field !== '' && Number.isFinite(n) ? n : null;
};

/** Parse the CSV of NVIDIA_SMI_ARGS; blank and malformed lines are skipped. */
export function parseNvidiaSmiCsv(csv: string): SmiGpu[] {
  const rows: SmiGpu[] = [];
  for (const line of csv.split(/\r?\n/)) {
    const fields = line.split(',').map((f) => f.trim());
    if (fields.length < 5) continue;
    // Names carry no commas today; joining the middle keeps a future one intact.
    const [indexField = '', ...rest] = fields;
    const pciBusId = rest.pop() ?? '';
    const powerField = rest.pop() ?? '';
    const memoryField = rest.pop() ?? '';
    const index = num(indexField);
    if (index === null || !Number.isInteger(index)) continue;
    const memory = num(memoryField);
    rows.push({
      index,
      name: rest.join(', '),
      memoryMiB: memory === null ? null : Math.round(memory),
      powerLimitW: num(powerField),
      pciBusId,
    });
  }
  return rows;
}

/** "NVIDIA GeForce RTX 4090" → "rtx-4090": drop vendor and brand words, kebab-case the rest. */
export function slugOfDeviceName(name: string): string {
  return name
    .toLowerCase()
    .replace(/\b(nvidia|geforce|tesla|amd|radeon)\b/g, ' ')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/** Drivers and ECC shift totals by a few %; a bigger gap means another SKU with the same name (RTX 4060 Ti 8 GB). */
const MEMORY_TOLERANCE = 0.1;

const nearest = (cands: readonly Gpu[], memoryMiB: number | null): Gpu | undefined => {
  if (memoryMiB === null) return cands[0];
  const gap = (g: Gpu): number => Math.abs(g.memoryMiB - memoryMiB) / g.memoryMiB;
  return cands.filter((g) => gap(g) <= MEMORY_TOLERANCE).sort((a, b) => gap(a) - gap(b))[0];
};

/**
 * Catalog id for an nvidia-smi device name: an exact `nvidiaSmiNames` match first, then the name's slug
 * as an id or alias; among several, the nearest memory wins, and none within 10 % of memory.total is no match.
 */
export function matchGpuName(
  name: string,
  memoryMiB: number | null,
  gpus: readonly Gpu[],
): string | null {
  const wanted = name.trim().toLowerCase();
  const byName = gpus.filter((g) => g.nvidiaSmiNames?.some((n) => n.toLowerCase() === wanted));
  const exact = nearest(byName, memoryMiB);
  if (exact) return exact.id;
  const slug = slugOfDeviceName(name);
  // "H100 96GB HBM3" → "h100-96gb": the memory type is not part of ids or aliases.
  for (const key of [slug, slug.replace(/-hbm\d?e?$/, '')]) {
    const hit = gpus.filter((g) => g.id === key || g.aliases.includes(key));
    const best = nearest(hit, memoryMiB);
    if (best) return best.id;
  }
  return null;
}

/** Attach catalog ids to parsed nvidia-smi rows. */
export function matchDetected(rows: readonly SmiGpu[], gpus: readonly Gpu[]): DetectedGpu[] {
  return rows.map((r) => ({ ...r, gpuId: matchGpuName(r.name, r.memoryMiB, gpus) }));
}
