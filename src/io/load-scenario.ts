/** Read one scenario (YAML or JSON), validate it, and resolve its ids against the catalogs. */
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import type { z } from 'zod';
import type { CircuitCap } from '../core/power.js';
import type { HardwareOption } from '../core/plan.js';
import type { Gpu } from '../schema/gpu.js';
import type { Offer } from '../schema/offer.js';
import { scenarioSchema, type Scenario } from '../schema/scenario.js';
import { UserError } from './errors.js';
import { findCircuit, loadGpus, loadOffers, type CatalogOptions } from './load-catalog.js';

const describe = (v: unknown): string => {
  if (v === undefined) return 'nothing';
  const s = JSON.stringify(v);
  return s && s.length > 60 ? `${s.slice(0, 57)}...` : (s ?? String(v));
};

function valueAt(data: unknown, path: readonly PropertyKey[]): unknown {
  let cur: unknown = data;
  for (const k of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[k];
  }
  return cur;
}

/** `<file>: ✖ <message> (got <value>) → at <path>` for each issue; zod's messages say what is allowed. */
export function scenarioIssues(file: string, data: unknown, issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .map((i) => {
      const at = i.path.length > 0 ? i.path.map(String).join('.') : '(root)';
      const keys = i.code === 'unrecognized_keys' ? '' : ` (got ${describe(valueAt(data, i.path))})`;
      return `${file}: ✖ ${i.message}${keys} → at ${at}`;
    })
    .join('\n');
}

/** Parse text as YAML (JSON is YAML) and validate; errors name the file, the field path and the value. */
export function parseScenario(file: string, text: string): Scenario {
  let data: unknown;
  try {
    data = /\.json$/i.test(file) ? JSON.parse(text) : parseYaml(text);
  } catch (e) {
    throw new UserError(`${file}: invalid ${/\.json$/i.test(file) ? 'JSON' : 'YAML'}: ${(e as Error).message.split('\n')[0]}`);
  }
  const r = scenarioSchema.safeParse(data);
  if (!r.success)
    throw new UserError(scenarioIssues(file, data, r.error.issues), 'scenarios/README.md and scenarios/scenario.schema.json list every field.');
  return r.data;
}

export function loadScenario(file: string): Scenario {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new UserError(`${file}: cannot read (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  return parseScenario(file, text);
}

export interface ResolvedHardware {
  options: HardwareOption[];
  circuits: CircuitCap[];
}

/**
 * Turn the scenario's hardware and power sections into planner inputs. `detected` holds catalog ids of
 * GPUs found by nvidia-smi (one entry per GPU).
 */
export function resolveHardware(s: Scenario, detected: readonly string[] = [], cat?: CatalogOptions): ResolvedHardware {
  const gpus = loadGpus(cat);
  const byId = new Map(gpus.map((g) => [g.id, g]));
  const gpu = (id: string, at: string): Gpu => {
    const g = byId.get(id) ?? gpus.find((x) => x.aliases.includes(id));
    if (!g) throw new UserError(`${at}: got '${id}'; expected a GPU id from catalogs/gpus (see 'vramplan catalog gpus')`);
    return g;
  };
  const options: HardwareOption[] = [];
  const nodeSize = s.hardware.gpusPerNode;
  const owned = new Map<string, { count: number; price: number }>();
  s.hardware.owned.forEach((o, i) => {
    const g = gpu(o.gpu, `hardware.owned.${i}.gpu`);
    const prev = owned.get(g.id) ?? { count: 0, price: 0 };
    owned.set(g.id, { count: prev.count + o.count, price: o.priceUsd ?? prev.price });
  });
  for (const id of detected) {
    const prev = owned.get(id) ?? { count: 0, price: 0 };
    owned.set(id, { ...prev, count: prev.count + 1 });
  }
  for (const [id, o] of [...owned].sort((a, b) => (a[0] < b[0] ? -1 : 1)))
    options.push({ kind: 'owned', gpu: gpu(id, 'hardware.owned'), maxCount: o.count, nodeSize, usdPerGpuHour: 0, purchaseUsd: o.price });

  const rent = s.hardware.rent;
  if (rent) {
    const offers: Offer[] = loadOffers(cat).filter(
      (o) =>
        (!rent.providers || rent.providers.includes(o.provider)) &&
        (!rent.kinds || rent.kinds.includes(o.kind)) &&
        (!rent.offers || rent.offers.includes(o.id)) &&
        (!rent.gpus || rent.gpus.includes(o.gpuId)),
    );
    for (const id of rent.offers ?? [])
      if (!offers.some((o) => o.id === id)) throw new UserError(`hardware.rent.offers: got '${id}'; expected an offer id from catalogs/offers (see 'vramplan catalog offers')`);
    for (const o of offers.sort((a, b) => (a.id < b.id ? -1 : 1))) {
      const g = byId.get(o.gpuId);
      if (!g) continue;
      options.push({ kind: 'rent', gpu: g, maxCount: Infinity, nodeSize: o.gpusPerNode > 1 ? o.gpusPerNode : nodeSize, usdPerGpuHour: o.usdPerGpuHour, purchaseUsd: 0, offer: o });
    }
  }
  const buy = s.hardware.buy;
  if (buy) {
    const list = buy.gpus === 'all' ? gpus.filter((g) => g.launchPriceUsd !== null) : buy.gpus.map((id, i) => gpu(id, `hardware.buy.gpus.${i}`));
    for (const g of list) {
      const price = buy.priceUsd?.[g.id] ?? g.launchPriceUsd;
      if (price === null || price === undefined)
        throw new UserError(`hardware.buy.priceUsd.${g.id}: got nothing; expected a price (the catalog has no launch price for ${g.id})`);
      options.push({ kind: 'buy', gpu: g, maxCount: Infinity, nodeSize, usdPerGpuHour: 0, purchaseUsd: price });
    }
  }
  const circuits: CircuitCap[] = s.power.circuits.map((c, i) => {
    if (typeof c === 'string') {
      const f = findCircuit(c, { ...cat, flag: `power.circuits.${i}` });
      return { id: `${f.id}#${i + 1}`, volts: f.volts, continuousWatts: f.continuousWatts };
    }
    return { id: `${c.id}#${i + 1}`, volts: c.volts, continuousWatts: c.volts * c.amps * c.continuousFraction };
  });
  return { options, circuits };
}
