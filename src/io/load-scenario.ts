/** Read one scenario (YAML or JSON), validate it, and resolve its ids against the catalogs. */
import { existsSync } from 'node:fs';
import { dirname, isAbsolute, resolve as resolvePath } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { z } from 'zod';
import type { CircuitCap } from '../core/hardware/index.js';
import type { HardwareOption } from '../core/plan/index.js';
import type { Gpu } from '../schema/gpu.js';
import type { Offer } from '../schema/offer.js';
import { scenarioSchema, type Scenario } from '../schema/scenario.js';
import { UserError, badValue } from './errors.js';
import { MAX_NESTING, bracketDepth, nestingOf, readInputText, tooDeep } from './read-input.js';
import {
  findCircuit,
  loadGpus,
  loadOffers,
  lookupGpu,
  type CatalogOptions,
} from './load-catalog.js';
import { didYouMean } from './suggest.js';

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

/** The keys a (zod 4) object schema allows at `path` (every option's keys under a union). */
export function keysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  type Def = {
    type: string;
    shape?: Record<string, z.ZodType>;
    innerType?: z.ZodType;
    element?: z.ZodType;
    options?: z.ZodType[];
    in?: z.ZodType;
    valueType?: z.ZodType;
  };
  const defOf = (t: z.ZodType): Def => (t as unknown as { _zod: { def: Def } })._zod.def;
  let level: z.ZodType[] = [schema];
  const expand = (ts: z.ZodType[]): z.ZodType[] =>
    ts.flatMap((t) => {
      const d = defOf(t);
      if (d.innerType) return expand([d.innerType]);
      if (d.type === 'pipe' && d.in) return expand([d.in]);
      if (d.options) return expand(d.options);
      return [t];
    });
  for (const k of path) {
    level = expand(level).flatMap((t) => {
      const d = defOf(t);
      if (d.shape && typeof k === 'string' && d.shape[k]) return [d.shape[k]];
      if (d.element && typeof k === 'number') return [d.element];
      if (d.valueType) return [d.valueType];
      return [];
    });
  }
  return [...new Set(expand(level).flatMap((t) => Object.keys(defOf(t).shape ?? {})))];
}

/**
 * `<file>: ✖ <message> (got <value>) → at <path>`, further issues joined by `; ` so the error stays one
 * line; zod's messages say what is allowed.
 */
export function scenarioIssues(
  file: string,
  data: unknown,
  issues: readonly z.core.$ZodIssue[],
): string {
  const each = issues.map((i) => {
    const at = i.path.length > 0 ? i.path.map(String).join('.') : '(root)';
    if (i.code === 'unrecognized_keys') {
      const known = keysAt(scenarioSchema, i.path);
      const hints = i.keys.map((k) => didYouMean(k, known, 1)).filter(Boolean);
      return `✖ ${i.message}${hints.length > 0 ? ` (${hints.join('; ')})` : ''} → at ${at}`;
    }
    const got = valueAt(data, i.path);
    // A message that names the value explains it (a schema's own error); no near-miss hint beside it.
    const hint =
      i.code === 'invalid_value' && typeof got === 'string' && !i.message.startsWith(`${got} `)
        ? didYouMean(
            got,
            i.values.filter((v): v is string => typeof v === 'string'),
            1,
          )
        : '';
    return `✖ ${i.message} (got ${describe(got)}${hint ? `; ${hint}` : ''}) → at ${at}`;
  });
  return `${file}: ${each.join('; ')}`;
}

/** Parse text as YAML (JSON is YAML) and validate; errors name the file, the field path and the value. */
export function parseScenario(file: string, text: string): Scenario {
  const json = /\.json$/i.test(file);
  let data: unknown;
  if (bracketDepth(text, !json) > MAX_NESTING) throw tooDeep(file);
  try {
    // logLevel 'error': a warning (unknown tag or directive) would go to stderr as a multi-line block.
    data = json ? JSON.parse(text) : parseYaml(text, { logLevel: 'error' });
  } catch (e) {
    if (e instanceof RangeError || /call stack/i.test((e as Error).message)) throw tooDeep(file);
    // YAML appends a code frame after the first line (ending in ':'); JSON's excerpt may hold newlines.
    const m = (e as Error).message;
    throw new UserError(
      `${file}: invalid ${json ? 'JSON' : 'YAML'}: ${json ? m : m.split('\n')[0]!.replace(/:$/, '')}`,
    );
  }
  if (nestingOf(data) > MAX_NESTING) throw tooDeep(file);
  if (data === null || data === undefined)
    throw new UserError(
      `${file}: empty; expected a mapping with at least name, model and job`,
      'scenarios/default.yaml is an example.',
    );
  return validScenario(file, data);
}

/** The scenario schema over parsed data (a file's, or the explorer's edit); errors as parseScenario's. */
export function validScenario(file: string, data: unknown): Scenario {
  const r = scenarioSchema.safeParse(data);
  if (!r.success)
    throw new UserError(
      scenarioIssues(file, data, r.error.issues),
      'scenarios/README.md and scenarios/scenario.schema.json list every field.',
    );
  return r.data;
}

export function loadScenario(file: string): Scenario {
  const text = readInputText(file, {
    cannotRead: (code) =>
      new UserError(
        `${file}: cannot read (${code}); expected a readable scenario file (YAML or JSON)`,
      ),
  });
  return parseScenario(file, text);
}

/** Runs `f` (resolving a scenario's ids); its UserErrors are prefixed with the scenario's file name. */
export function inScenario<T>(file: string, f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof UserError) throw new UserError(`${file}: ${e.message}`, e.hint, e.exitCode);
    throw e;
  }
}

export interface ResolvedHardware {
  options: HardwareOption[];
  circuits: CircuitCap[];
}

/**
 * Turn the scenario's hardware and power sections into planner inputs. `detected` holds catalog ids of
 * GPUs found by nvidia-smi (one entry per GPU).
 */
export function resolveHardware(
  s: Scenario,
  detected: readonly string[] = [],
  cat?: CatalogOptions,
): ResolvedHardware {
  const gpus = loadGpus(cat);
  const byId = new Map(gpus.map((g) => [g.id, g]));
  const gpu = (id: string, at: string): Gpu => byId.get(id) ?? lookupGpu(gpus, id, at);
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
    options.push({
      kind: 'owned',
      gpu: gpu(id, 'hardware.owned'),
      maxCount: o.count,
      nodeSize,
      usdPerGpuHour: 0,
      purchaseUsd: o.price,
    });

  const rent = s.hardware.rent;
  if (rent) {
    const all = loadOffers(cat);
    const providers = [...new Set(all.map((o) => o.provider))].sort();
    rent.providers?.forEach((p, i) => {
      if (!providers.includes(p))
        throw badValue(
          `hardware.rent.providers.${i}`,
          p,
          [didYouMean(p, providers), `one of ${providers.join(', ')}`].filter(Boolean).join(' '),
        );
    });
    // Aliases are accepted as elsewhere; offers name the catalog id.
    const rentGpus = rent.gpus?.map((id, i) => gpu(id, `hardware.rent.gpus.${i}`).id);
    const offers: Offer[] = all.filter(
      (o) =>
        (!rent.providers || rent.providers.includes(o.provider)) &&
        (!rent.kinds || rent.kinds.includes(o.kind)) &&
        (!rent.offers || rent.offers.includes(o.id)) &&
        (!rentGpus || rentGpus.includes(o.gpuId)),
    );
    rent.offers?.forEach((id, i) => {
      if (!offers.some((o) => o.id === id)) {
        const hint = didYouMean(
          id,
          all.map((o) => o.id),
        );
        throw new UserError(
          `hardware.rent.offers.${i}: got '${id}'; ${hint ? `${hint} ` : ''}expected an offer id from catalogs/offers (see 'vramplan catalog offers')`,
        );
      }
    });
    if (offers.length === 0) {
      // A rent block no offer passes plans nothing to rent, which would read as "nothing fits" with nothing pruned.
      const where = (id: string) =>
        `${id}: ${[...new Set(all.filter((o) => o.gpuId === id).map((o) => o.provider))].sort().join(', ') || 'none'}`;
      throw new UserError(
        `hardware.rent: no offer in catalogs/offers passes its filters${rentGpus ? ` (providers of ${rentGpus.map(where).join('; ')})` : ''}; see 'vramplan catalog offers'`,
      );
    }
    for (const o of offers.sort((a, b) => (a.id < b.id ? -1 : 1))) {
      const g = byId.get(o.gpuId);
      if (!g) continue;
      const machine = o.gpusPerNode > 1 ? o.gpusPerNode : nodeSize;
      options.push({
        kind: 'rent',
        gpu: g,
        // One machine unless the offer's machines share a scale-out network (Offer.clusterNetwork).
        maxCount: o.clusterNetwork ? Infinity : machine,
        nodeSize: machine,
        usdPerGpuHour: o.usdPerGpuHour,
        purchaseUsd: 0,
        offer: o,
      });
    }
  }
  const buy = s.hardware.buy;
  if (buy) {
    for (const id of Object.keys(buy.priceUsd ?? {})) gpu(id, `hardware.buy.priceUsd.${id}`);
    const list =
      buy.gpus === 'all'
        ? gpus.filter((g) => g.launchPriceUsd !== null)
        : buy.gpus.map((id, i) => gpu(id, `hardware.buy.gpus.${i}`));
    for (const g of list) {
      const price = buy.priceUsd?.[g.id] ?? g.launchPriceUsd;
      if (price === null || price === undefined)
        throw new UserError(
          `hardware.buy.priceUsd.${g.id}: got nothing; expected a price (the catalog has no launch price for ${g.id})`,
        );
      options.push({
        kind: 'buy',
        gpu: g,
        maxCount: Infinity,
        nodeSize,
        usdPerGpuHour: 0,
        purchaseUsd: price,
      });
    }
  }
  const circuits: CircuitCap[] = s.power.circuits.map((c, i) => {
    if (typeof c === 'string') {
      const f = findCircuit(c, { ...cat, flag: `power.circuits.${i}` });
      return { id: `${f.id}#${i + 1}`, volts: f.volts, continuousWatts: f.continuousWatts };
    }
    return {
      id: `${c.id}#${i + 1}`,
      volts: c.volts,
      continuousWatts: c.volts * c.amps * c.continuousFraction,
    };
  });
  return { options, circuits };
}

/** The scenario's `model`, with a relative config.json or checkpoint path taken from the scenario's folder. */
export function modelSpecOf(file: string, scenario: Scenario): string {
  const spec = scenario.model;
  if (isAbsolute(spec)) return spec;
  const beside = resolvePath(dirname(file), spec);
  return existsSync(beside) ? beside : spec;
}
